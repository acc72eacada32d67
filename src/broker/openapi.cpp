#include "broker/openapi.hpp"

#include <stdexcept>

#include "patch/patch.hpp"
#include "value/embed.hpp"
#include "value/json.hpp"

// Both files are embedded at build time so the broker serves the document
// without any file around.
__asm__(SINDRI_EMBED(sindri_brokkr_api, SINDRI_BROKKR_API_FILE));
__asm__(SINDRI_EMBED(sindri_api_extensions, SINDRI_API_EXTENSIONS_FILE));
extern "C" const char sindri_brokkr_api[];
extern "C" const char sindri_brokkr_api_end[];
extern "C" const char sindri_api_extensions[];
extern "C" const char sindri_api_extensions_end[];

namespace sindri::broker {
namespace {

Value parse_embedded(const char* begin, const char* end, const char* name) {
  auto parsed = parse_json(std::string_view(begin, static_cast<size_t>(end - begin)));
  // Both files are part of the build and checked by its tests: a failure
  // here is a broken build, not a runtime condition.
  if (!parsed.ok()) throw std::logic_error(std::string("embedded ") + name + " is not JSON: " + parsed.error().describe());
  return std::move(parsed).value();
}

}  // namespace

const std::string& openapi_document() {
  static const std::string document = to_json(
      patch::merge_patch(parse_embedded(sindri_brokkr_api, sindri_brokkr_api_end, "api/brokkr-v1.json"),
                  parse_embedded(sindri_api_extensions, sindri_api_extensions_end, "api/sindri-extensions.json")));
  return document;
}

}  // namespace sindri::broker
