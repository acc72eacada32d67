#pragma once
// A bump allocator for one template's syntax tree: allocation is a pointer
// increment, and everything is freed at once with the template.

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace sindri::tera {

class Arena {
 public:
  explicit Arena(size_t first_chunk = 4096) : next_chunk_(first_chunk) {}
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* allocate(size_t bytes, size_t align) {
    uintptr_t p = (reinterpret_cast<uintptr_t>(cursor_) + align - 1) & ~(uintptr_t{align} - 1);
    if (p + bytes > reinterpret_cast<uintptr_t>(end_)) return allocate_slow(bytes, align);
    cursor_ = reinterpret_cast<char*>(p + bytes);
    return reinterpret_cast<void*>(p);
  }

  // Sizes the first chunk, e.g. from the length of the source, before any allocation.
  void reserve(size_t bytes) {
    if (chunks_.empty() && bytes > next_chunk_) next_chunk_ = std::min(bytes, kMaxChunk);
  }

 private:
  // Chunks stay below malloc's mmap threshold: a chunk that malloc maps
  // costs system calls and page faults on every compile.
  static constexpr size_t kMaxChunk = 64 * 1024;

  void* allocate_slow(size_t bytes, size_t align) {
    size_t size = std::max(next_chunk_, bytes + align);
    chunks_.push_back(std::unique_ptr<char[]>(new char[size]));  // uninitialised: the tree writes it
    cursor_ = chunks_.back().get();
    end_ = cursor_ + size;
    next_chunk_ = std::min(size * 2, kMaxChunk);
    return allocate(bytes, align);
  }

  std::vector<std::unique_ptr<char[]>> chunks_;
  char* cursor_ = nullptr;
  char* end_ = nullptr;
  size_t next_chunk_;
};

}  // namespace sindri::tera
