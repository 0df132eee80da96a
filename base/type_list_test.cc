// The type-list operations, checked at compile time; the test binary has one
// runtime test so that it reports something.

#include "base/type_list.h"

#include <tuple>
#include <type_traits>

#include "gtest/gtest.h"

namespace serverkit {
namespace {

struct A {};
struct B {};
struct C {};

static_assert(
    std::is_same_v<ApplyTypes<std::tuple, TypeList<A, B>>, std::tuple<A, B>>);
static_assert(std::is_same_v<ApplyTypes<std::tuple, TypeList<>>, std::tuple<>>);

static_assert(Contains<TypeList<A, B>, B>::value);
static_assert(!Contains<TypeList<A, B>, C>::value);
static_assert(!Contains<TypeList<>, A>::value);
static_assert(!Contains<TypeList<A>, const A>::value);

static_assert(std::is_same_v<Concat<>, TypeList<>>);
static_assert(std::is_same_v<Concat<TypeList<A>>, TypeList<A>>);
static_assert(std::is_same_v<Concat<TypeList<A>, TypeList<>, TypeList<B, C>>,
                             TypeList<A, B, C>>);
static_assert(
    std::is_same_v<Concat<TypeList<A, A>, TypeList<A>>, TypeList<A, A, A>>);

static_assert(
    std::is_same_v<Without<TypeList<A, B, C>, TypeList<B>>, TypeList<A, C>>);
static_assert(
    std::is_same_v<Without<TypeList<C, B, A>, TypeList<A, C>>, TypeList<B>>);
static_assert(
    std::is_same_v<Without<TypeList<A, B>, TypeList<>>, TypeList<A, B>>);
static_assert(
    std::is_same_v<Without<TypeList<A, B>, TypeList<A, B>>, TypeList<>>);

TEST(TypeListTest, AnEmptyListAppliesToAnEmptyTuple) {
  using Empty = ApplyTypes<std::tuple, TypeList<>>;
  EXPECT_EQ(std::tuple_size_v<Empty>, 0u);
}

}  // namespace
}  // namespace serverkit
