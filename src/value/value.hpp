#pragma once
// The one data model of Sindri: parameters, template context, parsed YAML,
// patches and API bodies are all Values.
//
// A Value is 16 bytes. Scalars and strings of up to 14 bytes live inline;
// longer strings, arrays and objects are immutable shared blocks with an
// atomic reference count, so copying a Value never copies its contents and a
// Value can be read from many threads at once. Mutating calls copy a shared
// block first (copy on write). Objects keep their members sorted by key
// (byte order), which is the order Tera iterates them in and the order
// kubectl prints them in; lookups are binary searches that never allocate.

#include <atomic>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace sindri {

class Value;
class KeyProbe;
struct Member;
using Array = std::vector<Value>;
using Object = std::vector<Member>;  // sorted by key, keys unique

class Value {
 public:
  enum class Kind : uint8_t { Null, Bool, Int, Float, String, Array, Object };

  Value() noexcept { set_kind(Kind::Null); }
  Value(std::nullptr_t) noexcept : Value() {}
  Value(bool b) noexcept;
  Value(int i) noexcept : Value(static_cast<int64_t>(i)) {}
  Value(long i) noexcept;
  Value(long long i) noexcept : Value(static_cast<long>(i)) {}
  Value(unsigned i) noexcept : Value(static_cast<int64_t>(i)) {}
  Value(double d) noexcept;
  Value(std::string_view s);
  Value(const char* s) : Value(std::string_view(s)) {}
  // Without this a pointer would silently become a bool.
  template <class T>
  Value(const T*) = delete;
  Value(const std::string& s) : Value(std::string_view(s)) {}
  Value(Array items);
  Value(Object members);  // sorts by key; of duplicate keys the last wins

  // Inline: values are copied and dropped constantly, and most hold no block.
  Value(const Value& other) noexcept {
    std::memcpy(raw_, other.raw_, sizeof(raw_));
    retain();
  }
  Value(Value&& other) noexcept {
    std::memcpy(raw_, other.raw_, sizeof(raw_));
    other.set_kind(Kind::Null);
  }
  Value& operator=(const Value& other) noexcept {
    if (this != &other) {
      other.retain();
      release();
      std::memcpy(raw_, other.raw_, sizeof(raw_));
    }
    return *this;
  }
  Value& operator=(Value&& other) noexcept {
    if (this != &other) {
      release();
      std::memcpy(raw_, other.raw_, sizeof(raw_));
      other.set_kind(Kind::Null);
    }
    return *this;
  }
  ~Value() { release(); }

  Kind kind() const noexcept { return static_cast<Kind>(raw_[15]); }
  bool is_null() const noexcept { return kind() == Kind::Null; }
  bool is_bool() const noexcept { return kind() == Kind::Bool; }
  bool is_int() const noexcept { return kind() == Kind::Int; }
  bool is_float() const noexcept { return kind() == Kind::Float; }
  bool is_number() const noexcept { return is_int() || is_float(); }
  bool is_string() const noexcept { return kind() == Kind::String; }
  bool is_array() const noexcept { return kind() == Kind::Array; }
  bool is_object() const noexcept { return kind() == Kind::Object; }

  // Accessors; each requires the matching kind.
  bool get_bool() const noexcept { return raw_[0] != 0; }
  int64_t get_int() const noexcept { return load<int64_t>(); }
  double get_float() const noexcept { return load<double>(); }
  double as_double() const noexcept { return is_int() ? static_cast<double>(get_int()) : get_float(); }
  std::string_view get_string() const noexcept {
    assert(is_string());
    if (is_inline_string()) return {reinterpret_cast<const char*>(raw_), raw_[14]};
    return heap_string();
  }
  const Array& get_array() const noexcept;
  const Object& get_object() const noexcept;

  // Object member by key, or nullptr (also for non-objects).
  const Value* find(std::string_view key) const noexcept;
  const Value* find(const KeyProbe& key) const noexcept;
  // Array element by index, or nullptr (also for non-arrays).
  const Value* at(size_t index) const noexcept;
  // Elements of an array, members of an object, 0 for anything else.
  size_t size() const noexcept;

  // Copy-on-write mutation; each requires the matching kind.
  Array& mutable_array();
  Object& mutable_object();
  void set(std::string_view key, Value value);  // object: insert or replace
  bool erase(std::string_view key);             // object: remove, true if present
  void push_back(Value value);                  // array

  // Structural equality in the JSON sense: an int and a float are different
  // values (as serde_json compares them); objects compare member by member.
  bool operator==(const Value& other) const noexcept;

  static const char* kind_name(Kind kind) noexcept;
  const char* kind_name() const noexcept { return kind_name(kind()); }

 private:
  struct Shared;
  struct HeapString;
  struct ArrayBlock;
  struct ObjectBlock;
  static constexpr size_t kInline = 14;

  void set_kind(Kind k) noexcept { raw_[15] = static_cast<unsigned char>(k); }
  bool is_inline_string() const noexcept { return raw_[14] != 0xff; }
  template <class T>
  T load() const noexcept {
    T out;
    std::memcpy(&out, raw_, sizeof(T));
    return out;
  }
  template <class T>
  void store(T in) noexcept {
    std::memcpy(raw_, &in, sizeof(T));
  }
  friend class KeyProbe;
  // The 16 bytes of an inline string (at most kInline bytes of text).
  static void write_inline_string(unsigned char* raw, std::string_view s) noexcept;
  uint64_t load_high() const noexcept {
    uint64_t out;
    std::memcpy(&out, raw_ + 8, sizeof(out));
    return out;
  }
  Shared* shared() const noexcept;  // the block of a heap string, array or object
  bool has_shared() const noexcept {
    const Kind k = kind();
    return k == Kind::Array || k == Kind::Object || (k == Kind::String && !is_inline_string());
  }
  void retain() const noexcept {
    if (has_shared()) retain_shared();
  }
  void release() noexcept {
    if (has_shared()) release_shared();
  }
  void retain_shared() const noexcept;
  void release_shared() noexcept;
  std::string_view heap_string() const noexcept;

  // bytes 0..13: payload or inline string; 14: inline string length (0xff
  // for a heap string); 15: kind.
  alignas(8) unsigned char raw_[16];
};

struct Member {
  Value key;  // always a string
  Value value;
};

// An object key made ready for many lookups (a template's variable names):
// a key of up to 14 bytes is kept as the two words an inline string Value
// holds, so finding it compares words instead of bytes.
class KeyProbe {
 public:
  KeyProbe() = default;
  explicit KeyProbe(std::string_view key) noexcept;
  std::string_view text() const noexcept { return text_; }

 private:
  friend class Value;
  std::string_view text_;
  uint64_t low_ = 0;
  uint64_t high_ = 0;  // stays 0 for a longer key: no string's words are 0
};

static_assert(sizeof(Value) == 16);

}  // namespace sindri
