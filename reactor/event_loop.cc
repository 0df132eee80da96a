#include "reactor/event_loop.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "queues/swap_vector_queue.h"
#include "reactor/channel.h"
#include "reactor/internal/report_errno.h"

namespace serverkit::reactor {
namespace {

constexpr int kPollTimeoutMs = 10'000;
// Tasks run per loop iteration at most, so a flood of posts cannot starve I/O.
constexpr std::size_t kMaxTasksPerIteration = 4096;

std::atomic<TimerId> g_next_timer_id{1};

int CreateEventFd() {
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) {
    reactor_internal::ReportErrno("reactor: eventfd failed");
    std::abort();
  }
  return fd;
}

}  // namespace

EventLoop::EventLoop() : EventLoop(EventLoopOptions{}) {}

EventLoop::EventLoop(EventLoopOptions options)
    : thread_id_(std::this_thread::get_id()),
      coalesce_(options.coalesce_wakeups),
      poller_(NewPoller(this, options.backend, options.uring_io)),
      completion_io_(poller_->completion_io()),
      tasks_(options.task_queue ? std::move(options.task_queue)
                                : MakeTaskQueue<SwapVectorQueue>()),
      wakeup_fd_(CreateEventFd()),
      wakeup_channel_(std::make_unique<Channel>(this, wakeup_fd_)) {
  wakeup_channel_->set_read_callback(
      [this](Clock::time_point) { handle_wakeup_read(); });
  wakeup_channel_->enable_reading();
  timers_ = std::make_unique<TimerQueue>(this);
}

EventLoop::~EventLoop() {
  assert_in_loop_thread();
  // Bounded, in case tasks keep queueing tasks.
  for (int round = 0; round < 100 && run_pending_tasks() > 0; ++round) {
  }
  timers_.reset();
  wakeup_channel_->disable_all();
  wakeup_channel_->remove();
  // A quit() from another thread may still be writing the eventfd: the loop
  // can see `quit_` and return before that write. Wait for it to finish.
  std::lock_guard<std::mutex> lock(quit_mu_);
  ::close(wakeup_fd_);
}

void EventLoop::assert_in_loop_thread() const {
  if (!is_in_loop_thread()) {
    std::fprintf(stderr,
                 "reactor: EventLoop used outside its thread (a bug in the "
                 "caller: this member must be called in the loop thread)\n");
    std::abort();
  }
}

void EventLoop::loop() {
  assert_in_loop_thread();
  while (!quit_.load(std::memory_order_acquire)) {
    active_.clear();
    const auto now = poller_->poll(kPollTimeoutMs, &active_);
    if (!active_.empty()) {
      // One writer: a load and a store, no read-modify-write.
      constexpr auto r = std::memory_order_relaxed;
      busy_polls_.store(busy_polls_.load(r) + 1, r);
      events_.store(events_.load(r) + active_.size(), r);
    }
    for (Channel* channel : active_) channel->handle_event(now);
    run_pending_tasks();
  }
  // Run what was queued before quit(), so no posted task is silently lost.
  run_pending_tasks();
}

void EventLoop::quit() {
  std::lock_guard<std::mutex> lock(quit_mu_);  // see ~EventLoop
  quit_.store(true, std::memory_order_release);
  if (!is_in_loop_thread()) {
    // Force the write even with coalescing: the loop may be asleep with the
    // flag set by a post it has not yet drained.
    const std::uint64_t one = 1;
    if (::write(wakeup_fd_, &one, sizeof(one)) < 0 && errno != EAGAIN) {
      reactor_internal::ReportErrno("reactor: eventfd write failed");
    }
  }
}

void EventLoop::run_in_loop(Functor f) {
  if (is_in_loop_thread()) {
    f();
  } else {
    queue_in_loop(std::move(f));
  }
}

void EventLoop::queue_in_loop(Functor f) {
  if (is_in_loop_thread()) {
    local_tasks_.push_back(std::move(f));
    // Queued while running tasks: make sure the next poll does not block.
    if (running_tasks_) wakeup();
    return;
  }
  tasks_->push(std::move(f));
  wakeup();
}

void EventLoop::wakeup() {
  if (coalesce_ && wakeup_pending_.exchange(true, std::memory_order_acq_rel)) {
    return;  // a wake-up is already on its way
  }
  const std::uint64_t one = 1;
  if (::write(wakeup_fd_, &one, sizeof(one)) < 0 && errno != EAGAIN) {
    reactor_internal::ReportErrno("reactor: eventfd write failed");
  }
}

void EventLoop::handle_wakeup_read() {
  std::uint64_t n;
  if (::read(wakeup_fd_, &n, sizeof(n)) == sizeof(n)) {
    wakeups_.fetch_add(1, std::memory_order_relaxed);
  }
}

std::size_t EventLoop::run_pending_tasks() {
  if (coalesce_) wakeup_pending_.exchange(false, std::memory_order_acq_rel);
  running_tasks_ = true;
  running_.clear();
  running_.swap(local_tasks_);
  Functor task;
  while (running_.size() < kMaxTasksPerIteration && tasks_->try_pop(task)) {
    running_.push_back(std::move(task));
  }
  const bool more = running_.size() >= kMaxTasksPerIteration;
  for (Functor& f : running_) f();
  const std::size_t ran = running_.size();
  tasks_run_.fetch_add(ran, std::memory_order_relaxed);
  running_.clear();
  running_tasks_ = false;
  if (more) wakeup();  // the queue may hold more: do not block in the next poll
  return ran;
}

TimerId EventLoop::run_after(Clock::duration delay, TimerCallback cb) {
  const TimerId id = g_next_timer_id.fetch_add(1, std::memory_order_relaxed);
  const auto when = Clock::now() + delay;
  run_in_loop([this, id, when, cb = std::move(cb)]() mutable {
    timers_->add(id, when, Clock::duration::zero(), std::move(cb));
  });
  return id;
}

TimerId EventLoop::run_every(Clock::duration interval, TimerCallback cb) {
  const TimerId id = g_next_timer_id.fetch_add(1, std::memory_order_relaxed);
  const auto when = Clock::now() + interval;
  run_in_loop([this, id, when, interval, cb = std::move(cb)]() mutable {
    timers_->add(id, when, interval, std::move(cb));
  });
  return id;
}

void EventLoop::cancel(TimerId id) {
  run_in_loop([this, id] { timers_->cancel(id); });
}

void EventLoop::update_channel(Channel* channel) {
  assert_in_loop_thread();
  poller_->update_channel(channel);
}

void EventLoop::remove_channel(Channel* channel) {
  assert_in_loop_thread();
  poller_->remove_channel(channel);
}

bool EventLoop::has_channel(Channel* channel) {
  assert_in_loop_thread();
  return poller_->has_channel(channel);
}

}  // namespace serverkit::reactor
