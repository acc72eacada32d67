#include "value/value.hpp"

#include <algorithm>
#include <cassert>
#include <new>

namespace sindri {

struct Value::Shared {
  std::atomic<uint32_t> refs{1};
};

struct Value::HeapString : Shared {
  size_t size = 0;
  char* data() { return reinterpret_cast<char*>(this + 1); }

  static HeapString* make(std::string_view s) {
    void* memory = ::operator new(sizeof(HeapString) + s.size());
    auto* hs = new (memory) HeapString();
    hs->size = s.size();
    std::memcpy(hs->data(), s.data(), s.size());
    return hs;
  }
  static void destroy(HeapString* hs) {
    hs->~HeapString();
    ::operator delete(hs);
  }
};

struct Value::ArrayBlock : Shared {
  Array items;
};

struct Value::ObjectBlock : Shared {
  Object members;
};

namespace {

const Array kEmptyArray;
const Object kEmptyObject;

bool key_less(const Member& m, std::string_view key) { return m.key.get_string() < key; }

Object::const_iterator lower_bound(const Object& members, std::string_view key) {
  return std::lower_bound(members.begin(), members.end(), key, key_less);
}

}  // namespace

Value::Value(bool b) noexcept {
  std::memset(raw_, 0, sizeof(raw_));
  raw_[0] = b ? 1 : 0;
  set_kind(Kind::Bool);
}

Value::Value(long i) noexcept {
  store<int64_t>(i);
  set_kind(Kind::Int);
}

Value::Value(double d) noexcept {
  store<double>(d);
  set_kind(Kind::Float);
}

void Value::write_inline_string(unsigned char* raw, std::string_view s) noexcept {
  std::memset(raw, 0, kInline);  // equal inline strings are equal words (KeyProbe)
  if (!s.empty()) std::memcpy(raw, s.data(), s.size());  // an empty view's data() may be null
  raw[14] = static_cast<unsigned char>(s.size());
  raw[15] = static_cast<unsigned char>(Kind::String);
}

Value::Value(std::string_view s) {
  if (s.size() <= kInline) {
    write_inline_string(raw_, s);
    return;
  }
  store<HeapString*>(HeapString::make(s));
  raw_[14] = 0xff;
  set_kind(Kind::String);
}

Value::Value(Array items) {
  auto* block = new ArrayBlock();
  block->items = std::move(items);
  store<Shared*>(block);
  set_kind(Kind::Array);
}

Value::Value(Object members) {
  const auto key_less = [](const Member& a, const Member& b) { return a.key.get_string() < b.key.get_string(); };
  // Most objects are small, and many arrive sorted: neither needs
  // stable_sort's temporary buffer.
  constexpr size_t kInsertionSortLimit = 16;
  if (members.size() <= kInsertionSortLimit) {
    for (size_t i = 1; i < members.size(); ++i) {
      if (!key_less(members[i], members[i - 1])) continue;
      Member moving = std::move(members[i]);
      size_t j = i;
      for (; j > 0 && key_less(moving, members[j - 1]); --j) members[j] = std::move(members[j - 1]);
      members[j] = std::move(moving);
    }
  } else if (!std::is_sorted(members.begin(), members.end(), key_less)) {
    std::stable_sort(members.begin(), members.end(), key_less);
  }
  // Of equal keys keep the last, as a JSON object read left to right would.
  size_t kept = 0;
  for (size_t i = 0; i < members.size(); ++i) {
    if (kept > 0 && members[kept - 1].key.get_string() == members[i].key.get_string()) {
      members[kept - 1].value = std::move(members[i].value);
    } else {
      if (kept != i) members[kept] = std::move(members[i]);
      ++kept;
    }
  }
  members.erase(members.begin() + static_cast<std::ptrdiff_t>(kept), members.end());
  auto* block = new ObjectBlock();
  block->members = std::move(members);
  store<Shared*>(block);
  set_kind(Kind::Object);
}

Value::Shared* Value::shared() const noexcept { return load<Shared*>(); }

void Value::retain_shared() const noexcept { shared()->refs.fetch_add(1, std::memory_order_relaxed); }

void Value::release_shared() noexcept {
  Shared* block = shared();
  if (block->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  switch (kind()) {
    case Kind::String:
      HeapString::destroy(static_cast<HeapString*>(block));
      break;
    case Kind::Array:
      delete static_cast<ArrayBlock*>(block);
      break;
    case Kind::Object:
      delete static_cast<ObjectBlock*>(block);
      break;
    default:
      break;
  }
}

std::string_view Value::heap_string() const noexcept {
  auto* hs = static_cast<HeapString*>(shared());
  return {hs->data(), hs->size};
}

const Array& Value::get_array() const noexcept {
  if (!is_array()) return kEmptyArray;
  return static_cast<ArrayBlock*>(shared())->items;
}

const Object& Value::get_object() const noexcept {
  if (!is_object()) return kEmptyObject;
  return static_cast<ObjectBlock*>(shared())->members;
}

const Value* Value::find(std::string_view key) const noexcept {
  if (!is_object()) return nullptr;
  const Object& members = get_object();
  // Most objects are small: comparing lengths first beats a binary search.
  if (members.size() <= 16) {
    for (const Member& m : members) {
      std::string_view k = m.key.get_string();
      if (k.size() == key.size() && std::memcmp(k.data(), key.data(), key.size()) == 0) return &m.value;
    }
    return nullptr;
  }
  auto it = lower_bound(members, key);
  if (it == members.end() || it->key.get_string() != key) return nullptr;
  return &it->value;
}

const Value* Value::find(const KeyProbe& key) const noexcept {
  if (key.high_ == 0) return find(key.text_);
  if (!is_object()) return nullptr;
  const Object& members = get_object();
  if (members.size() > 16) return find(key.text_);
  for (const Member& m : members) {
    if (m.key.load<uint64_t>() == key.low_ && m.key.load_high() == key.high_) return &m.value;
  }
  return nullptr;
}

KeyProbe::KeyProbe(std::string_view key) noexcept : text_(key) {
  if (key.size() > Value::kInline) return;
  unsigned char raw[16];
  Value::write_inline_string(raw, key);
  std::memcpy(&low_, raw, sizeof(low_));
  std::memcpy(&high_, raw + 8, sizeof(high_));
}

const Value* Value::at(size_t index) const noexcept {
  if (!is_array()) return nullptr;
  const Array& items = get_array();
  return index < items.size() ? &items[index] : nullptr;
}

size_t Value::size() const noexcept {
  if (is_array()) return get_array().size();
  if (is_object()) return get_object().size();
  return 0;
}

Array& Value::mutable_array() {
  assert(is_array());
  auto* block = static_cast<ArrayBlock*>(shared());
  if (block->refs.load(std::memory_order_acquire) != 1) {
    auto* copy = new ArrayBlock();
    copy->items = block->items;
    release();
    store<Shared*>(copy);
    set_kind(Kind::Array);
    block = copy;
  }
  return block->items;
}

Object& Value::mutable_object() {
  assert(is_object());
  auto* block = static_cast<ObjectBlock*>(shared());
  if (block->refs.load(std::memory_order_acquire) != 1) {
    auto* copy = new ObjectBlock();
    copy->members = block->members;
    release();
    store<Shared*>(copy);
    set_kind(Kind::Object);
    block = copy;
  }
  return block->members;
}

void Value::set(std::string_view key, Value value) {
  Object& members = mutable_object();
  auto it = std::lower_bound(members.begin(), members.end(), key, key_less);
  if (it != members.end() && it->key.get_string() == key) {
    it->value = std::move(value);
  } else {
    members.insert(it, Member{Value(key), std::move(value)});
  }
}

bool Value::erase(std::string_view key) {
  if (!find(key)) return false;
  Object& members = mutable_object();
  auto it = std::lower_bound(members.begin(), members.end(), key, key_less);
  members.erase(it);
  return true;
}

void Value::push_back(Value value) { mutable_array().push_back(std::move(value)); }

bool Value::operator==(const Value& other) const noexcept {
  if (kind() != other.kind()) return false;
  switch (kind()) {
    case Kind::Null:
      return true;
    case Kind::Bool:
      return get_bool() == other.get_bool();
    case Kind::Int:
      return get_int() == other.get_int();
    case Kind::Float:
      return get_float() == other.get_float();
    case Kind::String:
      return get_string() == other.get_string();
    case Kind::Array:
      return shared() == other.shared() || get_array() == other.get_array();
    case Kind::Object: {
      if (shared() == other.shared()) return true;
      const Object& a = get_object();
      const Object& b = other.get_object();
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        if (a[i].key.get_string() != b[i].key.get_string() || !(a[i].value == b[i].value)) return false;
      }
      return true;
    }
  }
  return false;
}

const char* Value::kind_name(Kind kind) noexcept {
  switch (kind) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return "bool";
    case Kind::Int:
      return "integer";
    case Kind::Float:
      return "float";
    case Kind::String:
      return "string";
    case Kind::Array:
      return "array";
    case Kind::Object:
      return "object";
  }
  return "?";
}

}  // namespace sindri
