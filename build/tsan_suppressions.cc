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
