// YAML text to Values over libfyaml's event parser: events go straight into
// Values, with no intermediate document tree.

#include <libfyaml.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "value/number_format.hpp"
#include "value/yaml/yaml.hpp"

#include "value/pointer.hpp"
#include "value/yaml/events.hpp"
#include "value/yaml/scalar.hpp"

namespace sindri {

using yaml_detail::Position;
using yaml_detail::ResolvedScalar;
using yaml_detail::YamlEventParser;
using yaml_detail::position_of;
using yaml_detail::token_text;

std::string YamlError::describe() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  out += ':' + std::to_string(line) + ':' + std::to_string(column) + ": document " +
         std::to_string(document + 1) + ": " + message;
  return out;
}

const YamlPosition* YamlDocument::position_of(std::string_view pointer) const {
  auto it = std::lower_bound(positions.begin(), positions.end(), pointer,
                             [](const YamlPosition& p, std::string_view key) { return p.pointer < key; });
  return it != positions.end() && it->pointer == pointer ? &*it : nullptr;
}

const YamlPosition* YamlDocument::nearest_position_of(std::string_view pointer) const {
  for (;;) {
    const YamlPosition* found = position_of(pointer);
    if (found != nullptr && found->line > 0) return found;
    const size_t slash = pointer.rfind('/');
    if (slash == std::string_view::npos) return nullptr;
    pointer = pointer.substr(0, slash);
  }
}

namespace {

constexpr std::string_view kCoreTagPrefix = "tag:yaml.org,2002:";

// How a scalar's text must be read: as go-yaml v2 reads it, a quoted or
// `!!str` scalar is a string, a plain one is resolved, `!!int` and friends
// resolve and must agree, a local tag (`!foo`) keeps the text.
enum class ScalarReading { Resolve, String, Int, Float, Bool, Null };

struct ScalarSource {
  std::string_view text;
  ScalarReading reading = ScalarReading::Resolve;
};

struct Failure {
  Position where;
  std::string message;
};

// A member in document order; merged members may be overridden silently.
struct PendingMember {
  std::string key;
  Value value;
  Position where;
  bool merged;
};

struct Frame {
  bool is_mapping = false;
  Array items;
  std::vector<PendingMember> members;
  bool has_key = false;
  bool key_is_merge = false;
  std::string key;
  Position key_where;
  Position where;
  size_t nodes = 1;  // this node and everything under it, aliases expanded
  std::string anchor;
  size_t pointer_length = 0;
};

struct Anchor {
  Value value;
  size_t nodes = 1;
  bool is_scalar = false;
  std::string key;          // the scalar as a map key
  std::string key_problem;  // why the scalar cannot be a map key, if it cannot
};

std::string describe_scalar(std::string_view text) {
  std::string out = "`";
  out.append(text.substr(0, 60));
  if (text.size() > 60) out += "...";
  out += '`';
  return out;
}

class Reader {
 public:
  Reader(std::string_view file, const YamlOptions& options) : file_(file), options_(options) {}

  Result<std::vector<YamlDocument>, YamlError> read(std::string_view text) {
    auto parser = YamlEventParser::open(text);
    if (!parser) {
      return YamlError{std::string(file_), parser.error().document, parser.error().where.line,
                       parser.error().where.column, parser.error().message};
    }
    parser_ = &*parser;
    while (fy_event* event = parser->next()) {
      bool ok = handle(event, *parser);
      parser->release(event);
      if (!ok) return error_at(failure_.where, std::move(failure_.message));
    }
    auto outcome = parser->outcome();
    if (!outcome) return error_at(outcome.error().where, outcome.error().message);
    return std::move(documents_);
  }

 private:
  YamlError error_at(Position where, std::string message) const {
    return YamlError{std::string(file_), documents_.empty() ? 0 : documents_.size() - 1, where.line, where.column,
                     std::move(message)};
  }

  // Where a node starts; libfyaml marks the content of a quoted scalar and
  // the name of an alias, so step back onto the quote or the `*`.
  Position start_of(fy_event* event, bool after_indicator) {
    const fy_mark* mark = fy_event_start_mark(event);
    Position where = position_of(mark);
    if (mark && after_indicator && mark->input_pos > 0 && where.column > 1 &&
        std::strchr("\"'*", parser_->text()[mark->input_pos - 1])) {
      --where.column;
    }
    // An implicit document starts where its first node does.
    if (stack_.empty() && documents_.back().line == 0) documents_.back().line = where.line;
    return where;
  }

