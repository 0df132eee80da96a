// -----------------------------------------------------------------------------
// queues/all_queues.h
// -----------------------------------------------------------------------------
//
// The type list of every queue. Typed tests and the benchmark sweep iterate
// it: adding a queue is a header, its target, a dep and a line below (the
// README's "Adding an implementation").
//
// Entries are queue *templates* (wrapped in `QueueTemplate`) so each test can
// instantiate them with its own element type (ints, move-only values,
// lifetime-tracking objects).

#ifndef SERVERKIT_QUEUES_ALL_QUEUES_H_
#define SERVERKIT_QUEUES_ALL_QUEUES_H_

#include "base/type_list.h"
#include "queues/atomic_queue_queues.h"
#include "queues/boost_lockfree_queues.h"
#include "queues/bounded_mpmc_queue.h"
#include "queues/moodycamel_queues.h"
#include "queues/mutex_queue.h"
#include "queues/sharded_mpmc_queue.h"
#include "queues/spsc_ring_queue.h"
#include "queues/swap_vector_queue.h"
#include "queues/tbb_queues.h"

namespace serverkit {

template <template <typename> class Q>
struct QueueTemplate {
  template <typename T>
  using Of = Q<T>;
};

// The reference (mutex) comes first: tests report it first.
using AllQueues = TypeList<                  //
    QueueTemplate<MutexQueue>,               //
    QueueTemplate<SwapVectorQueue>,          //
    QueueTemplate<BoundedMpmcQueue>,         //
    QueueTemplate<ShardedMpmcQueue>,         //
    QueueTemplate<SpscRingQueue>,            //
    QueueTemplate<BoostLockfreeQueue>,       //
    QueueTemplate<BoostSpscQueue>,           //
    QueueTemplate<MoodycamelQueue>,          //
    QueueTemplate<MoodycamelTokenQueue>,     //
    QueueTemplate<MoodycamelBlockingQueue>,  //
    QueueTemplate<ReaderWriterQueue>,        //
    QueueTemplate<AtomicQueue2>,             //
    QueueTemplate<OptimistAtomicQueue2>,     //
    QueueTemplate<TbbQueue>,                 //
    QueueTemplate<TbbBoundedQueue>>;

}  // namespace serverkit

#endif  // SERVERKIT_QUEUES_ALL_QUEUES_H_
