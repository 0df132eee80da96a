// NameClashes on planted lists: a shared kName is named with both types.

#include "base/name_clashes.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace serverkit {
namespace {

struct Mutex {
  static constexpr std::string_view kName = "mutex";
};
struct TwoLock {
  static constexpr std::string_view kName = "two-lock";
};
struct CopiedTwoLock {
  static constexpr std::string_view kName = "two-lock";
};

auto NameOf = [](auto t) { return std::string(decltype(t)::type::kName); };

TEST(NameClashesTest, DistinctNamesPass) {
  EXPECT_TRUE(NameClashes(TypeList<Mutex, TwoLock>{}, NameOf).empty());
}

TEST(NameClashesTest, ASharedNameNamesBothTypes) {
  const auto clashes =
      NameClashes(TypeList<Mutex, TwoLock, CopiedTwoLock>{}, NameOf);
  ASSERT_EQ(clashes.size(), 1u);
  EXPECT_EQ(clashes[0],
            "kName \"two-lock\" is used by serverkit::(anonymous "
            "namespace)::TwoLock and serverkit::(anonymous "
            "namespace)::CopiedTwoLock");
}

}  // namespace
}  // namespace serverkit
