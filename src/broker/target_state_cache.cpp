#include "broker/target_state_cache.hpp"

namespace sindri::broker {

std::shared_ptr<const http::SharedBody> TargetStateCache::find(const std::string& key, int64_t generation) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.generation != generation) return nullptr;
  return it->second.body;
}

void TargetStateCache::store(const std::string& key, int64_t generation, std::shared_ptr<const http::SharedBody> body) {
  std::lock_guard lock(mutex_);
  Entry& entry = entries_[key];
  if (generation >= entry.generation) entry = Entry{generation, std::move(body)};
}

}  // namespace sindri::broker
