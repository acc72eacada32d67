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
  // work threw: it is rethrown on the caller's thread); a path that forgets
  // to leaves an error, never a false success.
  struct Entry {
    const Work* work = nullptr;
    DbStatus status = DbError{DbError::Kind::Unavailable, "the write was not run"};
    std::exception_ptr exception;
    bool taken = false;  // into a batch: waited for whatever the timeout
    bool done = false;
  };
  using BatchRunner = std::function<void(std::span<Entry* const>)>;

  // A caller still queued (no batch has taken its work) after `timeout` gets
  // a Busy error; a work taken into a batch is always waited for. A batch
  // takes at most kMaxBatch works, oldest first, so that no leader's caller
  // waits on an unbounded queue.
  static constexpr size_t kMaxBatch = 64;
  explicit WriteQueue(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  DbStatus submit(const Work& work, const BatchRunner& run_batch);
  // Works waiting for a batch to take them.
  size_t queued() const;

 private:
  void lead(std::unique_lock<std::mutex>& lock, const BatchRunner& run_batch);

  const std::chrono::milliseconds timeout_;
  mutable std::mutex mutex_;
  std::condition_variable batch_done_;
  std::vector<Entry*> queued_;
  bool leading_ = false;  // a batch is being written
};

}  // namespace sindri::store
