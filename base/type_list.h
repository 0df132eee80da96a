// -----------------------------------------------------------------------------
// base/type_list.h
// -----------------------------------------------------------------------------
//
// The type list every family's "all implementations" header is written in
// (`AllQueues`, `AllPools`, `AllLoggers`, `AllBuffers`), and what is done with
// one:
//
//   - `ApplyTypes<To, L>` turns it into another variadic template, e.g.
//     gtest's `::testing::Types` for a typed test suite:
//       TYPED_TEST_SUITE(QueueTest,
//                        ApplyTypes<::testing::Types, AllQueues>, ...);
//   - `Contains<L, T>::value`: whether `T` is one of `L`'s types.
//   - `Concat<L1, L2, ...>`: the lists one after the other.
//   - `Without<L, M>`: `L`'s types that are not in `M`, in `L`'s order.

#ifndef SERVERKIT_BASE_TYPE_LIST_H_
#define SERVERKIT_BASE_TYPE_LIST_H_

#include <type_traits>

namespace serverkit {

template <typename... Ts>
struct TypeList {};

namespace base_internal {
template <template <typename...> class To, typename L>
struct ApplyTypes;
template <template <typename...> class To, typename... Ts>
struct ApplyTypes<To, TypeList<Ts...>> {
  using type = To<Ts...>;
};

template <typename... Ls>
struct Concat;
template <>
struct Concat<> {
  using type = TypeList<>;
};
template <typename... As>
struct Concat<TypeList<As...>> {
  using type = TypeList<As...>;
};
template <typename... As, typename... Bs, typename... Rest>
struct Concat<TypeList<As...>, TypeList<Bs...>, Rest...> {
  using type = typename Concat<TypeList<As..., Bs...>, Rest...>::type;
};
}  // namespace base_internal

// `ApplyTypes<To, TypeList<A, B>>` is `To<A, B>`.
template <template <typename...> class To, typename L>
using ApplyTypes = typename base_internal::ApplyTypes<To, L>::type;

// `Contains<TypeList<A, B>, B>::value` is true.
template <typename L, typename T>
struct Contains;
template <typename... Ts, typename T>
struct Contains<TypeList<Ts...>, T>
    : std::bool_constant<(std::is_same_v<T, Ts> || ...)> {};

// `Concat<TypeList<A>, TypeList<B, C>>` is `TypeList<A, B, C>`; `Concat<>` is
// `TypeList<>`.
template <typename... Ls>
using Concat = typename base_internal::Concat<Ls...>::type;

namespace base_internal {
template <typename L, typename M>
struct Without;
template <typename... Ts, typename M>
struct Without<TypeList<Ts...>, M> {
  using type = serverkit::Concat<
      std::conditional_t<Contains<M, Ts>::value, TypeList<>, TypeList<Ts>>...>;
};
}  // namespace base_internal

// `Without<TypeList<A, B, C>, TypeList<B>>` is `TypeList<A, C>`.
template <typename L, typename M>
using Without = typename base_internal::Without<L, M>::type;

}  // namespace serverkit

#endif  // SERVERKIT_BASE_TYPE_LIST_H_
