#pragma once
// An answer body shared between requests and never changed: a cached target
// state, the OpenAPI document. A large one lives in a sealed memfd mapped
// read-only, so the server can hand it to the kernel with sendfile instead of
// copying it into the socket for every request; on loopback that copy was
// most of the cost of a large answer. Small bodies, and large ones when no
// descriptor is to be had, stay in ordinary memory.

#include <memory>
#include <string>
#include <string_view>

namespace sindri::http {

class SharedBody {
 public:
  // Bodies at least this large go to a memfd.
  static constexpr size_t kFileThreshold = 64 * 1024;

  static std::shared_ptr<const SharedBody> make(std::string bytes);

  ~SharedBody();
  SharedBody(const SharedBody&) = delete;
  SharedBody& operator=(const SharedBody&) = delete;

  std::string_view bytes() const { return view_; }
  // The sealed memfd holding bytes(), or -1 when they are only in memory.
  int file() const { return file_; }

  // Bodies living in a memfd right now; each holds one descriptor.
  static size_t files_in_use();

 private:
  SharedBody() = default;

  std::string memory_;
  std::string_view view_;
  int file_ = -1;
  void* mapping_ = nullptr;
};

}  // namespace sindri::http
