// -----------------------------------------------------------------------------
// reactor/event_loop.h
// -----------------------------------------------------------------------------
//
// `EventLoop`: one per thread, muduo's design.
//
//   - `loop()` polls (epoll or io_uring, reactor/poller.h), dispatches the
//     ready channels, then runs the pending tasks. It must be called in the
//     thread that constructed the loop, and that thread is the loop's
//     thread for life.
//   - `run_in_loop(f)` runs `f` now when called in the loop thread, else
//     queues it; `queue_in_loop(f)` always queues. Both are thread-safe.
//     Tasks from other threads go through the pluggable `TaskQueue`; tasks
//     queued from the loop thread itself go to a private vector (no lock, no
//     wake-up).
//   - Wake-up: an eventfd. With coalescing on (the default), only the first
//     post after the loop last cleared its flag writes the eventfd; the rest
//     ride on that wake-up.
//   - Timers: `run_after`, `run_every`, `cancel`, through one timerfd.
//
// Memory ordering (coalescing): a poster pushes its task, then exchanges the
// flag to true (acq_rel) and writes the eventfd only if it was false. The loop
// exchanges the flag to false (acq_rel) before it drains the queue, so every
// task whose poster saw `true` was pushed before that exchange and is drained.
//
// Nothing posted is dropped: `loop()` runs what was queued before `quit()`,
// and the destructor runs what was queued after `loop()` returned (objects
// torn down after the loop often post their last clean-up).
//
// Thread-safety: as stated per member. Destroy a loop in its own thread after
// `loop()` returned. `quit()` may race with the loop's end (it is made safe);
// posting tasks to a loop that is being destroyed is a bug in the caller.

#ifndef SERVERKIT_REACTOR_EVENT_LOOP_H_
#define SERVERKIT_REACTOR_EVENT_LOOP_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "reactor/callbacks.h"
#include "reactor/poller.h"
#include "reactor/task_queue.h"
#include "reactor/timer_queue.h"

namespace serverkit::reactor {

class Channel;
class CompletionIo;

// The one way to configure a loop. Servers fill it from their flags at run
// time (components/by_name.h picks every component by name), so a
// compile-time policy type beside it would only repeat these fields.
struct EventLoopOptions {
  // nullptr: a SwapVectorQueue, muduo's choice.
  std::unique_ptr<TaskQueue> task_queue;
  bool coalesce_wakeups = true;
  // epoll, or io_uring (reactor/poller.h; falls back to epoll where
  // io_uring is not permitted).
  PollerBackend backend = DefaultPollerBackend();
  // Over io_uring: connections read and write on readiness or on
  // completion (reactor/poller.h).
  UringIo uring_io = DefaultUringIo();
};

class EventLoop {
 public:
  EventLoop();
  explicit EventLoop(EventLoopOptions options);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // The poller this loop really uses (epoll where io_uring was asked for
  // but is not permitted). Any thread.
  PollerBackend backend() const { return poller_->backend(); }
  // The poller's completion-based reads and sends (reactor/completion_io.h),
  // or null where channels read and write on readiness (epoll, or io_uring
  // with readiness I/O or without provided buffers). Fixed for the loop's
  // life. Any thread.
  CompletionIo* completion_io() const { return completion_io_; }
  // The poller's counts (reactor/poller_stats.h). Loop thread: they are
  // plain integers that the loop writes.
  PollerStats poller_stats() const {
    assert_in_loop_thread();
    return poller_->stats();
  }

  // Runs until `quit()`. Loop thread.
  void loop();
  // Makes `loop()` return after its current iteration. Thread-safe.
  void quit();

  void run_in_loop(Functor f);    // thread-safe
  void queue_in_loop(Functor f);  // thread-safe

  // Timers; thread-safe. The callback runs in the loop thread.
  TimerId run_after(Clock::duration delay, TimerCallback cb);
  TimerId run_every(Clock::duration interval, TimerCallback cb);
  void cancel(TimerId id);

  // Interrupts a blocking poll. Thread-safe.
  void wakeup();

  // Channel registration. Loop thread.
  void update_channel(Channel* channel);
  void remove_channel(Channel* channel);
  bool has_channel(Channel* channel);

  bool is_in_loop_thread() const {
    return thread_id_ == std::this_thread::get_id();
  }
  void assert_in_loop_thread() const;

  std::string_view task_queue_name() const { return tasks_->name(); }
  // Counters, readable from any thread (relaxed).
  std::uint64_t tasks_run() const {
    return tasks_run_.load(std::memory_order_relaxed);
  }
  std::uint64_t wakeups() const {
    return wakeups_.load(std::memory_order_relaxed);
  }
  // Poller returns that had work, and the channel events they handled:
  // events() / busy_polls() is how much one wake-up serves.
  std::uint64_t busy_polls() const {
    return busy_polls_.load(std::memory_order_relaxed);
  }
  std::uint64_t events() const {
    return events_.load(std::memory_order_relaxed);
  }

 private:
  void handle_wakeup_read();
  // Runs one batch of pending tasks; returns how many ran.
  std::size_t run_pending_tasks();

  const std::thread::id thread_id_;
  const bool coalesce_;
  std::atomic<bool> quit_{false};
  std::mutex quit_mu_;  // orders quit()'s eventfd write before the close
  bool running_tasks_ = false;
  std::unique_ptr<Poller> poller_;
  CompletionIo* const completion_io_;  // poller_'s, asked once
  std::unique_ptr<TaskQueue> tasks_;
  std::vector<Functor> local_tasks_;  // queued from the loop thread
  std::vector<Functor> running_;      // the batch being run
  const int wakeup_fd_;
  std::unique_ptr<Channel> wakeup_channel_;
  std::atomic<bool> wakeup_pending_{false};
  std::unique_ptr<TimerQueue> timers_;
  Poller::ChannelList active_;
  std::atomic<std::uint64_t> tasks_run_{0};
  std::atomic<std::uint64_t> wakeups_{0};
  std::atomic<std::uint64_t> busy_polls_{0};  // written by the loop only
  std::atomic<std::uint64_t> events_{0};      // likewise
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_EVENT_LOOP_H_
