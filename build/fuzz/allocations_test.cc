// AllocationCount sees the allocations made while it counts, and only those.

#include "build/fuzz/allocations.h"

#include <string>

#include "gtest/gtest.h"

namespace serverkit::fuzz {
namespace {

TEST(AllocationCountTest, CountsTheLargestRequestWhileCounting) {
  std::string before(100000, 'b');
  AllocationCount count;
  // Strings whose bytes are read below, so no allocation can be elided.
  std::string big(5000, 'y');
  std::string small(300, 'x');
  count.stop();
  std::string after(200000, 'a');
  EXPECT_EQ(before.size() + big.size() + small.size() + after.size(), 305300u);
  EXPECT_EQ(big[4999] + small[299], 'y' + 'x');
  EXPECT_EQ(count.allocations(), 2u);
  EXPECT_EQ(count.largest(), 5001u);  // the terminator
}

TEST(AllocationCountTest, NothingAllocatedIsZero) {
  AllocationCount count;
  int x = 1;
  count.stop();
  EXPECT_EQ(x, 1);
  EXPECT_EQ(count.allocations(), 0u);
  EXPECT_EQ(count.largest(), 0u);
}

}  // namespace
}  // namespace serverkit::fuzz
