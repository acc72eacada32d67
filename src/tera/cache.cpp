#include <list>
#include <mutex>
#include <unordered_map>

#include "tera/template.hpp"
#include "value/digest.hpp"

namespace sindri::tera {

// Least recently used first out; the key covers the name too, since error
// messages carry it.
struct TemplateCache::Impl {
  size_t capacity;
  mutable std::mutex mutex;
  std::list<std::string> order;  // most recent at the front
  struct Entry {
    TemplatePtr tpl;
    std::list<std::string>::iterator position;
  };
  std::unordered_map<std::string, Entry> entries;
};

TemplateCache::TemplateCache(size_t capacity) : impl_(std::make_unique<Impl>()) {
  impl_->capacity = capacity == 0 ? 1 : capacity;
}
TemplateCache::~TemplateCache() = default;

Result<TemplatePtr, TemplateError> TemplateCache::get_or_compile(std::string_view name, std::string_view source) {
  std::string key = sha256_hex(source);
  key += '\n';
  key += name;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    auto it = impl_->entries.find(key);
    if (it != impl_->entries.end()) {
      impl_->order.splice(impl_->order.begin(), impl_->order, it->second.position);
      return it->second.tpl;
    }
  }
  Result<TemplatePtr, TemplateError> compiled = compile(name, source);
  if (!compiled) return compiled;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  auto it = impl_->entries.find(key);
  if (it != impl_->entries.end()) return it->second.tpl;
  impl_->order.push_front(key);
  impl_->entries.emplace(key, Impl::Entry{*compiled, impl_->order.begin()});
  while (impl_->entries.size() > impl_->capacity) {
    impl_->entries.erase(impl_->order.back());
    impl_->order.pop_back();
  }
  return compiled;
}

size_t TemplateCache::size() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->entries.size();
}

}  // namespace sindri::tera
