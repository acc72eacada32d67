#include "broker/openapi.hpp"

#define SINDRI_STR2(x) #x
#define SINDRI_STR(x) SINDRI_STR2(x)

// Embedded at build time so the broker serves it without any file around.
__asm__(
    ".pushsection .rodata\n"
    ".hidden sindri_openapi_document\n"
    ".globl sindri_openapi_document\n"
    "sindri_openapi_document:\n"
    ".incbin " SINDRI_STR(SINDRI_OPENAPI_FILE) "\n"
    ".hidden sindri_openapi_document_end\n"
    ".globl sindri_openapi_document_end\n"
    "sindri_openapi_document_end:\n"
    ".byte 0\n"
    ".popsection\n");
extern "C" const char sindri_openapi_document[];
extern "C" const char sindri_openapi_document_end[];

namespace sindri::broker {

std::string_view openapi_document() {
  return std::string_view(sindri_openapi_document,
                          static_cast<size_t>(sindri_openapi_document_end - sindri_openapi_document));
}

}  // namespace sindri::broker
