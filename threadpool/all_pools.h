// -----------------------------------------------------------------------------
// threadpool/all_pools.h
// -----------------------------------------------------------------------------
//
// The type lists of pools. Typed tests and the pool sweep iterate them:
// adding a pool is a header, its target, a dep and a line below (the
// README's "Adding an implementation").
//
//   - `AllPools`: every pool design, the reference (`MutexPool`) first, with
//     `QueuePool` over a few queues of different kinds: our bounded ring
//     (submitters block when full), moodycamel (unbounded, the usual winner of
//     the queue sweep's task-posting scenario) and the mutex queue (the
//     queue-side reference, so the pool sweep shows what the queue is worth).
//   - `AllQueuePools`: `QueuePool` over every queue in queues/all_queues.h
//     that allows many producers and many consumers. `SkippedQueues()` names
//     the others and why.
//
// Entries are executor types (`QueuePool<MoodycamelQueue<Task>>`), unlike
// `AllQueues`, whose entries are templates.

#ifndef SERVERKIT_THREADPOOL_ALL_POOLS_H_
#define SERVERKIT_THREADPOOL_ALL_POOLS_H_

#include <string>
#include <string_view>
#include <vector>

#include "base/type_list.h"
#include "queues/all_queues.h"
#include "threadpool/asio_pool.h"
#include "threadpool/executor.h"
#include "threadpool/mutex_pool.h"
#include "threadpool/queue_pool.h"
#include "threadpool/rvaser_pool.h"
#include "threadpool/task.h"
#include "threadpool/tbb_pool.h"
#include "threadpool/work_stealing_pool.h"

namespace serverkit {

using AllPools = TypeList<              //
    MutexPool,                          //
    QueuePool<MutexQueue<Task>>,        //
    QueuePool<BoundedMpmcQueue<Task>>,  //
    QueuePool<MoodycamelQueue<Task>>,   //
    WorkStealingPool,                   //
    AsioPool,                           //
    TbbPool,                            //
    RvaserPool>;

namespace threadpool_internal {

// TypeList<QueuePool<Q>> when a pool can use Q, else TypeList<> (without
// naming QueuePool<Q>, whose constraint would fail).
template <typename Q, bool = PoolQueue<Q>>
struct PoolOver {
  using type = TypeList<>;
};
template <typename Q>
struct PoolOver<Q, true> {
  using type = TypeList<QueuePool<Q>>;
};

template <typename L>
struct QueuePoolsOf;
template <typename... Fs>
struct QueuePoolsOf<TypeList<Fs...>> {
  using type =
      Concat<typename PoolOver<typename Fs::template Of<Task>>::type...>;
};

template <typename L>
struct SkippedOf;
template <typename... Fs>
struct SkippedOf<TypeList<Fs...>> {
  static std::vector<std::string> Names() {
    std::vector<std::string> out;
    (
        [&] {
          using Q = typename Fs::template Of<Task>;
          if constexpr (!PoolQueue<Q>) {
            out.push_back(std::string(Q::kName) + " (" +
                          std::string(TopologyName(Q::kTopology)) + ")");
          }
        }(),
        ...);
    return out;
  }
};

template <typename L>
struct AllExecutors;
template <typename... Es>
struct AllExecutors<TypeList<Es...>> {
  static constexpr bool value = (Executor<Es> && ...);
};

}  // namespace threadpool_internal

using AllQueuePools =
    typename threadpool_internal::QueuePoolsOf<AllQueues>::type;

// Queues of AllQueues that no pool can use, with their topology: a pool has
// many submitters and many workers, so it needs an MPMC queue.
inline std::vector<std::string> SkippedQueues() {
  return threadpool_internal::SkippedOf<AllQueues>::Names();
}

static_assert(threadpool_internal::AllExecutors<AllPools>::value);
static_assert(threadpool_internal::AllExecutors<AllQueuePools>::value);

}  // namespace serverkit

#endif  // SERVERKIT_THREADPOOL_ALL_POOLS_H_