  bool fail(Position where, std::string message) {
    failure_ = Failure{where, std::move(message)};
    return false;
  }

  bool handle(fy_event* event, YamlEventParser& parser) {
    switch (event->type) {
      case FYET_DOCUMENT_START: {
        documents_.emplace_back();
        documents_.back().line = position_of(fy_event_start_mark(event)).line;
        anchors_.clear();
        expanded_ = 0;
        return true;
      }
      case FYET_DOCUMENT_END:
        if (options_.record_positions) {
          auto& positions = documents_.back().positions;
          std::sort(positions.begin(), positions.end(),
                    [](const YamlPosition& a, const YamlPosition& b) { return a.pointer < b.pointer; });
        }
        return true;
      case FYET_MAPPING_START:
        return open(event, true, event->mapping_start.anchor);
      case FYET_SEQUENCE_START:
        return open(event, false, event->sequence_start.anchor);
      case FYET_MAPPING_END:
      case FYET_SEQUENCE_END:
        return close();
      case FYET_SCALAR:
        return scalar(event, parser);
      case FYET_ALIAS:
        return alias(event);
      default:
        return true;
    }
  }

  // Called at the start of every node: the key slot of a mapping takes
  // keys, anything else is a value whose pointer is recorded if asked.
  bool in_key_slot() const { return !stack_.empty() && stack_.back().is_mapping && !stack_.back().has_key; }

  void record_position(Position where) {
    if (!options_.record_positions) return;
    if (!stack_.empty()) {
      const Frame& parent = stack_.back();
      pointer_.resize(parent.pointer_length);
      pointer_.push_back('/');
      if (parent.is_mapping) {
        append_pointer_token(pointer_, parent.key);
      } else {
        append_int(pointer_, static_cast<int64_t>(parent.items.size()));
      }
    } else {
      pointer_.clear();
    }
    documents_.back().positions.push_back(YamlPosition{pointer_, where.line, where.column});
  }

  bool open(fy_event* event, bool is_mapping, fy_token* anchor) {
    Position where = start_of(event, false);
    if (in_key_slot()) return fail(where, "a mapping or sequence cannot be a map key (kubectl: invalid map key)");
    if (stack_.size() >= options_.max_depth) {
      return fail(where, "nesting deeper than " + std::to_string(options_.max_depth) + " levels");
    }
    record_position(where);
    Frame frame;
    frame.is_mapping = is_mapping;
    frame.where = where;
    if (anchor) frame.anchor = token_text(anchor);
    frame.pointer_length = pointer_.size();
    stack_.push_back(std::move(frame));
    return true;
  }

  bool close() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    Value value;
    if (frame.is_mapping) {
      if (!build_object(frame, value)) return false;
    } else {
      value = Value(std::move(frame.items));
    }
    if (!frame.anchor.empty()) anchors_[frame.anchor] = Anchor{value, frame.nodes, false, {}, {}};
    return add_value(std::move(value), frame.where, frame.nodes);
  }

  // Members sorted by key; of equal keys the last in document order wins
  // (go-yaml v2 applies a merge where it stands, so a key after `<<` beats
  // the merged one and a key before it loses).
  bool build_object(Frame& frame, Value& out) {
    auto& members = frame.members;
    bool sorted = std::is_sorted(members.begin(), members.end(),
                                 [](const PendingMember& a, const PendingMember& b) { return a.key < b.key; });
    if (!sorted) {
      std::stable_sort(members.begin(), members.end(),
                       [](const PendingMember& a, const PendingMember& b) { return a.key < b.key; });
    }
    Object object;
    object.reserve(members.size());
    const PendingMember* first_explicit = nullptr;
    for (size_t i = 0; i < members.size(); ++i) {
      PendingMember& member = members[i];
      bool same_key = !object.empty() && object.back().key.get_string() == member.key;
      if (!same_key) first_explicit = nullptr;
      if (!member.merged) {
        if (first_explicit && !options_.allow_duplicate_keys) {
          return fail(member.where, "duplicate key \"" + member.key + "\" (first at line " +
                                        std::to_string(first_explicit->where.line) + " column " +
                                        std::to_string(first_explicit->where.column) + ")");
        }
        if (!first_explicit) first_explicit = &member;
      }
      if (same_key) {
        object.back().value = std::move(member.value);
      } else {
        object.push_back(Member{Value(member.key), std::move(member.value)});
      }
    }
    out = Value(std::move(object));
    return true;
  }

