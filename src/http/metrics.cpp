#include "http/metrics.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <tuple>
#include <unordered_map>

namespace sindri::http {

namespace {

// Upper bounds of the latency buckets; the last (+Inf) bucket is implicit.
constexpr std::array<std::chrono::nanoseconds, 14> kBucketBounds = {
    std::chrono::microseconds(500), std::chrono::milliseconds(1),   std::chrono::microseconds(2500),
    std::chrono::milliseconds(5),   std::chrono::milliseconds(10),  std::chrono::milliseconds(25),
    std::chrono::milliseconds(50),  std::chrono::milliseconds(100), std::chrono::milliseconds(250),
    std::chrono::milliseconds(500), std::chrono::seconds(1),        std::chrono::milliseconds(2500),
    std::chrono::seconds(5),        std::chrono::seconds(10)};
constexpr std::array<std::string_view, kBucketBounds.size() + 1> kBucketLabels = {
    "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"};

struct SeriesKeyView {
  std::string_view route;
  std::string_view method;
  int status;
};

struct SeriesKey {
  std::string route;
  std::string method;
  int status;
  operator SeriesKeyView() const { return {route, method, status}; }
};

struct SeriesKeyHash {
  using is_transparent = void;
  size_t operator()(SeriesKeyView key) const {
    const size_t route = std::hash<std::string_view>{}(key.route);
    const size_t method = std::hash<std::string_view>{}(key.method);
    return route ^ (method * 0x9e3779b97f4a7c15ULL) ^ (static_cast<size_t>(key.status) << 1);
  }
};

struct SeriesKeyEqual {
  using is_transparent = void;
  bool operator()(SeriesKeyView a, SeriesKeyView b) const {
    return a.status == b.status && a.route == b.route && a.method == b.method;
  }
};

// Counts for one route, method and status. The request count is the sum of
// the buckets, so the histogram's _count and +Inf bucket always agree.
struct Series {
  std::array<std::atomic<uint64_t>, kBucketBounds.size() + 1> buckets{};
  std::atomic<uint64_t> latency_sum_ns{0};
};

size_t bucket_index(std::chrono::nanoseconds latency) {
  return static_cast<size_t>(std::lower_bound(kBucketBounds.begin(), kBucketBounds.end(), latency) -
                             kBucketBounds.begin());
}

void append_label_value(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

void append_help(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

void append_number(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    char text[32];
    const auto result = std::to_chars(text, text + sizeof text, value);
    out.append(text, result.ptr);
  }
}

void append_number(std::string& out, uint64_t value) {
  char text[24];
  const auto result = std::to_chars(text, text + sizeof text, value);
  out.append(text, result.ptr);
}

void append_series_labels(std::string& out, std::string_view route, std::string_view method, int status) {
  out += "route=\"";
  append_label_value(out, route);
  out += "\",method=\"";
  append_label_value(out, method);
  out += "\",status=\"";
  append_number(out, static_cast<uint64_t>(status));
  out += '"';
}

// Prometheus wants every series of a metric together, after its one HELP
// and TYPE.
void append_gauges(std::string& out, const std::vector<Metrics::Gauge>& gauges) {
  std::vector<bool> written(gauges.size(), false);
  for (size_t first = 0; first < gauges.size(); ++first) {
    if (written[first]) continue;
    const Metrics::Gauge& head = gauges[first];
    out += "# HELP ";
    out += head.name;
    out += ' ';
    append_help(out, head.help);
    out += "\n# TYPE ";
    out += head.name;
    out += head.counter ? " counter\n" : " gauge\n";
    for (size_t i = first; i < gauges.size(); ++i) {
      if (written[i] || gauges[i].name != head.name) continue;
      written[i] = true;
      out += gauges[i].name;
      if (!gauges[i].labels.empty()) {
        out += '{';
        out += gauges[i].labels;
        out += '}';
      }
      out += ' ';
      append_number(out, gauges[i].value);
      out += '\n';
    }
  }
}

}  // namespace

struct Metrics::Impl {
  mutable std::shared_mutex mutex;  // guards the map's shape; the counts are atomics
  std::unordered_map<SeriesKey, std::unique_ptr<Series>, SeriesKeyHash, SeriesKeyEqual> series;

  Series& find_or_add(SeriesKeyView key) {
    {
      std::shared_lock lock(mutex);
      if (auto it = series.find(key); it != series.end()) return *it->second;
    }
    std::unique_lock lock(mutex);
    auto [it, added] = series.try_emplace(SeriesKey{std::string(key.route), std::string(key.method), key.status});
    if (added) it->second = std::make_unique<Series>();
    return *it->second;
  }
};

Metrics::Metrics() : impl_(std::make_unique<Impl>()) {}
Metrics::~Metrics() = default;

void Metrics::observe(std::string_view route, std::string_view method, int status, std::chrono::nanoseconds latency) {
  Series& series = impl_->find_or_add({route, method, status});
  series.buckets[bucket_index(latency)].fetch_add(1, std::memory_order_relaxed);
  series.latency_sum_ns.fetch_add(static_cast<uint64_t>(std::max<int64_t>(latency.count(), 0)),
                                  std::memory_order_relaxed);
}

std::string Metrics::render(const std::vector<Gauge>& gauges) const {
  // A snapshot in a stable order: by route, method, then status.
  struct Counts {
    std::array<uint64_t, kBucketBounds.size() + 1> buckets{};
    uint64_t latency_sum_ns = 0;
  };
  std::map<std::tuple<std::string, std::string, int>, Counts> by_status;
  {
    std::shared_lock lock(impl_->mutex);
    for (const auto& [key, series] : impl_->series) {
      Counts& counts = by_status[{key.route, key.method, key.status}];
      for (size_t i = 0; i < counts.buckets.size(); ++i) {
        counts.buckets[i] = series->buckets[i].load(std::memory_order_relaxed);
      }
      counts.latency_sum_ns = series->latency_sum_ns.load(std::memory_order_relaxed);
    }
  }

  std::string out;
  out += "# HELP sindri_http_requests_total HTTP requests answered, by route, method and status.\n";
  out += "# TYPE sindri_http_requests_total counter\n";
  for (const auto& [key, counts] : by_status) {
    const auto& [route, method, status] = key;
    uint64_t total = 0;
    for (uint64_t count : counts.buckets) total += count;
    out += "sindri_http_requests_total{";
    append_series_labels(out, route, method, status);
    out += "} ";
    append_number(out, total);
    out += '\n';
  }

  out += "# HELP sindri_http_request_duration_seconds Time to handle an HTTP request, by route, method and status.\n";
  out += "# TYPE sindri_http_request_duration_seconds histogram\n";
  for (const auto& [key, counts] : by_status) {
    const auto& [route, method, status] = key;
    uint64_t cumulative = 0;
    for (size_t i = 0; i < counts.buckets.size(); ++i) {
      cumulative += counts.buckets[i];
      out += "sindri_http_request_duration_seconds_bucket{";
      append_series_labels(out, route, method, status);
      out += ",le=\"";
      out += kBucketLabels[i];
      out += "\"} ";
      append_number(out, cumulative);
      out += '\n';
    }
    out += "sindri_http_request_duration_seconds_sum{";
    append_series_labels(out, route, method, status);
    out += "} ";
    append_number(out, static_cast<double>(counts.latency_sum_ns) / 1e9);
    out += "\nsindri_http_request_duration_seconds_count{";
    append_series_labels(out, route, method, status);
    out += "} ";
    append_number(out, cumulative);
    out += '\n';
  }

  append_gauges(out, gauges);
  return out;
}

}  // namespace sindri::http
