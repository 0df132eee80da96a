// ThreadSanitizer suppressions for third-party code, linked into the tests of
// queues, threadpool, logger, buffer and reactor (TSan reads this hook at
// start-up; it is unused in other builds).
//
// Each entry names the upstream reason. Our own code gets no suppressions.

extern "C" const char* __tsan_default_suppressions();

extern "C" const char* __tsan_default_suppressions() {
  return
      // Boost.Lockfree's free list reads a node's tagged `next` pointer with a
      // plain load while another thread may be recycling the node; the ABA tag
      // and the following CAS make the stale value harmless. TSan cannot see
      // that (a long-known report against boost::lockfree).
      "race:boost::lockfree::detail::freelist_stack\n"
      "race:boost::lockfree::detail::tagged_ptr\n"
      // Boost.Lockfree's queue::pop copies the head's successor's payload
      // before the CAS that claims that node (Michael and Scott's queue does
      // the same): a pop that was overtaken reads a node that another thread
      // has recycled and is filling, and then its CAS fails and the copy is
      // dropped. Seen once in CI's TSan run of queue_test (boost-lockfree,
      // BlockingManyProducersManyConsumers).
      "race:boost::lockfree::detail::copy_convertible\n"
      "race:boost::lockfree::detail::copy_constructible_and_copyable\n"
      // moodycamel's queues order element accesses with standalone fences,
      // which TSan does not model; the maintainer's answer to the reports
      // (cameron314/concurrentqueue issues 49, 62, 254; readerwriterqueue
      // issue 116) is that these are false positives.
      "race:moodycamel::\n"
      // oneTBB recycles queue pages through its own allocator inside the
      // uninstrumented libtbb.so, so TSan sees a page freed by a consumer and
      // reused by a producer as a race (oneTBB must itself be built with TSan
      // to be checked).
      "race:tbb::detail::\n"
      // The same recycling seen from the other side: a TBB task object
      // zeroed (memset) inside libtbb.so by one submitter on memory another
      // submitter's task used before TBB's allocator recycled it. The frame
      // has no symbol (libtbb.so is stripped), so only the module can name
      // it; seen in 3 of 40 TSan runs of threadpool_test (TbbPool,
      // DiscardRacingSubmitters).
      "race:libtbb.so\n";
}
