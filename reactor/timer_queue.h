// -----------------------------------------------------------------------------
// reactor/timer_queue.h
// -----------------------------------------------------------------------------
//
// `TimerQueue`: the loop's timers behind one timerfd, armed for the earliest
// expiry. Owned by its EventLoop; every member runs in the loop thread
// (EventLoop's public timer calls hop there with run_in_loop).

#ifndef SERVERKIT_REACTOR_TIMER_QUEUE_H_
#define SERVERKIT_REACTOR_TIMER_QUEUE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "reactor/callbacks.h"

namespace serverkit::reactor {

class Channel;
class EventLoop;

// Identifies a timer for `cancel`. 0 is never a valid id.
using TimerId = std::uint64_t;

class TimerQueue {
 public:
  explicit TimerQueue(EventLoop* loop);
  ~TimerQueue();
  TimerQueue(const TimerQueue&) = delete;
  TimerQueue& operator=(const TimerQueue&) = delete;

  void add(TimerId id, Clock::time_point when, Clock::duration interval,
           TimerCallback cb);
  void cancel(TimerId id);

 private:
  struct Timer {
    TimerCallback cb;
    Clock::duration interval;  // zero: one-shot
  };

  void handle_read();
  void arm();

  EventLoop* const loop_;
  const int timer_fd_;
  std::unique_ptr<Channel> channel_;
  std::multimap<Clock::time_point, std::pair<TimerId, std::shared_ptr<Timer>>>
      by_time_;
  std::map<TimerId, Clock::time_point> active_;
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_TIMER_QUEUE_H_
