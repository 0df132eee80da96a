// -----------------------------------------------------------------------------
// reactor/event_loop_thread_pool.h
// -----------------------------------------------------------------------------
//
// `EventLoopThreadPool`: N threads, each running its own EventLoop (built by
// a factory, so every loop gets the task queue of the server's policy).
// `next_loop()` hands them out round-robin; with zero threads it returns the
// base loop. `start`, `next_loop` and `loops` are called in the base loop's
// thread; the destructor quits and joins every thread.

#ifndef SERVERKIT_REACTOR_EVENT_LOOP_THREAD_POOL_H_
#define SERVERKIT_REACTOR_EVENT_LOOP_THREAD_POOL_H_

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "reactor/event_loop.h"

namespace serverkit::reactor {

class EventLoopThreadPool {
 public:
  using LoopOptionsFactory = std::function<EventLoopOptions()>;

  EventLoopThreadPool(EventLoop* base, int threads, LoopOptionsFactory factory);
  ~EventLoopThreadPool();
  EventLoopThreadPool(const EventLoopThreadPool&) = delete;
  EventLoopThreadPool& operator=(const EventLoopThreadPool&) = delete;

  // Starts the threads; returns once every loop is constructed.
  void start();
  EventLoop* next_loop();
  std::vector<EventLoop*> loops() const;

 private:
  EventLoop* const base_;
  const int threads_;
  LoopOptionsFactory factory_;
  std::vector<std::thread> workers_;
  std::vector<EventLoop*> loops_;
  std::size_t next_ = 0;
};

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_EVENT_LOOP_THREAD_POOL_H_
