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
  ~Arena() {
    for (Chunk& chunk : chunks_) recycle(std::move(chunk));
  }

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
  // Templates are often compiled and freed one after another. Handing their
  // ~100 KB back to malloc each time made glibc shrink the heap and grow it
  // again (two brk calls and fresh page faults per compile), so each thread
  // keeps this much of freed chunks for its next arena.
  static constexpr size_t kKeptBytes = 256 * 1024;

  struct Chunk {
    std::unique_ptr<char[]> memory;
    size_t size = 0;
  };
  struct KeptChunks {
    std::vector<Chunk> chunks;
    size_t bytes = 0;
    ~KeptChunks() { gone() = true; }
  };
  static KeptChunks& kept() {
    thread_local KeptChunks chunks;
    return chunks;
  }
  // Whether this thread's KeptChunks is already destroyed: at exit the main
  // thread's thread-locals go before static objects, and a template held by
  // a static cache frees its arena after that. A bool needs no destructor,
  // so it can be asked then.
  static bool& gone() {
    thread_local bool destroyed = false;
    return destroyed;
  }

  static void recycle(Chunk chunk) {
    if (gone()) return;
    KeptChunks& pool = kept();
    if (pool.bytes + chunk.size > kKeptBytes) return;
    pool.bytes += chunk.size;
    pool.chunks.push_back(std::move(chunk));
  }

  // A kept chunk of at least `size` bytes, or a new one.
  static Chunk obtain(size_t size) {
    if (!gone()) {
      KeptChunks& pool = kept();
      for (auto it = pool.chunks.begin(); it != pool.chunks.end(); ++it) {
        if (it->size < size) continue;
        Chunk chunk = std::move(*it);
        pool.chunks.erase(it);
        pool.bytes -= chunk.size;
        return chunk;
      }
    }
    return Chunk{std::unique_ptr<char[]>(new char[size]), size};  // uninitialised: the tree writes it
  }

  void* allocate_slow(size_t bytes, size_t align) {
    chunks_.push_back(obtain(std::max(next_chunk_, bytes + align)));
    cursor_ = chunks_.back().memory.get();
    end_ = cursor_ + chunks_.back().size;
    next_chunk_ = std::min(chunks_.back().size * 2, kMaxChunk);
    return allocate(bytes, align);
  }

  std::vector<Chunk> chunks_;
  char* cursor_ = nullptr;
  char* end_ = nullptr;
  size_t next_chunk_;
};

}  // namespace sindri::tera