  bool add_value(Value value, Position where, size_t nodes) {
    if (stack_.empty()) {
      documents_.back().value = std::move(value);
      return true;
    }
    Frame& parent = stack_.back();
    parent.nodes += nodes;
    if (!parent.is_mapping) {
      parent.items.push_back(std::move(value));
      return true;
    }
    parent.has_key = false;
    if (parent.key_is_merge) return merge(parent, value, where);
    parent.members.push_back(PendingMember{std::move(parent.key), std::move(value), parent.key_where, false});
    return true;
  }

  bool merge(Frame& frame, const Value& value, Position where) {
    auto merge_one = [&](const Value& source) {
      for (const Member& m : source.get_object()) {
        frame.members.push_back(PendingMember{std::string(m.key.get_string()), m.value, frame.key_where, true});
      }
    };
    if (value.is_object()) {
      merge_one(value);
      return true;
    }
    if (value.is_array()) {
      const Array& sources = value.get_array();
      // go-yaml v2 merges a list from the end, so its first map wins.
      for (auto it = sources.rbegin(); it != sources.rend(); ++it) {
        if (!it->is_object()) return fail(where, "map merge requires map or sequence of maps as the value");
        merge_one(*it);
      }
      return true;
    }
    return fail(where, "map merge requires map or sequence of maps as the value");
  }

  static ScalarReading reading_of(fy_token* tag, fy_token* value) {
    if (tag) {
      std::string_view name = token_text(tag);
      if (name.substr(0, kCoreTagPrefix.size()) != kCoreTagPrefix) return ScalarReading::String;
      name.remove_prefix(kCoreTagPrefix.size());
      if (name == "int") return ScalarReading::Int;
      if (name == "float") return ScalarReading::Float;
      if (name == "bool") return ScalarReading::Bool;
      if (name == "null") return ScalarReading::Null;
      return ScalarReading::String;
    }
    return fy_token_scalar_style(value) == FYSS_PLAIN ? ScalarReading::Resolve : ScalarReading::String;
  }

  // The scalar as go-yaml v2 resolves it, checked against an explicit tag.
  bool resolve(const ScalarSource& source, Position where, ResolvedScalar& out) {
    if (source.reading == ScalarReading::String) {
      out = ResolvedScalar{};
      return true;
    }
    out = yaml_detail::resolve_plain(source.text);
    using Type = ResolvedScalar::Type;
    auto matches = [&] {
      switch (source.reading) {
        case ScalarReading::Int:
          return out.type == Type::Int || out.type == Type::Uint;
        case ScalarReading::Float:
          if (out.type == Type::Int) out = ResolvedScalar{Type::Float, false, 0, 0, static_cast<double>(out.integer)};
          if (out.type == Type::Uint) {
            out = ResolvedScalar{Type::Float, false, 0, 0, static_cast<double>(out.unsigned_integer)};
          }
          return out.type == Type::Float;
        case ScalarReading::Bool:
          return out.type == Type::Bool;
        case ScalarReading::Null:
          return out.type == Type::Null;
        default:
          return true;
      }
    };
    if (!matches()) {
      static constexpr const char* kTagNames[] = {"", "", "!!int", "!!float", "!!bool", "!!null"};
      return fail(where, "cannot decode " + describe_scalar(source.text) + " as a " +
                             kTagNames[static_cast<int>(source.reading)]);
    }
    return true;
  }

  bool scalar_value(const ScalarSource& source, Position where, Value& out) {
    ResolvedScalar r;
    if (!resolve(source, where, r)) return false;
    std::optional<Value> value = yaml_detail::json_value_of(r, source.text);
    if (!value) {
      return fail(where, describe_scalar(source.text) + " is not a JSON number (kubectl: json: unsupported value: " +
                             (std::isnan(r.floating) ? "NaN" : r.floating > 0 ? "+Inf" : "-Inf") + ")");
    }
    out = std::move(*value);
    return true;
  }

