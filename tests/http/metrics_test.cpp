// Gauges and counters read at a scrape, with labels, in the exposition format.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "http/metrics.hpp"

namespace sindri::http {
namespace {

TEST(Metrics, GaugesWithoutLabelsAreOneLineEach) {
  Metrics metrics;
  const std::string text = metrics.render({{"sindri_db_pool_in_use", "Database connections in use", 3}});
  EXPECT_NE(text.find("# HELP sindri_db_pool_in_use Database connections in use\n"
                      "# TYPE sindri_db_pool_in_use gauge\n"
                      "sindri_db_pool_in_use 3\n"),
            std::string::npos)
      << text;
}

// Series of one name share one HELP and TYPE and stay together, wherever
// their sources added them.
TEST(Metrics, LabelledSeriesOfOneNameAreWrittenTogetherUnderOneHelpAndType) {
  Metrics metrics;
  const std::vector<Metrics::Gauge> gauges = {
      {.name = "refused_total", .help = "Refused", .value = 2, .counter = true, .labels = R"(reason="header_timeout")"},
      {.name = "open", .help = "Open", .value = 7},
      {.name = "refused_total", .help = "Refused", .value = 0, .counter = true, .labels = R"(reason="tls_handshake")"},
  };
  const std::string text = metrics.render(gauges);
  const std::string expected = "# HELP refused_total Refused\n"
                               "# TYPE refused_total counter\n"
                               "refused_total{reason=\"header_timeout\"} 2\n"
                               "refused_total{reason=\"tls_handshake\"} 0\n"
                               "# HELP open Open\n"
                               "# TYPE open gauge\n"
                               "open 7\n";
  ASSERT_GE(text.size(), expected.size());
  EXPECT_EQ(text.substr(text.size() - expected.size()), expected) << text;
}

}  // namespace
}  // namespace sindri::http
