#include "store/wal_checkpointer.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <climits>
#include <string_view>

namespace sindri::store {

DbResult<std::unique_ptr<WalCheckpointer>> WalCheckpointer::start(const std::string& path, sqlite3* writer,
                                                                   std::chrono::milliseconds busy_timeout) {
  sqlite3* own = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &own, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = own ? sqlite3_errmsg(own) : sqlite3_errstr(rc);
    sqlite3_close(own);
    return DbError{DbError::Kind::Unavailable, "cannot open SQLite database '" + path + "' for checkpoints: " + message};
  }
  // Waits as the writer does should another process hold the file; the
  // PASSIVE checkpoints themselves never wait.
  sqlite3_busy_timeout(own, static_cast<int>(std::min<std::chrono::milliseconds::rep>(busy_timeout.count(), INT_MAX)));
  // A connection opens the file lazily, and until it has read the database
  // it does not know the WAL is there: a checkpoint would do nothing.
  bool wal = false;
  char* error = nullptr;
  const int read = sqlite3_exec(
      own, "PRAGMA journal_mode",
      [](void* found, int, char** cells, char**) {
        *static_cast<bool*>(found) = cells[0] != nullptr && std::string_view(cells[0]) == "wal";
        return 0;
      },
      &wal, &error);
  if (read != SQLITE_OK || !wal) {
    std::string message = error ? error : read != SQLITE_OK ? sqlite3_errstr(read) : "the database is not in WAL mode";
    sqlite3_free(error);
    sqlite3_close(own);
    return DbError{DbError::Kind::Unavailable, "cannot check SQLite database '" + path + "' for checkpoints: " + message};
  }
  return std::unique_ptr<WalCheckpointer>(new WalCheckpointer(own, writer));
}

WalCheckpointer::WalCheckpointer(sqlite3* own, sqlite3* writer) : own_(own), writer_(writer) {
  thread_ = std::thread([this] { run(); });
  sqlite3_wal_hook(writer_, &WalCheckpointer::on_commit, this);
}

WalCheckpointer::~WalCheckpointer() {
  sqlite3_wal_autocheckpoint(writer_, kPages);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  sqlite3_close(own_);
}

// On the writer's thread, after each commit. What counts is the frames not
// yet copied into the database file:
//  - a thousand or more: the thread copies them, while writes go on;
//  - once the thread is done, the writer copies the frames committed
//    meanwhile, cheaply: the WAL starts over at the next write only once
//    every frame is copied (SQLite's own checkpoints get there by running
//    on the writer);
//  - four thousand or more, the writer outpacing the thread: the writer waits
//    for the thread and copies them itself, so the WAL cannot run away.
int WalCheckpointer::on_commit(void* self, sqlite3* db, const char* schema, int pages) {
  auto& checkpointer = *static_cast<WalCheckpointer*>(self);
  int copied = checkpointer.copied_.load(std::memory_order_relaxed);
  if (pages < copied) {  // the WAL started over
    copied = 0;
    checkpointer.copied_.store(0, std::memory_order_relaxed);
  }
  const int pending = pages - copied;
  if (pending >= 4 * kPages) {
    std::unique_lock lock(checkpointer.mutex_);
    checkpointer.idle_.wait(lock, [&] { return !checkpointer.running_; });
    checkpointer.finished_ = false;
    lock.unlock();
    checkpointer.checkpoint(db, schema);
    return SQLITE_OK;
  }
  std::unique_lock lock(checkpointer.mutex_);
  if (checkpointer.finished_) {
    checkpointer.finished_ = false;
    lock.unlock();
    checkpointer.checkpoint(db, schema);
  } else if (pending >= kPages && !checkpointer.running_) {
    checkpointer.running_ = true;
    checkpointer.wake_.notify_one();
  }
  return SQLITE_OK;
}

// A failure (SQLITE_BUSY from another process's checkpoint, say) leaves the
// frames for the next commit; the WAL keeps every commit meanwhile.
void WalCheckpointer::checkpoint(sqlite3* db, const char* schema) {
  int frames = 0;
  int copied = 0;
  if (sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied) == SQLITE_OK) {
    copied_.store(copied, std::memory_order_relaxed);
  }
}

void WalCheckpointer::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || running_; });
    if (stopping_) return;
    lock.unlock();
    checkpoint(own_, nullptr);
    checkpoints_.fetch_add(1, std::memory_order_relaxed);
    lock.lock();
    running_ = false;
    finished_ = true;
    idle_.notify_all();
  }
}

}  // namespace sindri::store