  // The map key sigs.k8s.io/yaml makes of a scalar, or why it cannot.
  bool scalar_key(const ScalarSource& source, Position where, std::string& key, std::string& problem) {
    ResolvedScalar r;
    if (!resolve(source, where, r)) return false;
    problem.clear();
    switch (r.type) {
      case ResolvedScalar::Type::Null:
        problem = "a null map key cannot become a JSON key (kubectl: unsupported map key of type: <nil>)";
        break;
      case ResolvedScalar::Type::Bool:
        key = r.boolean ? "true" : "false";
        break;
      case ResolvedScalar::Type::Int:
        key.clear();
        append_int(key, r.integer);
        break;
      case ResolvedScalar::Type::Uint:
        problem = "map key " + describe_scalar(source.text) +
                  " is above int64 and cannot become a JSON key (kubectl: unsupported map key of type: uint64)";
        break;
      case ResolvedScalar::Type::Float:
        key = yaml_detail::float_key_string(r.floating);
        break;
      case ResolvedScalar::Type::Timestamp:
      case ResolvedScalar::Type::String:
        key.assign(source.text);
        break;
    }
    return true;
  }

  bool set_key(Frame& frame, std::string key, const std::string& problem, Position where, bool is_merge) {
    if (!problem.empty()) return fail(where, problem);
    frame.key = std::move(key);
    frame.key_where = where;
    frame.has_key = true;
    frame.key_is_merge = is_merge;
    return true;
  }

  bool scalar(fy_event* event, YamlEventParser& parser) {
    fy_scalar_style style = fy_token_scalar_style(event->scalar.value);
    Position where = start_of(event, style == FYSS_SINGLE_QUOTED || style == FYSS_DOUBLE_QUOTED);
    ScalarSource source{parser.scalar_text(event->scalar.value), reading_of(event->scalar.tag, event->scalar.value)};
    std::string_view anchor_name = event->scalar.anchor ? token_text(event->scalar.anchor) : std::string_view();
    if (in_key_slot()) {
      std::string key, problem;
      if (!scalar_key(source, where, key, problem)) return false;
      bool is_merge = source.text == "<<" && (source.reading == ScalarReading::Resolve ||
                                              (event->scalar.tag && token_text(event->scalar.tag) ==
                                                                        "tag:yaml.org,2002:merge"));
      if (!anchor_name.empty()) {
        Value value;
        if (!scalar_value(source, where, value)) return false;
        anchors_[std::string(anchor_name)] = Anchor{value, 1, true, key, problem};
      }
      return set_key(stack_.back(), std::move(key), problem, where, is_merge);
    }
    record_position(where);
    Value value;
    if (!scalar_value(source, where, value)) return false;
    if (!anchor_name.empty()) {
      std::string key, problem;
      if (!scalar_key(source, where, key, problem)) return false;
      anchors_[std::string(anchor_name)] = Anchor{value, 1, true, std::move(key), std::move(problem)};
    }
    return add_value(std::move(value), where, 1);
  }

  bool alias(fy_event* event) {
    Position where = start_of(event, true);
    std::string name(token_text(event->alias.anchor));
    auto it = anchors_.find(name);
    if (it == anchors_.end()) return fail(where, "unknown anchor '" + name + "' referenced");
    const Anchor& anchor = it->second;
    expanded_ += anchor.nodes;
    if (expanded_ > options_.max_alias_expansion) {
      return fail(where, "aliases expand to more than " + std::to_string(options_.max_alias_expansion) +
                             " nodes in this document (excessive aliasing)");
    }
    if (in_key_slot()) {
      if (!anchor.is_scalar) return fail(where, "a mapping or sequence cannot be a map key (kubectl: invalid map key)");
      return set_key(stack_.back(), anchor.key, anchor.key_problem, where, false);
    }
    record_position(where);
    return add_value(anchor.value, where, anchor.nodes);
  }

  std::string_view file_;
  const YamlEventParser* parser_ = nullptr;  // whose text marks count offsets in
  const YamlOptions& options_;
  std::vector<YamlDocument> documents_;
  std::vector<Frame> stack_;
  std::unordered_map<std::string, Anchor> anchors_;
  size_t expanded_ = 0;
  std::string pointer_;
  Failure failure_;
};

}  // namespace

Result<std::vector<YamlDocument>, YamlError> parse_yaml_stream(std::string_view text, std::string_view file_name,
                                                               const YamlOptions& options) {
  return Reader(file_name, options).read(text);
}

Result<Value, YamlError> parse_yaml(std::string_view text, std::string_view file_name, const YamlOptions& options) {
  SINDRI_TRY(documents, parse_yaml_stream(text, file_name, options));
  if (documents.size() > 1) {
    return YamlError{std::string(file_name), 1, documents[1].line, 1,
                     "expected one YAML document, found " + std::to_string(documents.size())};
  }
  return documents.empty() ? Value() : std::move(documents[0].value);
}

}  // namespace sindri
