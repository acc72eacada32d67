// The rate-limited line for refused connections, on a clock the test moves.

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "broker/refusal_log.hpp"
#include "value/json.hpp"

namespace sindri::broker {
namespace {

using namespace std::chrono_literals;

struct Written {
  std::string reason;
  std::string counts;  // as JSON
};

class RefusalLogTest : public ::testing::Test {
 protected:
  std::chrono::steady_clock::time_point now_{};
  std::vector<Written> lines_;
  RefusalLog log_{[this](std::string_view reason,
                         const Value& counts) { lines_.push_back({std::string(reason), to_json(counts)}); },
                  1s, [this] { return now_; }};
};

TEST_F(RefusalLogTest, TheFirstRefusalIsWrittenAtOnce) {
  log_.refused("header_timeout");
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_EQ(lines_[0].reason, "header_timeout");
  EXPECT_EQ(lines_[0].counts, R"({"header_timeout":1})");
}

TEST_F(RefusalLogTest, AtMostOneLineAnIntervalWithTheCountsSinceTheLineBefore) {
  log_.refused("connection_limit");
  for (int i = 0; i < 500; ++i) {
    now_ += 1ms;
    log_.refused(i % 2 == 0 ? "connection_limit" : "unfinished_limit");
  }
  EXPECT_EQ(lines_.size(), 1u) << "500 refusals within half a second";

  now_ += 499ms;
  log_.refused("unfinished_limit");
  EXPECT_EQ(lines_.size(), 1u) << "999 ms after the first line";
  now_ += 1ms;
  log_.refused("body_too_slow");
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_EQ(lines_[1].reason, "body_too_slow");
  EXPECT_EQ(lines_[1].counts, R"({"body_too_slow":1,"connection_limit":250,"unfinished_limit":251})");

  now_ += 10s;
  log_.refused("tls_handshake");
  ASSERT_EQ(lines_.size(), 3u);
  EXPECT_EQ(lines_[2].counts, R"({"tls_handshake":1})");
}

TEST_F(RefusalLogTest, FlushWritesWhatWasCountedSinceTheLastLineOnly) {
  log_.flush();
  EXPECT_TRUE(lines_.empty());
  log_.refused("header_timeout");
  log_.refused("header_timeout");
  log_.refused("tls_handshake");
  log_.flush();
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_EQ(lines_[1].reason, "");
  EXPECT_EQ(lines_[1].counts, R"({"header_timeout":1,"tls_handshake":1})");
  log_.flush();
  EXPECT_EQ(lines_.size(), 2u);
}

// The timer's call writes the end of a burst once its interval is over,
// without another refusal to make the line due.
TEST_F(RefusalLogTest, TheTimerWritesTheLastCountsOfABurstOnceTheIntervalHasPassed) {
  log_.flush_if_due();
  EXPECT_TRUE(lines_.empty()) << "nothing counted";
  log_.refused("header_timeout");
  now_ += 100ms;
  log_.refused("header_timeout");
  log_.refused("connection_limit");
  ASSERT_EQ(lines_.size(), 1u);

  now_ += 899ms;
  log_.flush_if_due();
  EXPECT_EQ(lines_.size(), 1u) << "999 ms after the first line";
  now_ += 1ms;
  log_.flush_if_due();
  ASSERT_EQ(lines_.size(), 2u);
  EXPECT_EQ(lines_[1].reason, "");
  EXPECT_EQ(lines_[1].counts, R"({"connection_limit":1,"header_timeout":1})");

  now_ += 5s;
  log_.flush_if_due();
  EXPECT_EQ(lines_.size(), 2u) << "nothing counted since";
  // The timer's line counts as the last one: a refusal right after it waits.
  log_.refused("tls_handshake");
  ASSERT_EQ(lines_.size(), 3u);
  now_ += 10ms;
  log_.refused("tls_handshake");
  log_.flush_if_due();
  EXPECT_EQ(lines_.size(), 3u);
  now_ += 1s;
  log_.flush_if_due();
  ASSERT_EQ(lines_.size(), 4u);
  EXPECT_EQ(lines_[3].counts, R"({"tls_handshake":1})");
}

}  // namespace
}  // namespace sindri::broker
