// -----------------------------------------------------------------------------
// build/fuzz/allocations.h
// -----------------------------------------------------------------------------
//
// What a piece of code allocates, for the codec targets' oracle "no length
// field makes it allocate more than the limit". Linking //build/fuzz:
// allocations replaces the global operator new and delete (over malloc and
// free, so ASan still checks the memory beneath) in the whole binary; it
// links and counts under clang's ASan + libFuzzer build and under the plain
// gcc replay test alike.
//
//   fuzz::AllocationCount count;   // counts from here...
//   Decode(...);
//   count.stop();                  // ...to here
//   SK_FUZZ_CHECK(count.largest() <= limit, ...);
//
// Thread-safety: one counter at a time, in one thread (a fuzz target's).

#ifndef SERVERKIT_BUILD_FUZZ_ALLOCATIONS_H_
#define SERVERKIT_BUILD_FUZZ_ALLOCATIONS_H_

#include <cstddef>

namespace serverkit::fuzz {

// Requests this small never count against a limit: a buffer may reserve()
// a short string, and libstdc++ then gives it at least twice the 15 bytes
// it holds inline (31 with the terminator).
inline constexpr std::size_t kSmallAllocation = 64;

// Counts the allocations from its construction to stop() (or its end).
class AllocationCount {
 public:
  AllocationCount();
  ~AllocationCount() { stop(); }
  AllocationCount(const AllocationCount&) = delete;
  AllocationCount& operator=(const AllocationCount&) = delete;

  void stop();
  std::size_t allocations() const;
  // The largest single request, in bytes.
  std::size_t largest() const;
};

}  // namespace serverkit::fuzz

#endif  // SERVERKIT_BUILD_FUZZ_ALLOCATIONS_H_
