// -----------------------------------------------------------------------------
// base/futex.h
// -----------------------------------------------------------------------------
//
// The futex system call on a 32-bit atomic word, for the project's own waits
// (queues/wait_strategy.h's FutexWait, BoundedMpmcQueue's park). Not
// std::atomic::wait: libstdc++ 12 skips the futex wake when its shared waiter
// count reads 0, and that read is not ordered after a release store of the
// value (docs/components.md, "The lost wake-up").
//
// A caller pairs them the usual way: the waiter reads the word, re-tests its
// condition, then calls FutexWaitWord with the value it read (the kernel
// sleeps only if the word still holds it); the notifier changes the word
// (with a seq_cst read-modify-write) and then calls FutexWakeWord.
//
// Thread-safety: thread-safe.

#ifndef SERVERKIT_BASE_FUTEX_H_
#define SERVERKIT_BASE_FUTEX_H_

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

namespace serverkit {

// An atomic of the futex word's size and layout (lock-free, as folly and
// abseil use it).
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);

// Sleeps while `*word == expected`, for at most `timeout_ns` (< 0: no limit).
// Returns false only when the timeout passed; a wake, a changed word or a
// signal return true, and the caller re-tests its condition either way.
inline bool FutexWaitWord(std::atomic<std::uint32_t>* word,
                          std::uint32_t expected, long timeout_ns = -1) {
  timespec t{timeout_ns / 1000000000L, timeout_ns % 1000000000L};
  const long rc = ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word),
                            FUTEX_WAIT_PRIVATE, expected,
                            timeout_ns < 0 ? nullptr : &t, nullptr, 0);
  return !(rc != 0 && errno == ETIMEDOUT);
}

// Wakes up to `count` threads sleeping on `word` (INT32_MAX: all).
inline void FutexWakeWord(std::atomic<std::uint32_t>* word, int count) {
  ::syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word),
            FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

}  // namespace serverkit

#endif  // SERVERKIT_BASE_FUTEX_H_
