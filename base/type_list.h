// -----------------------------------------------------------------------------
// base/type_list.h
// -----------------------------------------------------------------------------
//
// The type list every family's "all implementations" header is written in
// (`AllQueues`, `AllPools`, `AllLoggers`, `AllBuffers`), and `ApplyTypes`,
// which turns one into another variadic template, e.g. gtest's
// `::testing::Types` for a typed test suite:
//
//   TYPED_TEST_SUITE(QueueTest, ApplyTypes<::testing::Types, AllQueues>, ...);

#ifndef SERVERKIT_BASE_TYPE_LIST_H_
#define SERVERKIT_BASE_TYPE_LIST_H_

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
}  // namespace base_internal

// `ApplyTypes<To, TypeList<A, B>>` is `To<A, B>`.
template <template <typename...> class To, typename L>
using ApplyTypes = typename base_internal::ApplyTypes<To, L>::type;

}  // namespace serverkit

#endif  // SERVERKIT_BASE_TYPE_LIST_H_
