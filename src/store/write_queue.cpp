#include "store/write_queue.hpp"

#include <algorithm>
#include <string>

namespace sindri::store {

DbStatus WriteQueue::submit(const Work& work, const BatchRunner& run_batch) {
  Entry mine;
  mine.work = &work;
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  std::unique_lock lock(mutex_);
  queued_.push_back(&mine);
  while (!mine.done) {
    if (!leading_) {
      lead(lock, run_batch);
      continue;
    }
    if (mine.taken) {
      batch_done_.wait(lock);
      continue;
    }
    if (batch_done_.wait_until(lock, deadline) == std::cv_status::timeout && !mine.taken && leading_) {
      queued_.erase(std::find(queued_.begin(), queued_.end(), &mine));
      return DbError{DbError::Kind::Busy,
                     "the SQLite writer stayed busy for more than " + std::to_string(timeout_.count()) + " ms"};
    }
  }
  lock.unlock();
  if (mine.exception) std::rethrow_exception(mine.exception);
  return std::move(mine.status);
}

size_t WriteQueue::queued() const {
  std::lock_guard lock(mutex_);
  return queued_.size();
}

// Called with the lock held and this caller's entry queued; returns with the
// lock held and every entry of the batch done.
void WriteQueue::lead(std::unique_lock<std::mutex>& lock, const BatchRunner& run_batch) {
  leading_ = true;
  const auto end = queued_.begin() + static_cast<std::ptrdiff_t>(std::min(queued_.size(), kMaxBatch));
  std::vector<Entry*> batch(queued_.begin(), end);
  queued_.erase(queued_.begin(), end);
  for (Entry* entry : batch) entry->taken = true;
  lock.unlock();
  try {
    run_batch(batch);
  } catch (...) {
    // The runner catches what works throw; this is the runner failing itself.
    for (Entry* entry : batch) {
      if (!entry->exception) entry->exception = std::current_exception();
    }
  }
  lock.lock();
  for (Entry* entry : batch) entry->done = true;
  leading_ = false;
  batch_done_.notify_all();
}

}  // namespace sindri::store
