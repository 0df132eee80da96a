// -----------------------------------------------------------------------------
// reactor/timer_queue.h
// -----------------------------------------------------------------------------
//
// `TimerQueue`: the loop's timers behind one timerfd, armed for the earliest
// expiry. The bookkeeping (what is due, in which order, re-arming periodic
// timers, cancelling from a callback) is `TimerList` (reactor/timer_list.h);
// this class adds the descriptor and the clock. Owned by its EventLoop; every
// member runs in the loop thread (EventLoop's public timer calls hop there
// with run_in_loop).

#ifndef SERVERKIT_REACTOR_TIMER_QUEUE_H_
#define SERVERKIT_REACTOR_TIMER_QUEUE_H_

#include <memory>

#include "reactor/callbacks.h"
#include "reactor/timer_list.h"

namespace serverkit::reactor {

class Channel;
class EventLoop;

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
  void handle_read();
  void arm();

  EventLoop* const loop_;
  const int timer_fd_;
  std::unique_ptr<Channel> channel_;
  TimerList timers_;
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_TIMER_QUEUE_H_
