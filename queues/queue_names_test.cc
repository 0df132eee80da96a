// Every entry of AllQueues has a kName of its own: a clash is named with both
// types here, rather than as gtest's "must use the same test fixture class"
// in the typed tests (base/name_clashes.h).

#include <string>

#include "base/name_clashes.h"
#include "gtest/gtest.h"
#include "queues/all_queues.h"

namespace serverkit {
namespace {

TEST(FamilyNamesTest, EveryKNameIsItsOwn) {
  const auto clashes = NameClashes(AllQueues{}, [](auto t) {
    using E = typename decltype(t)::type;
    return std::string(E::template Of<int>::kName);
  });
  for (const auto& c : clashes) ADD_FAILURE() << c;
}

}  // namespace
}  // namespace serverkit
