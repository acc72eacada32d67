#include "agent/pod_logs.hpp"

#include <array>
#include <set>
#include <utility>

#include "agent/documents.hpp"
#include "http/server.hpp"
#include "kube/client.hpp"
#include "value/json.hpp"
#include "value/members.hpp"
#include "value/rfc3339.hpp"
#include "value/utf8.hpp"

namespace sindri::agent {
namespace {

constexpr auto kRateWindow = std::chrono::seconds(1);
constexpr int64_t kMicrosPerSecond = 1'000'000;
// What one read of a log may bring (limitBytes), and one line sent: so that
// a chatty container, and the frames waiting for the channel, hold bounded memory.
constexpr size_t kReadLimitBytes = 8 * 1024 * 1024;
constexpr size_t kLineLimitBytes = 16 * 1024;

constexpr std::array<std::string_view, 3> kGapReasonNames = {"rate_limit", "buffer_full", "disconnected"};

std::string describe(std::string_view ns, std::string_view pod, std::string_view container) {
  return "container " + std::string(container) + " of pod " + std::string(ns) + "/" + std::string(pod);
}

// `line` cut to kLineLimitBytes, between UTF-8 characters.
std::string_view bounded(std::string_view line) {
  if (line.size() <= kLineLimitBytes) return line;
  size_t end = kLineLimitBytes;
  while (end > 0 && is_utf8_continuation(line[end])) --end;
  return line.substr(0, end);
}

}  // namespace

void LogRateLimit::close_window() {
  if (dropped_.lines > 0) closed_.push_back(std::move(dropped_));
  dropped_ = {};
  admitted_ = 0;
  window_start_.reset();
}

bool LogRateLimit::admit(Clock::time_point now, const std::string& stamp) {
  if (window_start_ && now - *window_start_ >= kRateWindow) close_window();
  if (!window_start_) window_start_ = now;
  if (admitted_ < limit_) {
    ++admitted_;
    return true;
  }
  if (dropped_.lines++ == 0) dropped_.first_stamp = stamp;
  return false;
}

std::vector<LogRateLimit::Dropped> LogRateLimit::take_closed(Clock::time_point now) {
  if (window_start_ && now - *window_start_ >= kRateWindow) close_window();
  return std::exchange(closed_, {});
}

PodLogForwarder::PodLogForwarder(kube::Client& client, std::string agent_id, std::string watch_namespace,
                                 int64_t lines_per_second, int64_t since_micros, Uplink& uplink,
                                 std::function<void(const std::string&)> log)
    : client_(client),
      agent_id_(std::move(agent_id)),
      watch_namespace_(std::move(watch_namespace)),
      lines_per_second_(lines_per_second),
      since_micros_(since_micros),
      uplink_(uplink),
      log_(std::move(log)) {}

void PodLogForwarder::scan() {
  if (!pod_type_) {
    auto found = client_.find_type("v1", "Pod");
    if (!found.ok()) {
      if (found.error().message != last_failure_) log_("pod logs are not followed yet: " + found.error().message);
      last_failure_ = found.error().message;
      return;
    }
    pod_type_ = std::move(found).value();
  }
  auto pods = client_.list(*pod_type_, watch_namespace_);
  if (!pods.ok()) {
    if (pods.error().message != last_failure_) {
      log_("pods whose logs to follow: " + pods.error().message + "; listing them again later");
    }
    last_failure_ = pods.error().message;
    return;
  }
  last_failure_.clear();
  std::set<std::string> wanted;
  for (const Value& pod : *pods) {
    const std::string_view stack_id = annotation_of(pod, kStackAnnotation);
    if (annotation_of(pod, kStreamLogsAnnotation) != "true" || stack_id.empty()) continue;
    const std::string_view uid = string_at(pod, "/metadata/uid");
    const std::string_view ns = string_at(pod, "/metadata/namespace");
    const std::string_view name = string_at(pod, "/metadata/name");
    const Value* containers = follow_pointer(pod, "/spec/containers");
    if (uid.empty() || name.empty() || containers == nullptr || !containers->is_array()) continue;
    for (const Value& container : containers->get_array()) {
      const std::string_view container_name = string_member(container, "name");
      if (container_name.empty()) continue;
      std::string key = std::string(uid) + "/" + std::string(container_name);
      if (!tails_.contains(key)) {
        log_("following the log of " + describe(ns, name, container_name) + " (stack " + std::string(stack_id) + ")");
        // A pod recreated under its name: the old tail read the new pod's
        // log by that name already, so the new one goes on from its cursor.
        int64_t cursor = since_micros_;
        uint64_t lines_at_cursor = 0;
        for (const auto& [known_key, known] : tails_) {
          if (known.ns == ns && known.pod == name && known.container == container_name) {
            cursor = known.cursor_micros;
            lines_at_cursor = known.lines_at_cursor;
          }
        }
        tails_.emplace(key, Tail{.ns = std::string(ns),
                                 .pod = std::string(name),
                                 .container = std::string(container_name),
                                 .stack_id = std::string(stack_id),
                                 .cursor_micros = cursor,
                                 .lines_at_cursor = lines_at_cursor,
                                 .rate = LogRateLimit(lines_per_second_),
                                 .gaps = {},
                                 .last_failure = {},
                                 .warned_untimed = false});
      }
      wanted.insert(std::move(key));
    }
  }
  for (auto tail = tails_.begin(); tail != tails_.end();) {
    if (wanted.contains(tail->first)) {
      ++tail;
      continue;
    }
    log_("no longer following the log of " + describe(tail->second.ns, tail->second.pod, tail->second.container) +
         ": the pod is gone or no longer opts in");
    for (auto& dropped : tail->second.rate.take_closed(LogRateLimit::Clock::time_point::max())) {
      count(tail->second.gaps[kRateLimit], dropped.first_stamp, dropped.lines);
    }
    send_gaps(tail->second);
    tail = tails_.erase(tail);
  }
}

void PodLogForwarder::read(const std::atomic<bool>& stopping) {
  for (auto& [key, tail] : tails_) {
    if (stopping) return;
    read(tail);
  }
}

void PodLogForwarder::count(Gap& gap, const std::string& stamp, uint64_t lines) {
  if (gap.dropped == 0) gap.since = stamp;
  gap.dropped += lines;
}

void PodLogForwarder::send_gaps(Tail& tail) {
  for (size_t reason = 0; reason < kGapReasons; ++reason) {
    Gap& gap = tail.gaps[reason];
    if (gap.dropped == 0) continue;
    Value body = Object{{"agent_id", Value(agent_id_)},
                        {"stack_id", Value(tail.stack_id)},
                        {"since_ts", Value(gap.since)},
                        {"dropped_count", Value(static_cast<int64_t>(gap.dropped))},
                        {"reason", Value(kGapReasonNames[reason])}};
    if (uplink_.send(to_json(Value(Object{{"type", Value("log_gap")}, {"body", std::move(body)}}))) != Queued::yes) {
      return;
    }
    gap = {};
  }
}

void PodLogForwarder::read(Tail& tail) {
  for (auto& dropped : tail.rate.take_closed(LogRateLimit::Clock::now())) {
    count(tail.gaps[kRateLimit], dropped.first_stamp, dropped.lines);
  }
  send_gaps(tail);
  const int64_t since_second = tail.cursor_micros - tail.cursor_micros % kMicrosPerSecond;
  const std::string path = "/api/v1/namespaces/" + http::percent_encode(tail.ns) + "/pods/" +
                           http::percent_encode(tail.pod) + "/log?container=" + http::percent_encode(tail.container) +
                           "&timestamps=true&sinceTime=" + http::percent_encode(rfc3339::format_micros(since_second)) +
                           "&limitBytes=" + std::to_string(kReadLimitBytes);
  auto text = client_.get_text(path);
  if (!text.ok()) {
    if (text.error().message != tail.last_failure) {
      log_("the log of " + describe(tail.ns, tail.pod, tail.container) + ": " + text.error().message +
           "; reading it again later");
    }
    tail.last_failure = text.error().message;
    return;
  }
  if (!tail.last_failure.empty()) {
    log_("the log of " + describe(tail.ns, tail.pod, tail.container) + " reads again");
    tail.last_failure.clear();
  }
  // With sinceTime in whole seconds, the answer repeats the lines of the
  // cursor's second: those before the cursor, and as many at it as were
  // already taken, are left out.
  const int64_t cursor = tail.cursor_micros;
  const uint64_t taken_at_cursor = tail.lines_at_cursor;
  uint64_t seen_at_cursor = 0;
  bool advanced = false;
  std::string_view rest = *text;
  const bool cut = rest.size() >= kReadLimitBytes;
  // The last line of a cut answer may be cut too: the next read brings it whole.
  if (cut) rest = rest.substr(0, rest.rfind('\n') + 1);
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    const size_t space = line.find(' ');
    const std::optional<int64_t> micros =
        space == std::string_view::npos ? std::nullopt : rfc3339::parse_micros(line.substr(0, space));
    if (!micros) {
      if (!line.empty() && !tail.warned_untimed) {
        log_("the log of " + describe(tail.ns, tail.pod, tail.container) +
             " has lines without a timestamp (timestamps=true), which are not sent");
        tail.warned_untimed = true;
      }
      continue;
    }
    if (*micros < cursor) continue;
    if (*micros == cursor && ++seen_at_cursor <= taken_at_cursor) continue;
    if (*micros > tail.cursor_micros) {
      tail.cursor_micros = *micros;
      tail.lines_at_cursor = 0;
    }
    ++tail.lines_at_cursor;
    advanced = true;
    forward(tail, rfc3339::format_micros(*micros), bounded(line.substr(space + 1)));
  }
  if (cut && !advanced) {
    // Every read from this second would stop at the same place: the rest of it is skipped.
    log_("the log of " + describe(tail.ns, tail.pod, tail.container) + " holds more than " +
         std::to_string(kReadLimitBytes) + " bytes written within the second " + rfc3339::format_micros(since_second) +
         "; the rest of that second is not sent");
    tail.cursor_micros = since_second + kMicrosPerSecond;
    tail.lines_at_cursor = 0;
  }
}

void PodLogForwarder::forward(Tail& tail, const std::string& stamp, std::string_view line) {
  if (!tail.rate.admit(LogRateLimit::Clock::now(), stamp)) return;
  // A gap goes up before the lines after it.
  if (tail.gaps[kBufferFull].dropped > 0 || tail.gaps[kDisconnected].dropped > 0) send_gaps(tail);
  Value body = Object{{"agent_id", Value(agent_id_)}, {"stack_id", Value(tail.stack_id)},
                      {"namespace", Value(tail.ns)},   {"pod", Value(tail.pod)},
                      {"container", Value(tail.container)}, {"ts", Value(stamp)},
                      {"line", Value(line)}};
  switch (uplink_.send(to_json(Value(Object{{"type", Value("pod_log_line")}, {"body", std::move(body)}})))) {
    case Queued::yes:
      break;
    case Queued::disconnected:
      count(tail.gaps[kDisconnected], stamp, 1);
      break;
    case Queued::full:
      count(tail.gaps[kBufferFull], stamp, 1);
      break;
  }
}

}  // namespace sindri::agent
