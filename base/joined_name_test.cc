// JoinedName: the parts in order, no separator added, a '\0' after them, and
// one storage per list of parts.

#include "base/joined_name.h"

#include <cstring>
#include <string_view>

#include "gtest/gtest.h"

namespace serverkit {
namespace {

inline constexpr std::string_view kQueue = "queue-";
inline constexpr std::string_view kMoodycamel = "moodycamel";
inline constexpr std::string_view kDash = "-";
inline constexpr std::string_view kEmpty = "";

static_assert(JoinedName<kQueue, kMoodycamel>::value == "queue-moodycamel");
static_assert(JoinedName<kQueue, kMoodycamel, kDash, kQueue>::value ==
              "queue-moodycamel-queue-");
static_assert(JoinedName<kMoodycamel>::value == kMoodycamel);
static_assert(JoinedName<kEmpty, kEmpty>::value.empty());
static_assert(JoinedName<>::value.empty());

TEST(JoinedNameTest, IsAlsoACString) {
  constexpr std::string_view joined = JoinedName<kQueue, kMoodycamel>::value;
  EXPECT_EQ(std::strlen(joined.data()), joined.size());
  EXPECT_STREQ(joined.data(), "queue-moodycamel");
}

TEST(JoinedNameTest, OneStoragePerListOfParts) {
  EXPECT_EQ((JoinedName<kQueue, kMoodycamel>::value.data()),
            (JoinedName<kQueue, kMoodycamel>::value.data()));
  EXPECT_NE((JoinedName<kQueue, kMoodycamel>::value.data()),
            (JoinedName<kMoodycamel, kQueue>::value.data()));
}

}  // namespace
}  // namespace serverkit
