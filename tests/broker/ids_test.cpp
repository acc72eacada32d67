// The identifiers the broker hands out.

#include "broker/ids.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

namespace sindri::broker {
namespace {

TEST(Ids, NewUuidsAreVersion7AndSortByTime) {
  std::set<std::string> seen;
  std::string previous;
  for (int i = 0; i < 200; ++i) {
    const std::string id = new_uuid();
    ASSERT_TRUE(is_uuid(id)) << id;
    EXPECT_EQ(id[14], '7') << id;                                          // the version
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;  // RFC 9562's variant
    EXPECT_TRUE(seen.insert(id).second) << id;
    // The first 48 bits are milliseconds: an id from a later millisecond sorts after.
    if (i % 50 == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      if (!previous.empty()) {
        EXPECT_LT(previous.substr(0, 13), id.substr(0, 13));
      }
      previous = id;
    }
  }
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const std::string id = new_uuid();
  const long long stamped = std::stoll(id.substr(0, 8) + id.substr(9, 4), nullptr, 16);
  EXPECT_LE(std::llabs(stamped - now), 1000);
}

TEST(Ids, IsUuidWantsEightFourFourFourTwelveHex) {
  EXPECT_TRUE(is_uuid("0192f3a4-5b6c-7d8e-9f01-23456789abcd"));
  EXPECT_TRUE(is_uuid("0192F3A4-5B6C-7D8E-9F01-23456789ABCD"));
  EXPECT_FALSE(is_uuid("0192f3a4-5b6c-7d8e-9f01-23456789abc"));
  EXPECT_FALSE(is_uuid("0192f3a45b6c-7d8e-9f01-23456789abcde"));
  EXPECT_FALSE(is_uuid("0192f3a4-5b6c-7d8e-9f01-23456789abcg"));
}

}  // namespace
}  // namespace sindri::broker
