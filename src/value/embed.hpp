#pragma once
// Files embedded in the binary at build time, so that nothing has to be found
// at run time. The file's path comes from a compile definition, and the file
// is in the source's OBJECT_DEPENDS so that editing it rebuilds the object:
//
//   __asm__(SINDRI_EMBED(sindri_thing, SINDRI_THING_FILE));
//   extern "C" const char sindri_thing[];      // the bytes, then a zero byte
//   extern "C" const char sindri_thing_end[];  // where the bytes end

#define SINDRI_EMBED_QUOTE2(x) #x
#define SINDRI_EMBED_QUOTE(x) SINDRI_EMBED_QUOTE2(x)

#define SINDRI_EMBED(symbol, file)              \
  ".pushsection .rodata\n"                      \
  ".hidden " #symbol "\n"                       \
  ".globl " #symbol "\n" #symbol ":\n"          \
  ".incbin " SINDRI_EMBED_QUOTE(file) "\n"      \
  ".hidden " #symbol "_end\n"                   \
  ".globl " #symbol "_end\n" #symbol "_end:\n"  \
  ".byte 0\n"                                   \
  ".popsection\n"
