#pragma once
// Around a libfyaml 0.7.12 misreading: a block scalar (`|`, `>`, any
// chomping) with no content lines takes the next line as its content when
// that line sits at its parent collection's indentation n: it reads
// `data:\n  a: |\n  b: "1"\n` as {data: {a: "b: \"1\"\n"}}, kubectl as
// {data: {a: "", b: "1"}}. YAML wants content indented more than n, but
// fy_scan_block_scalar_indent auto-detects max(first line's indentation, n)
// as the content's. At the top level (n = 0) its least indentation of 1
// happens to be right; an explicit indentation indicator is read right.
//
// The repair gives libfyaml the indentation indicator `1` on such headers
// (`a: |1`): content must then be indented n + 1, which libfyaml reads
// right, and a scalar with no content means the same with it (its blank
// lines are no wider than n). libfyaml itself then reads what follows, so
// the structure, the errors and their line:column stay its own: only
// columns after the inserted digit on a header line move, and nothing is
// reported there. Rewriting the events instead would need another parser
// for the lines libfyaml swallowed; outline and reader share the repair
// through YamlEventParser, so they keep seeing the same events.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct fy_event;

namespace sindri::yaml_detail {

// A block scalar that libfyaml reads, or would read, with content at its
// parent's indentation, as found in a text.
struct EmptyBlockScalar {
  size_t indicator_end = 0;  // where `1` goes: just after the `|` or `>`
  size_t body = 0;           // the start of the line after the header
  size_t region_end = 0;     // where the lines at the parent's indentation or deeper end
  uint32_t parent_column = 0;
};

// Follows one parse's events for block scalars with no content followed by
// a line at the parent's indentation. In a text cut out of a deeper one
// (`nested`), a top-level collection stands for one indented in the real
// text, so its block scalars count too, although libfyaml reads them right.
class EmptyBlockScalarWatch {
 public:
  explicit EmptyBlockScalarWatch(bool nested = false) : nested_(nested) {}

  // Call with every event of the parse of `text`, in order.
  std::optional<EmptyBlockScalar> follow(std::string_view text, fy_event* event);

 private:
  static constexpr uint32_t kFlow = UINT32_MAX;
  bool nested_;
  std::vector<uint32_t> open_columns_;  // of the open collections, kFlow for flow ones
  size_t previous_end_ = 0;             // where the last scalar or alias read ends
};

// Every offset of `text` where an indentation indicator `1` must go, sorted;
// those inside the lines a misread scalar swallowed too. nullopt when they
// nest deeper than kMaxEmptyBlockScalarNesting (each level parses its lines
// again).
constexpr size_t kMaxEmptyBlockScalarNesting = 16;
std::optional<std::vector<size_t>> indentation_indicators_needed(std::string_view text);

// `text` with `insertion` at each offset (sorted): the edit every repair of
// the event parser makes (`1` here, ` ~` after empty sequence entries).
std::string with_insertions(std::string_view text, const std::vector<size_t>& offsets, std::string_view insertion);

}  // namespace sindri::yaml_detail
