#pragma once
// A bounded pool of connections shared by threads: idle connections are
// reused, new ones are opened on demand up to a limit, and a caller waits up
// to a timeout for one to come free. A connection that reports itself
// unusable when handed back is closed instead of kept.
//
// Conn needs `bool usable() const`.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "store/database.hpp"

namespace sindri::store {

template <class Conn>
class Pool {
 public:
  using Opener = std::function<DbResult<std::unique_ptr<Conn>>()>;

  Pool(size_t limit, std::chrono::milliseconds wait, Opener open)
      : limit_(limit), wait_(wait), open_(std::move(open)) {}
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // A borrowed connection, handed back when the lease ends.
  class Lease {
   public:
    Lease(Pool* pool, std::unique_ptr<Conn> conn) : pool_(pool), conn_(std::move(conn)) {}
    Lease(Lease&& other) noexcept : pool_(std::exchange(other.pool_, nullptr)), conn_(std::move(other.conn_)) {}
    Lease& operator=(Lease&&) = delete;
    ~Lease() {
      if (pool_) pool_->give_back(std::move(conn_));
    }
    Conn& operator*() const { return *conn_; }
    Conn* operator->() const { return conn_.get(); }

   private:
    Pool* pool_;
    std::unique_ptr<Conn> conn_;
  };

  DbResult<Lease> acquire() {
    const auto deadline = std::chrono::steady_clock::now() + wait_;
    // Connections that went bad while idle (a server restart); declared
    // before the lock so that they are closed after it is released.
    std::vector<std::unique_ptr<Conn>> stale;
    std::unique_lock lock(mutex_);
    for (;;) {
      while (!idle_.empty()) {
        std::unique_ptr<Conn> conn = std::move(idle_.back());
        idle_.pop_back();
        if (conn->usable()) {
          ++in_use_;
          return Lease(this, std::move(conn));
        }
        --open_count_;
        stale.push_back(std::move(conn));
      }
      if (open_count_ < limit_) {
        // Reserve the slot, then connect without holding the lock.
        ++open_count_;
        ++in_use_;
        lock.unlock();
        DbResult<std::unique_ptr<Conn>> opened = open_();
        if (opened.ok()) return Lease(this, std::move(opened).value());
        lock.lock();
        --open_count_;
        --in_use_;
        lock.unlock();
        available_.notify_one();
        return std::move(opened).error();
      }
      if (available_.wait_until(lock, deadline) == std::cv_status::timeout && idle_.empty() && open_count_ >= limit_) {
        return DbError{DbError::Kind::Unavailable, "no database connection came free within " +
                                                       std::to_string(wait_.count()) + " ms (all " +
                                                       std::to_string(limit_) + " in use)"};
      }
    }
  }

  Database::PoolStats stats() const {
    std::lock_guard lock(mutex_);
    Database::PoolStats stats;
    stats.in_use = in_use_;
    stats.size = open_count_;
    stats.limit = limit_;
    return stats;
  }

 private:
  void give_back(std::unique_ptr<Conn> conn) {
    std::unique_ptr<Conn> closing;  // closed after the lock is released
    {
      std::lock_guard lock(mutex_);
      --in_use_;
      if (conn->usable()) {
        idle_.push_back(std::move(conn));
      } else {
        --open_count_;
        closing = std::move(conn);
      }
    }
    available_.notify_one();
  }

  const size_t limit_;
  const std::chrono::milliseconds wait_;
  const Opener open_;
  mutable std::mutex mutex_;
  std::condition_variable available_;
  std::vector<std::unique_ptr<Conn>> idle_;
  size_t open_count_ = 0;  // idle, lent out, or being opened
  size_t in_use_ = 0;
};

}  // namespace sindri::store
