// ParseNumber<T>: whole text only, T's range, the same spellings for every
// command line.

#include "base/parse_number.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace serverkit {
namespace {

TEST(ParseNumberTest, Integers) {
  EXPECT_EQ(ParseNumber<long>("0"), 0);
  EXPECT_EQ(ParseNumber<long>("65535"), 65535);
  EXPECT_EQ(ParseNumber<long>("-3"), -3);
  EXPECT_EQ(ParseNumber<std::uint64_t>("18446744073709551615"), UINT64_MAX);
}

TEST(ParseNumberTest, RefusesJunkSpaceSignsAndOverflow) {
  for (const char* bad : {"", " 1", "1 ", "1x", "+1", "0x10", "1.5", "--1",
                          "99999999999999999999"}) {
    EXPECT_FALSE(ParseNumber<long>(bad).has_value()) << "'" << bad << "'";
  }
  EXPECT_FALSE(ParseNumber<unsigned>("-1").has_value());
  EXPECT_FALSE(ParseNumber<std::uint16_t>("65536").has_value());
}

TEST(ParseNumberTest, FloatingPoint) {
  EXPECT_EQ(ParseNumber<double>("2.5"), 2.5);
  EXPECT_EQ(ParseNumber<double>("1e3"), 1000.0);
  EXPECT_EQ(ParseNumber<double>("-0.25"), -0.25);
  for (const char* bad : {"", "inf", "nan", "1e999", "2.5s", " 2"}) {
    EXPECT_FALSE(ParseNumber<double>(bad).has_value()) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace serverkit
