#include "roles/unified_diff.hpp"

#include <algorithm>
#include <vector>

namespace sindri::roles {

namespace {

enum class Op { Keep, Remove, Add };

struct Edit {
  Op op;
  size_t old_line;  // 0-based lines before this edit in each text
  size_t new_line;
  std::string_view text;
};

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      lines.push_back(text);
      break;
    }
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  return lines;
}

// The shortest edit script by longest common subsequence; the common prefix
// and suffix are peeled off first, so the table only covers the changed middle.
std::vector<Edit> edit_script(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  const size_t n = a.size() - prefix - suffix;
  const size_t m = b.size() - prefix - suffix;
  // common[i][j]: LCS length of a's middle from i and b's middle from j.
  std::vector<size_t> common((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> size_t& { return common[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      at(i, j) = a[prefix + i] == b[prefix + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  std::vector<Edit> edits;
  size_t i = 0;
  size_t j = 0;
  for (size_t k = 0; k < prefix; ++k, ++i, ++j) edits.push_back({Op::Keep, i, j, a[i]});
  size_t mi = 0;
  size_t mj = 0;
  while (mi < n || mj < m) {
    if (mi < n && mj < m && a[prefix + mi] == b[prefix + mj]) {
      edits.push_back({Op::Keep, i++, j++, a[prefix + mi]});
      ++mi, ++mj;
    } else if (mj == m || (mi < n && at(mi + 1, mj) >= at(mi, mj + 1))) {
      edits.push_back({Op::Remove, i++, j, a[prefix + mi++]});
    } else {
      edits.push_back({Op::Add, i, j++, b[prefix + mj++]});
    }
  }
  for (size_t k = 0; k < suffix; ++k, ++i, ++j) edits.push_back({Op::Keep, i, j, a[i]});
  return edits;
}

// diff's hunk range: "START" for one line, "START,COUNT" otherwise, where an
// empty range starts at the line before it.
std::string range(size_t first, size_t count) {
  if (count == 1) return std::to_string(first + 1);
  return std::to_string(count == 0 ? first : first + 1) + "," + std::to_string(count);
}

}  // namespace

std::string unified_diff(std::string_view old_text, std::string_view new_text, std::string_view old_label,
                         std::string_view new_label, size_t context) {
  if (old_text == new_text) return "";
  const std::vector<Edit> edits = edit_script(split_lines(old_text), split_lines(new_text));
  std::string out = "--- " + std::string(old_label) + "\n+++ " + std::string(new_label) + "\n";
  size_t next = 0;
  while (true) {
    while (next < edits.size() && edits[next].op == Op::Keep) ++next;
    if (next == edits.size()) break;
    const size_t begin = next >= context ? next - context : 0;
    // Extend the hunk while the next change is within 2*context kept lines.
    size_t last_change = next;
    for (size_t k = next + 1; k < edits.size() && k <= last_change + 2 * context; ++k) {
      if (edits[k].op != Op::Keep) last_change = k;
    }
    const size_t end = std::min(edits.size(), last_change + 1 + context);
    size_t old_count = 0;
    size_t new_count = 0;
    for (size_t k = begin; k < end; ++k) {
      if (edits[k].op != Op::Add) ++old_count;
      if (edits[k].op != Op::Remove) ++new_count;
    }
    out += "@@ -" + range(edits[begin].old_line, old_count) + " +" + range(edits[begin].new_line, new_count) + " @@\n";
    for (size_t k = begin; k < end; ++k) {
      out += edits[k].op == Op::Keep ? ' ' : edits[k].op == Op::Remove ? '-' : '+';
      out += edits[k].text;
      out += '\n';
    }
    next = end;
  }
  return out;
}

}  // namespace sindri::roles
