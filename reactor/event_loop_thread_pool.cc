#include "reactor/event_loop_thread_pool.h"

#include <condition_variable>
#include <mutex>

namespace serverkit::reactor {

EventLoopThreadPool::EventLoopThreadPool(EventLoop* base, int threads,
                                         LoopOptionsFactory factory)
    : base_(base), threads_(threads), factory_(std::move(factory)) {}

EventLoopThreadPool::~EventLoopThreadPool() {
  for (EventLoop* loop : loops_) loop->quit();
  for (auto& t : workers_) t.join();
}

void EventLoopThreadPool::start() {
  base_->assert_in_loop_thread();
  std::mutex mu;
  std::condition_variable cv;
  std::vector<EventLoop*> started;
  for (int i = 0; i < threads_; ++i) {
    workers_.emplace_back([&, this] {
      EventLoop loop(factory_ ? factory_() : EventLoopOptions{});
      {
        // Notify under the lock: start() owns mu and cv and may return (and
        // destroy them) as soon as it sees this loop.
        std::lock_guard<std::mutex> lock(mu);
        started.push_back(&loop);
        cv.notify_one();
      }
      loop.loop();
    });
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock,
            [&] { return started.size() == static_cast<std::size_t>(i + 1); });
    loops_.push_back(started.back());
  }
}

EventLoop* EventLoopThreadPool::next_loop() {
  base_->assert_in_loop_thread();
  if (loops_.empty()) return base_;
  EventLoop* loop = loops_[next_];
  next_ = (next_ + 1) % loops_.size();
  return loop;
}

std::vector<EventLoop*> EventLoopThreadPool::loops() const {
  return loops_.empty() ? std::vector<EventLoop*>{base_} : loops_;
}

}  // namespace serverkit::reactor
