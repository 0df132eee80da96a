// ThreadSanitizer suppressions for third-party code, linked into the tests of
// queues, threadpool, logger, buffer and reactor (TSan reads this hook at
// start-up; it is unused in other builds).
//
// Each entry names the upstream reason. Our own code gets no suppressions, so
// every entry matches only a frame that is third-party code itself:
//
//   - `race_top:` entries. A `race:` entry matches any frame of any stack of
//     a report, thread-creation stacks included, so it also hides a race in
//     our code that a third-party frame calls: a task a TBB worker runs, an
//     element's move inside a queue's push or pop. `race_top:` looks at the
//     top frame of each stack only. Most name the library's header directory
//     rather than a function: the file of an inlined frame is always known,
//     while its function name comes out unqualified when a type with internal
//     linkage is involved. Still, a race between our code and an access the
//     library makes itself (say its inlined copy of a trivially copyable
//     element) is hidden: one matching stack suppresses the whole report.
//   - `race:` only for a third-party file whose code never calls ours, so
//     its frame can only sit at the top of a stack, under nothing but the
//     inlined std::atomic member that made the access.
//   - `called_from_lib:` for uninstrumented libraries: TSan ignores the memory
//     accesses of the interceptors (memset, ...) they call; our code that
//     they call back is still checked.
//
// build/tsan_mutants/ holds races in our code reached through a TBB worker
// and through a moodycamel queue; its tests fail if these entries hide them.

extern "C" const char* __tsan_default_suppressions();

extern "C" const char* __tsan_default_suppressions() {
  return
      // Boost.Lockfree's free list reads a node's tagged `next` pointer with a
      // plain load while another thread may be recycling the node; the ABA tag
      // and the following CAS make the stale value harmless. TSan cannot see
      // that (a long-known report against boost::lockfree). The access is in
      // the free list or the tagged pointer, or is a std::atomic member
      // inlined on the tagged pointer type, which only Boost uses.
      "race_top:^/usr/include/boost/lockfree/detail/freelist.hpp\n"
      "race_top:^/usr/include/boost/lockfree/detail/tagged_ptr\n"
      "race_top:^std::atomic<boost::lockfree::detail::tagged_ptr<\n"
      // Boost.Lockfree's queue::pop copies the head's successor's payload
      // before the CAS that claims that node (Michael and Scott's queue does
      // the same): a pop that was overtaken reads a node that another thread
      // has recycled and is filling, and then its CAS fails and the copy is
      // dropped. Seen once in CI's TSan run of queue_test (boost-lockfree,
      // BlockingManyProducersManyConsumers). The payload is trivially
      // copyable (Boost requires it), so both accesses are Boost's: the copy
      // (copy_payload.hpp) and the node's constructor (queue.hpp).
      "race_top:^/usr/include/boost/lockfree/detail/copy_payload.hpp\n"
      "race_top:^/usr/include/boost/lockfree/queue.hpp\n"
      // moodycamel's queues order element accesses with standalone fences,
      // which TSan does not model; the maintainer's answer to the reports
      // (cameron314/concurrentqueue issues 49, 62, 254; readerwriterqueue
      // issue 116) is that these are false positives. ReaderWriterQueue's
      // indices are weak_atomic (atomicops.h), whose loads are std::atomic
      // members inlined at the top of the stack; atomicops.h calls no code
      // of ours. When the queue moves an element type of ours, that type's
      // frame is on top and nothing here matches it.
      "race_top:^/usr/include/concurrentqueue/\n"
      "race_top:^/usr/include/readerwriterqueue/\n"
      "race:^/usr/include/readerwriterqueue/atomicops.h\n"
      // oneTBB recycles queue pages through its own allocator inside the
      // uninstrumented libtbb.so, so TSan sees a page freed by a consumer and
      // reused by a producer as a race (oneTBB must itself be built with TSan
      // to be checked). Only oneTBB's own header code at the top of a stack
      // is matched; our code under a TBB frame (an element's move, a task)
      // is not.
      "race_top:^/usr/include/oneapi/tbb/\n"
      // The same recycling seen from the other side: a TBB task object
      // zeroed (memset) inside libtbb.so by one submitter on memory another
      // submitter's task used before TBB's allocator recycled it. The frame
      // has no symbol (libtbb.so is stripped), so only the module can name
      // it; seen in 3 of 40 TSan runs of threadpool_test (TbbPool,
      // DiscardRacingSubmitters). The memset's top frame is TSan's
      // interceptor, so the library is named as the interceptor's caller.
      "called_from_lib:libtbb.so\n";
}
