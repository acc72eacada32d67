#pragma once
// Agents poll their target state far more often than it changes. The broker
// keeps each answer (the JSON body) with the database's target-state
// generation it was built at; a poll costs one read of that counter unless
// something changed. The counter lives in the database, so brokers sharing
// one PostgreSQL database see each other's changes.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "http/shared_body.hpp"

namespace sindri::broker {

class TargetStateCache {
 public:
  // The body cached for this agent and mode at exactly `generation`.
  std::shared_ptr<const http::SharedBody> find(const std::string& key, int64_t generation) const;
  // Only answers at the newest generation seen can be found again: the
  // first store at a newer one drops every older answer, with the memory
  // and descriptor it holds, and a store at an older one keeps nothing.
  void store(const std::string& key, int64_t generation, std::shared_ptr<const http::SharedBody> body);
  size_t size() const;

 private:
  struct Entry {
    int64_t generation = -1;
    std::shared_ptr<const http::SharedBody> body;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  int64_t newest_generation_ = -1;
};

}  // namespace sindri::broker
