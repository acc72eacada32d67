#include "broker/target_state_cache.hpp"

namespace sindri::broker {

std::shared_ptr<const http::SharedBody> TargetStateCache::find(const std::string& key, int64_t generation) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.generation != generation) return nullptr;
  return it->second.body;
}

void TargetStateCache::store(const std::string& key, int64_t generation, std::shared_ptr<const http::SharedBody> body) {
  std::vector<std::shared_ptr<const http::SharedBody>> dropped;  // released after the lock: munmap and close
  std::lock_guard lock(mutex_);
  if (generation < newest_generation_) return;
  if (generation > newest_generation_) {
    newest_generation_ = generation;
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->second.generation < generation) {
        dropped.push_back(std::move(it->second.body));
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
  }
  entries_[key] = Entry{generation, std::move(body)};
}

size_t TargetStateCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace sindri::broker
