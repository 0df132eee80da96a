// Every entry of AllBuffers has a kName of its own: a clash is named with both
// types here, rather than as gtest's "must use the same test fixture class"
// in the typed tests (base/name_clashes.h).

#include <string>

#include "base/name_clashes.h"
#include "buffer/all_buffers.h"
#include "gtest/gtest.h"

namespace serverkit {
namespace {

TEST(FamilyNamesTest, EveryKNameIsItsOwn) {
  const auto clashes = NameClashes(AllBuffers{}, [](auto t) {
    using E = typename decltype(t)::type;
    return std::string(E::kName);
  });
  for (const auto& c : clashes) ADD_FAILURE() << c;
}

}  // namespace
}  // namespace serverkit
