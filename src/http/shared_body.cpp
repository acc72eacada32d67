#include "http/shared_body.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace sindri::http {
namespace {

std::atomic<size_t> files_open{0};

// Memfds may take a quarter of the descriptors the process may open; the
// rest stay for connections and the database.
size_t file_budget() {
  static const size_t budget = [] {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return size_t{256};
    return static_cast<size_t>(limit.rlim_cur / 4);
  }();
  return budget;
}

bool take_file_slot() {
  size_t open = files_open.load(std::memory_order_relaxed);
  do {
    if (open >= file_budget()) return false;
  } while (!files_open.compare_exchange_weak(open, open + 1, std::memory_order_relaxed));
  return true;
}

bool write_all(int file, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t written = ::write(file, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(written));
  }
  return true;
}

// A sealed memfd holding `bytes`, mapped read-only; false, with nothing left
// open, when any step fails.
bool place_in_file(std::string_view bytes, int& file, void*& mapping) {
  const int created = memfd_create("sindri-answer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (created < 0) return false;
  void* mapped = MAP_FAILED;
  if (write_all(created, bytes) &&
      fcntl(created, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0) {
    mapped = mmap(nullptr, bytes.size(), PROT_READ, MAP_SHARED, created, 0);
  }
  if (mapped == MAP_FAILED) {
    ::close(created);
    return false;
  }
  file = created;
  mapping = mapped;
  return true;
}

}  // namespace

std::shared_ptr<const SharedBody> SharedBody::make(std::string bytes) {
  std::shared_ptr<SharedBody> body(new SharedBody());
  if (bytes.size() >= kFileThreshold && take_file_slot()) {
    if (place_in_file(bytes, body->file_, body->mapping_)) {
      body->view_ = std::string_view(static_cast<const char*>(body->mapping_), bytes.size());
      return body;
    }
    files_open.fetch_sub(1, std::memory_order_relaxed);
  }
  body->memory_ = std::move(bytes);
  body->view_ = body->memory_;
  return body;
}

SharedBody::~SharedBody() {
  if (file_ < 0) return;
  munmap(mapping_, view_.size());
  ::close(file_);
  files_open.fetch_sub(1, std::memory_order_relaxed);
}

size_t SharedBody::files_in_use() { return files_open.load(std::memory_order_relaxed); }

}  // namespace sindri::http
