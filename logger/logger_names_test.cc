// Every entry of AllLoggers has a kName of its own: a clash is named with both
// types here, rather than as gtest's "must use the same test fixture class"
// in the typed tests (base/name_clashes.h).

#include <string>

#include "base/name_clashes.h"
#include "gtest/gtest.h"
#include "logger/all_loggers.h"

namespace serverkit {
namespace {

TEST(FamilyNamesTest, EveryKNameIsItsOwn) {
  const auto clashes = NameClashes(AllLoggers{}, [](auto t) {
    using E = typename decltype(t)::type;
    return std::string(E::kName);
  });
  for (const auto& c : clashes) ADD_FAILURE() << c;
}

}  // namespace
}  // namespace serverkit
