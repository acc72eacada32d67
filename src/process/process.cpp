#include "process/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <sstream>

extern char** environ;

namespace sindri {

namespace {

struct Pipe {
  int read_end = -1, write_end = -1;
  Pipe() = default;
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    close_read();
    close_write();
  }
  bool open() {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return false;
    read_end = ends[0];
    write_end = ends[1];
    return true;
  }
  void close_read() {
    if (read_end >= 0) ::close(read_end);
    read_end = -1;
  }
  void close_write() {
    if (write_end >= 0) ::close(write_end);
    write_end = -1;
  }
};

using Clock = std::chrono::steady_clock;

// Writes to a program that stopped reading raise SIGPIPE, which would end
// this process: held blocked on this thread while writing, and a SIGPIPE
// the write raised is taken off before unblocking.
class SigpipeHeld {
 public:
  SigpipeHeld() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    already_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
  }
  SigpipeHeld(const SigpipeHeld&) = delete;
  SigpipeHeld& operator=(const SigpipeHeld&) = delete;
  ~SigpipeHeld() {
    if (!already_pending_) {
      const timespec no_wait{0, 0};
      while (sigtimedwait(&pipe_, nullptr, &no_wait) == SIGPIPE) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }

 private:
  sigset_t pipe_;
  sigset_t previous_;
  bool already_pending_ = false;
};

// Feeds the input and reads both outputs until the program closes them or
// the deadline passes; false on the deadline.
bool exchange(Pipe& in, Pipe& out, Pipe& err, std::string_view input, std::optional<Clock::time_point> deadline,
              size_t max_output_bytes, ProcessOutcome& outcome) {
  const SigpipeHeld held;
  size_t written = 0;
  if (input.empty()) in.close_write();
  if (in.write_end >= 0) fcntl(in.write_end, F_SETFL, fcntl(in.write_end, F_GETFL) | O_NONBLOCK);
  while (in.write_end >= 0 || out.read_end >= 0 || err.read_end >= 0) {
    int wait_ms = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) return false;
      wait_ms = static_cast<int>(std::min<long>(left, 1000));
    }
    pollfd fds[3] = {{in.write_end, POLLOUT, 0}, {out.read_end, POLLIN, 0}, {err.read_end, POLLIN, 0}};
    const int ready = poll(fds, 3, wait_ms);
    if (ready < 0 && errno != EINTR) return true;
    if (fds[0].fd >= 0 && fds[0].revents != 0) {
      const ssize_t sent = ::write(in.write_end, input.data() + written, input.size() - written);
      if (sent > 0) written += static_cast<size_t>(sent);
      // A program that stops reading early (EPIPE) simply gets no more.
      if ((sent < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) in.close_write();
    }
    Pipe* readers[2] = {&out, &err};
    std::string* targets[2] = {&outcome.out, &outcome.err};
    for (int i = 0; i < 2; ++i) {
      if (fds[i + 1].fd < 0 || fds[i + 1].revents == 0) continue;
      char buffer[8192];
      const ssize_t got = ::read(readers[i]->read_end, buffer, sizeof(buffer));
      if (got > 0) {
        const size_t room = max_output_bytes == 0 ? static_cast<size_t>(got)
                                                  : max_output_bytes - std::min(max_output_bytes, targets[i]->size());
        targets[i]->append(buffer, std::min(room, static_cast<size_t>(got)));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        readers[i]->close_read();
      }
    }
  }
  return true;
}

// Whether the program ended by the deadline (a program may close its
// outputs and go on running), leaving it to be reaped.
bool exited_by(pid_t pid, std::optional<Clock::time_point> deadline) {
  if (!deadline) return true;
  siginfo_t info{};
  while (true) {
    info.si_pid = 0;
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != EINTR) return true;
    if (info.si_pid == pid) return true;
    if (Clock::now() >= *deadline) return false;
    const timespec pause{0, 2'000'000};
    ::nanosleep(&pause, nullptr);
  }
}

// Our variables it does not get: those withheld, and those it is given
// (glibc's getenv would find our entry first).
bool withheld(std::string_view entry, const ProcessRequest& request) {
  const std::string_view name = entry.substr(0, entry.find('='));
  auto named = [&](std::string_view other) { return other.substr(0, other.find('=')) == name; };
  return std::any_of(request.withheld_environment.begin(), request.withheld_environment.end(), named) ||
         std::any_of(request.extra_environment.begin(), request.extra_environment.end(), named);
}

}  // namespace

std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

std::string trimmed_output(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
  return std::string(text);
}

Result<ProcessOutcome> run_process(const ProcessRequest& request) {
  if (request.argv.empty()) return make_error("no program to run");
  const std::string& program = request.argv.front();
  Pipe in, out, err;
  if (!in.open() || !out.open() || !err.open()) {
    return make_error("cannot run " + program + ": cannot make a pipe: " + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read_end, 0);
  posix_spawn_file_actions_adddup2(&actions, out.write_end, 1);
  posix_spawn_file_actions_adddup2(&actions, err.write_end, 2);
  if (!request.directory.empty()) posix_spawn_file_actions_addchdir_np(&actions, request.directory.c_str());
  // Its own process group, so that a timeout also ends what it started
  // (a shell's `sleep`); default signal handling whatever ours is.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setpgroup(&attributes, 0);
  sigset_t nothing_blocked;
  sigemptyset(&nothing_blocked);
  posix_spawnattr_setsigmask(&attributes, &nothing_blocked);
  sigset_t default_pipe;
  sigemptyset(&default_pipe);
  sigaddset(&default_pipe, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &default_pipe);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (!withheld(*entry, request)) environment.emplace_back(*entry);
  }
  environment.insert(environment.end(), request.extra_environment.begin(), request.extra_environment.end());
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::vector<std::string> arguments = request.argv;
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);

  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, program.c_str(), &actions, &attributes, argv.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return make_error("cannot run " + program + ": " + std::strerror(spawned));
  in.close_read();
  out.close_write();
  err.close_write();

  std::optional<Clock::time_point> deadline;
  if (request.timeout_seconds) {
    deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(*request.timeout_seconds));
  }
  ProcessOutcome outcome;
  if (!exchange(in, out, err, request.input, deadline, request.max_output_bytes, outcome) ||
      !exited_by(pid, deadline)) {
    outcome.timed_out = true;
    ::kill(-pid, SIGKILL);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return outcome;
}

}  // namespace sindri
