// The `slugify` filter: deunicode's transliteration (its tables, taken at
// build time from Debian's librust-deunicode-dev) then the slug crate's rules.

#include "tera/builtins/internal.hpp"
#include "tera/builtins/unicode.hpp"

#define SINDRI_STR2(x) #x
#define SINDRI_STR(x) SINDRI_STR2(x)
__asm__(
    ".pushsection .rodata\n"
    ".balign 16\n"
    ".hidden sindri_deunicode_pointers\n"
    ".globl sindri_deunicode_pointers\n"
    "sindri_deunicode_pointers:\n"
    ".incbin " SINDRI_STR(SINDRI_DEUNICODE_POINTERS) "\n"
    ".hidden sindri_deunicode_pointers_end\n"
    ".globl sindri_deunicode_pointers_end\n"
    "sindri_deunicode_pointers_end:\n"
    ".byte 0\n"
    ".hidden sindri_deunicode_mapping\n"
    ".globl sindri_deunicode_mapping\n"
    "sindri_deunicode_mapping:\n"
    ".incbin " SINDRI_STR(SINDRI_DEUNICODE_MAPPING) "\n"
    ".hidden sindri_deunicode_mapping_end\n"
    ".globl sindri_deunicode_mapping_end\n"
    "sindri_deunicode_mapping_end:\n"
    ".byte 0\n"
    ".popsection\n");
extern "C" const unsigned char sindri_deunicode_pointers[];
extern "C" const unsigned char sindri_deunicode_pointers_end[];
extern "C" const char sindri_deunicode_mapping[];
extern "C" const char sindri_deunicode_mapping_end[];

namespace sindri::tera::builtins {

namespace {

// deunicode_char: false when the char has no transliteration.
bool deunicode_char(char32_t c, std::string_view& out) {
  size_t count = static_cast<size_t>(sindri_deunicode_pointers_end - sindri_deunicode_pointers) / 3;
  if (c >= count) return false;
  const unsigned char* p = sindri_deunicode_pointers + 3 * static_cast<size_t>(c);
  size_t len = p[2];
  if (len <= 2) {
    out = std::string_view(reinterpret_cast<const char*>(p), len);
    return true;
  }
  size_t pos = static_cast<size_t>(p[0]) | (static_cast<size_t>(p[1]) << 8);
  size_t map_len = static_cast<size_t>(sindri_deunicode_mapping_end - sindri_deunicode_mapping);
  if (pos + len > map_len) return false;
  out = std::string_view(sindri_deunicode_mapping + pos, len);
  return true;
}

}  // namespace

Result<Value> f_slugify(const Value& input, const Args&, Budget& budget) {
  if (!input.is_string()) return incorrect_value("slugify", input, "String");
  std::string_view s = input.get_string();
  if (!budget.charge(s.size())) return Budget::stopped();
  std::string slug;
  slug.reserve(s.size());
  bool prev_dash = true;
  auto push = [&](char x) {
    if ((x >= 'a' && x <= 'z') || (x >= '0' && x <= '9')) {
      prev_dash = false;
      slug.push_back(x);
    } else if (x >= 'A' && x <= 'Z') {
      prev_dash = false;
      slug.push_back(static_cast<char>(x - 'A' + 'a'));
    } else if (!prev_dash) {
      slug.push_back('-');
      prev_dash = true;
    }
  };
  size_t i = 0;
  while (i < s.size()) {
    char32_t c = next_cp(s, i);
    if (c < 0x80) {
      push(static_cast<char>(c));
      continue;
    }
    std::string_view t;
    if (!deunicode_char(c, t)) t = "-";
    for (char x : t) push(x);
  }
  if (!slug.empty() && slug.back() == '-') slug.pop_back();
  // A char may stand for up to 32 bytes of transliteration.
  if (!budget.charge(slug.size())) return Budget::stopped();
  return Value(slug);
}

}  // namespace sindri::tera::builtins
