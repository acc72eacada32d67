// Client timestamps read into the broker's fixed-width UTC form.

#include "value/rfc3339.hpp"

#include <gtest/gtest.h>

#include "broker/ids.hpp"

namespace sindri::rfc3339 {
namespace {

TEST(Rfc3339, NormalisesOffsetsAndFractionsToTheFixedWidthForm) {
  EXPECT_EQ(normalized("2026-01-02T03:04:05Z"), "2026-01-02T03:04:05.000000Z");
  EXPECT_EQ(normalized("2026-01-02t03:04:05.5z"), "2026-01-02T03:04:05.500000Z");
  EXPECT_EQ(normalized("2026-01-02T03:04:05.123456789+00:00"), "2026-01-02T03:04:05.123456Z");
  EXPECT_EQ(normalized("2026-01-01T01:30:00+02:00"), "2025-12-31T23:30:00.000000Z");
  EXPECT_EQ(normalized("2025-12-31T22:30:00-05:30"), "2026-01-01T04:00:00.000000Z");
  EXPECT_EQ(normalized("2024-02-29T00:00:00 01:00"), "2024-02-28T23:00:00.000000Z");
  EXPECT_EQ(normalized("0000-01-01T00:00:00Z"), "0000-01-01T00:00:00.000000Z");
  EXPECT_EQ(normalized("9999-12-31T23:59:59.999999Z"), "9999-12-31T23:59:59.999999Z");
}

TEST(Rfc3339, RefusesWhatIsNoTimestamp) {
  for (const char* bad : {"", "2026-01-02", "2026-01-02T03:04:05", "2026-01-02 03:04:05Z", "2026-13-01T00:00:00Z",
                          "2026-02-29T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-02T24:00:00Z",
                          "2026-01-02T03:60:00Z", "2026-01-02T03:04:60Z", "2026-01-02T03:04:05.Z",
                          "2026-01-02T03:04:05+0100", "2026-01-02T03:04:05+01:00x", "2026-01-02T03:04:05Zjunk",
                          "+2026-01-02T03:04:05Z", "0000-01-01T00:30:00+01:00", "9999-12-31T23:30:00-01:00"}) {
    EXPECT_FALSE(normalized(bad).has_value()) << bad;
  }
}

TEST(Rfc3339, ReadsBackWhatNowTimestampWrites) {
  const std::string now = broker::now_timestamp();
  EXPECT_EQ(normalized(now), now);
  const std::optional<int64_t> micros = parse_micros(now);
  ASSERT_TRUE(micros.has_value());
  EXPECT_EQ(format_micros(*micros), now);
}

TEST(Rfc3339, AgesAreWholeSecondsAndNeverNegative) {
  EXPECT_EQ(age_seconds("2026-01-02T03:04:05.000000Z", "2026-01-02T03:05:06.999999Z"), 61);
  EXPECT_EQ(age_seconds("2026-01-02T03:04:05Z", "2026-01-02T03:04:04Z"), 0);
  EXPECT_EQ(age_seconds("not a time", "2026-01-02T03:04:04Z"), std::nullopt);
}

}  // namespace
}  // namespace sindri::rfc3339
