#pragma once
// SQLite WAL checkpoints, mostly off the write path. By default the commit
// that takes the WAL past 1,000 pages runs the checkpoint itself, so the
// group commit whose leader draws it, and every writer queued behind, waits
// while megabytes are copied into the database file and synced. Here such a
// commit wakes a thread of our own, which checkpoints on a connection of its
// own in PASSIVE mode (never waiting for readers or writers); the writer
// copies only the few frames committed meanwhile (see on_commit).

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "store/database.hpp"

struct sqlite3;

namespace sindri::store {

class WalCheckpointer {
 public:
  // Opens its own connection to `path` (a file already in WAL mode) and
  // takes over `writer`'s WAL hook, which turns SQLite's automatic
  // checkpoints off for that connection.
  static DbResult<std::unique_ptr<WalCheckpointer>> start(const std::string& path, sqlite3* writer,
                                                          std::chrono::milliseconds busy_timeout);
  // Stops the thread and gives the writer its automatic checkpoints back.
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Checkpoints the thread has run so far (not the writer's catch-ups),
  // whether or not they reached the end of the WAL.
  uint64_t checkpoints() const { return checkpoints_.load(std::memory_order_relaxed); }

  // The WAL frames not yet copied, past which a commit wakes the thread
  // (SQLite's own default for automatic checkpoints).
  static constexpr int kPages = 1000;

 private:
  WalCheckpointer(sqlite3* own, sqlite3* writer);
  static int on_commit(void* self, sqlite3* db, const char* schema, int pages);
  void checkpoint(sqlite3* db, const char* schema);
  void run();

  sqlite3* own_;
  sqlite3* writer_;
  std::mutex mutex_;
  std::condition_variable wake_;  // running_ or stopping_ set
  std::condition_variable idle_;  // running_ cleared
  bool stopping_ = false;
  bool running_ = false;   // the thread has been asked to checkpoint, or is at it
  bool finished_ = false;  // the thread is done; the writer copies what came meanwhile
  std::atomic<int> copied_{0};  // WAL frames the last checkpoint left copied
  std::atomic<uint64_t> checkpoints_{0};
  std::thread thread_;
};

}  // namespace sindri::store
