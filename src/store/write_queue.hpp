#pragma once
// Group commit for a database with one writer (SQLite). Callers of write()
// queue their work; the first to find the writer free becomes the leader and
// runs every work queued by then as one batch (one transaction), and each
// caller gets its own work's outcome once the batch is committed. Under load
// concurrent writers share a BEGIN, a COMMIT and the WAL pages they touch
// instead of paying for each; alone, a write is a batch of one.

#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <vector>

#include "store/database.hpp"

namespace sindri::store {

class WriteQueue {
 public:
  using Work = std::function<DbStatus(Connection&)>;

  // One caller's work. The batch runner sets status (and exception, if the
  // work threw: it is rethrown on the caller's thread).
  struct Entry {
    const Work* work = nullptr;
    DbStatus status = Ok{};
    std::exception_ptr exception;
    bool done = false;
  };
  using BatchRunner = std::function<void(std::span<Entry* const>)>;

  // A caller still queued (no batch has taken its work) after `timeout` gets
  // a Busy error; a work taken into a batch is always waited for.
  explicit WriteQueue(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  DbStatus submit(const Work& work, const BatchRunner& run_batch);

 private:
  void lead(std::unique_lock<std::mutex>& lock, const BatchRunner& run_batch);

  const std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  std::condition_variable batch_done_;
  std::vector<Entry*> queued_;
  bool leading_ = false;  // a batch is being written
};

}  // namespace sindri::store
