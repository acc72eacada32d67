#include "http/gzip.hpp"

#include <gtest/gtest.h>

namespace sindri::http {
namespace {

TEST(Gzip, AcceptEncodingIsReadLikeRfc9110) {
  EXPECT_TRUE(accepts_gzip("gzip"));
  EXPECT_TRUE(accepts_gzip("deflate, GZIP;q=0.5"));
  EXPECT_TRUE(accepts_gzip("br, *"));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("gzip; q=0.000, br"));
  EXPECT_FALSE(accepts_gzip("x-gzip2"));
}

TEST(Gzip, CompressesToAGzipStream) {
  const std::string text(100000, 'a');
  const std::string packed = gzip_compress(text);
  ASSERT_GE(packed.size(), 18u);
  EXPECT_EQ(static_cast<unsigned char>(packed[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(packed[1]), 0x8b);
  EXPECT_LT(packed.size(), 1000u);
  EXPECT_FALSE(gzip_compress("").empty());
}

}  // namespace
}  // namespace sindri::http
