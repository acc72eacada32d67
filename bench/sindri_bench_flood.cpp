// sindri-bench-flood: the connection flood of bench/hostile_bench.sh, as an
// attacker without credentials makes it.
//
//   sindri-bench-flood PORT CONNECTIONS SECONDS [--trickling SHARE] [--trickle-interval S]
//                      [--open-rate N] [--source-addresses FIRST:COUNT] [--ready-file PATH]
//
// Holds CONNECTIONS connections to 127.0.0.1:PORT for SECONDS (or until
// SIGTERM or SIGINT): each sends a request line and nothing more
// (`GET / HTTP/1.1\r\n`), or, for a SHARE of them (default 0.5), a header
// that never ends, a byte every S seconds (default 1). A connection the
// server closes is opened again. Opens at most N connections a second
// (default 1000), first to reach CONNECTIONS, then to replace those closed.
// Connections leave from 127.0.0.FIRST to 127.0.0.(FIRST+COUNT-1) (default
// 2:16), since one address has only some 28,000 ports and a closed
// connection's stays in TIME_WAIT. Once it has opened CONNECTIONS it writes
// their number to the ready file. Prints one line at the end:
//   flood connections=.. opened=.. closed_by_server=.. open_failures=.. open_at_end=.. seconds=..
// The process needs CONNECTIONS open files and a few more.

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

Clock::duration seconds_of(double seconds) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

volatile std::sig_atomic_t stopping = 0;

struct Options {
  uint16_t port = 0;
  size_t connections = 0;
  double seconds = 0;
  double trickling_share = 0.5;
  double trickle_interval = 1;
  double open_rate = 1000;
  unsigned first_address = 2;
  unsigned address_count = 16;
  std::string ready_file;
};

[[noreturn]] void usage(const char* problem) {
  std::fprintf(stderr,
               "sindri-bench-flood: %s\nusage: sindri-bench-flood PORT CONNECTIONS SECONDS [--trickling SHARE] "
               "[--trickle-interval S] [--open-rate N] [--source-addresses FIRST:COUNT] [--ready-file PATH]\n",
               problem);
  std::exit(2);
}

double number(const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || value < 0) usage((std::string("not a number: ") + text).c_str());
  return value;
}

Options parse(int argc, char** argv) {
  if (argc < 4) usage("PORT, CONNECTIONS and SECONDS are needed");
  Options options;
  options.port = static_cast<uint16_t>(number(argv[1]));
  options.connections = static_cast<size_t>(number(argv[2]));
  options.seconds = number(argv[3]);
  for (int i = 4; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) usage("a flag without its value");
    const char* value = argv[i + 1];
    if (flag == "--trickling") {
      options.trickling_share = number(value);
    } else if (flag == "--trickle-interval") {
      options.trickle_interval = number(value);
    } else if (flag == "--open-rate") {
      options.open_rate = number(value);
    } else if (flag == "--source-addresses") {
      if (std::sscanf(value, "%u:%u", &options.first_address, &options.address_count) != 2 ||
          options.address_count == 0 || options.first_address + options.address_count > 255) {
        usage("--source-addresses takes FIRST:COUNT within 127.0.0.1-254");
      }
    } else if (flag == "--ready-file") {
      options.ready_file = value;
    } else {
      usage((std::string("unknown flag ") + argv[i]).c_str());
    }
  }
  if (options.port == 0 || options.connections == 0) usage("PORT and CONNECTIONS must be positive");
  return options;
}

class Flood {
 public:
  explicit Flood(const Options& options) : options_(options), epoll_(::epoll_create1(0)), slots_(options.connections) {
    const auto trickling = static_cast<size_t>(options.trickling_share * static_cast<double>(options.connections));
    for (size_t i = 0; i < slots_.size(); ++i) {
      slots_[i].trickling = i < trickling;
      waiting_.push_back(i);
    }
  }

