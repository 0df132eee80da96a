// -----------------------------------------------------------------------------
// reactor/timer_list.h
// -----------------------------------------------------------------------------
//
// `TimerList`: the loop's timer bookkeeping without a clock or a descriptor.
// `TimerQueue` (reactor/timer_queue.h) owns one and arms its timerfd for
// `earliest()`; the fuzz target (reactor/timer_fuzz.cc) and
// reactor/timer_list_test.cc drive one with a fake clock.
//
//   - `add(id, when, interval, cb)`: a timer due at `when`; `interval` zero
//     is one-shot, otherwise it fires again every `interval`. `id` must not
//     name a live timer (the loop hands out fresh ids).
//   - `cancel(id)`: the timer does not fire again. An id that is unknown, or
//     whose one-shot timer already fired, is a no-op. Safe from a callback,
//     for any timer, the running one included.
//   - `expire(now)`: fires every timer due at `now` (when <= now), in order
//     of `when`, equal times in the order they were added. Which timers are
//     due is decided once, on entry: a timer a callback adds fires at a later
//     `expire` even if it is already due, and a due timer that an earlier
//     callback of the same round cancels does not fire. A periodic timer is
//     re-armed at `now + interval` just before its callback runs (so the
//     callback can cancel it) and goes behind every timer already at that
//     time.
//   - `earliest()`: the time of the next timer due, if any.
//
// Thread-safety: thread-compatible; the loop calls it from its own thread.

#ifndef SERVERKIT_REACTOR_TIMER_LIST_H_
#define SERVERKIT_REACTOR_TIMER_LIST_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>

#include "reactor/callbacks.h"

namespace serverkit::reactor {

// Identifies a timer for `cancel`. 0 is never a valid id.
using TimerId = std::uint64_t;

class TimerList {
 public:
  TimerList() = default;
  TimerList(const TimerList&) = delete;
  TimerList& operator=(const TimerList&) = delete;

  void add(TimerId id, Clock::time_point when, Clock::duration interval,
           TimerCallback cb);
  void cancel(TimerId id);
  void expire(Clock::time_point now);
  std::optional<Clock::time_point> earliest() const;

  // Live timers (armed, not cancelled, one-shots not yet fired).
  std::size_t size() const { return active_.size(); }

 private:
  struct Timer {
    TimerCallback cb;
    Clock::duration interval;  // zero: one-shot
  };

  // By time; equal times keep insertion order (multimap inserts at the end
  // of an equal range).
  std::multimap<Clock::time_point, std::pair<TimerId, std::shared_ptr<Timer>>>
      by_time_;
  std::map<TimerId, Clock::time_point> active_;
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_TIMER_LIST_H_
