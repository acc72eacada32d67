#pragma once
// Shared immutable things (compiled schemas, compiled template versions) by
// a string key, thread-safe. Entries never go stale, so when the cache is
// full it simply starts over: a few recompilations, no bookkeeping.

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace sindri::render {

template <class T>
class BoundedCache {
 public:
  using Ptr = std::shared_ptr<const T>;

  explicit BoundedCache(size_t capacity = 1024) : capacity_(capacity) {}

  Ptr find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : it->second;
  }

  void add(const std::string& key, Ptr value) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (entries_.size() >= capacity_) entries_.clear();
    entries_.emplace(key, std::move(value));
  }

 private:
  size_t capacity_;
  std::mutex mutex_;
  std::unordered_map<std::string, Ptr> entries_;
};

}  // namespace sindri::render