  void run() {
    const auto start = Clock::now();
    const auto end = start + seconds_of(options_.seconds);
    auto last_turn = Clock::now();
    auto last_trickle = Clock::now();
    double open_allowance = 0;
    std::vector<epoll_event> events(1024);
    while (stopping == 0 && Clock::now() < end) {
      const int ready = ::epoll_wait(epoll_, events.data(), static_cast<int>(events.size()), 5);
      for (int i = 0; i < ready; ++i) handle(events[static_cast<size_t>(i)]);
      const auto now = Clock::now();
      open_allowance += options_.open_rate * std::chrono::duration<double>(now - last_turn).count();
      // Unused allowance does not pile up into a burst.
      open_allowance = std::min(open_allowance, std::max(1.0, options_.open_rate / 100));
      last_turn = now;
      while (open_allowance >= 1 && !waiting_.empty()) {
        open_allowance -= 1;
        const size_t slot = waiting_.front();
        waiting_.pop_front();
        open(slot);
      }
      if (std::chrono::duration<double>(now - last_trickle).count() >= options_.trickle_interval) {
        last_trickle = now;
        for (size_t slot = 0; slot < slots_.size(); ++slot) {
          if (slots_[slot].trickling && slots_[slot].connected) send_text(slot, "a");
        }
      }
      if (!announced_ && opened_ >= slots_.size()) announce_ready();
    }
    size_t open_at_end = 0;
    for (size_t slot = 0; slot < slots_.size(); ++slot) {
      if (slots_[slot].fd >= 0) ++open_at_end;
      close_slot(slot);
    }
    std::printf("flood connections=%zu opened=%zu closed_by_server=%zu open_failures=%zu open_at_end=%zu "
                "seconds=%.1f\n",
                slots_.size(), opened_, closed_by_server_, open_failures_, open_at_end,
                std::chrono::duration<double>(Clock::now() - start).count());
  }

 private:
  struct Slot {
    int fd = -1;
    bool trickling = false;
    bool connected = false;
  };

  void open(size_t slot) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0) {
      std::fprintf(stderr, "sindri-bench-flood: socket: %s\n", std::strerror(errno));
      std::exit(1);
    }
    // The port is chosen at connect, for the whole address pair, so that
    // every source address has its full range.
    const int yes = 1;
    ::setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &yes, sizeof yes);
    sockaddr_in source{};
    source.sin_family = AF_INET;
    const auto address_index = static_cast<unsigned>(slot % options_.address_count);
    source.sin_addr.s_addr = htonl(0x7f000000u + options_.first_address + address_index);
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(options_.port);
    server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&source), sizeof source) != 0 ||
        (::connect(fd, reinterpret_cast<const sockaddr*>(&server), sizeof server) != 0 && errno != EINPROGRESS)) {
      ::close(fd);
      ++open_failures_;
      waiting_.push_back(slot);
      return;
    }
    slots_[slot].fd = fd;
    slots_[slot].connected = false;
    epoll_event event{};
    event.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP;
    event.data.u64 = slot;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, fd, &event);
    ++opened_;
  }

  void handle(const epoll_event& event) {
    const size_t slot = event.data.u64;
    if (slots_[slot].fd < 0) return;
    if ((event.events & (EPOLLERR | EPOLLHUP | EPOLLRDHUP)) != 0) return lost(slot);
    if ((event.events & EPOLLIN) != 0) {
      // Whatever the server sends (an error before it closes) is read and
      // dropped; end of stream is its close.
      char chunk[1024];
      const ssize_t got = ::recv(slots_[slot].fd, chunk, sizeof chunk, 0);
      if (got == 0 || (got < 0 && errno != EAGAIN)) return lost(slot);
    }
    if ((event.events & EPOLLOUT) != 0 && !slots_[slot].connected) {
      slots_[slot].connected = true;
      epoll_event readable{};
      readable.events = EPOLLIN | EPOLLRDHUP;
      readable.data.u64 = slot;
      ::epoll_ctl(epoll_, EPOLL_CTL_MOD, slots_[slot].fd, &readable);
      send_text(slot, slots_[slot].trickling ? "GET / HTTP/1.1\r\nHost: flood\r\nX-Slow: " : "GET / HTTP/1.1\r\n");
    }
  }

  void send_text(size_t slot, std::string_view text) {
    if (::send(slots_[slot].fd, text.data(), text.size(), MSG_NOSIGNAL) < 0 && errno != EAGAIN) lost(slot);
  }

  void lost(size_t slot) {
    ++closed_by_server_;
    close_slot(slot);
    waiting_.push_back(slot);
  }

  void close_slot(size_t slot) {
    if (slots_[slot].fd >= 0) ::close(slots_[slot].fd);
    slots_[slot].fd = -1;
    slots_[slot].connected = false;
  }

  void announce_ready() {
    announced_ = true;
    if (options_.ready_file.empty()) return;
    std::ofstream(options_.ready_file) << opened_ << "\n";
  }

  Options options_;
  int epoll_;
  std::vector<Slot> slots_;
  std::deque<size_t> waiting_;  // slots to open, in order
  size_t opened_ = 0;
  size_t closed_by_server_ = 0;
  size_t open_failures_ = 0;
  bool announced_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  std::signal(SIGTERM, [](int) { stopping = 1; });
  std::signal(SIGINT, [](int) { stopping = 1; });
  Flood(options).run();
  return 0;
}
