#include "reactor/timer_queue.h"

#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "reactor/channel.h"
#include "reactor/event_loop.h"
#include "reactor/internal/report_errno.h"

namespace serverkit::reactor {

TimerQueue::TimerQueue(EventLoop* loop)
    : loop_(loop),
      timer_fd_(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) {
  if (timer_fd_ < 0) {
    reactor_internal::ReportErrno("reactor: timerfd_create failed");
    std::abort();
  }
  channel_ = std::make_unique<Channel>(loop, timer_fd_);
  channel_->set_read_callback([this](Clock::time_point) { handle_read(); });
  channel_->enable_reading();
}

TimerQueue::~TimerQueue() {
  channel_->disable_all();
  channel_->remove();
  ::close(timer_fd_);
}

void TimerQueue::add(TimerId id, Clock::time_point when,
                     Clock::duration interval, TimerCallback cb) {
  loop_->assert_in_loop_thread();
  timers_.add(id, when, interval, std::move(cb));
  arm();
}

void TimerQueue::cancel(TimerId id) {
  loop_->assert_in_loop_thread();
  timers_.cancel(id);
  arm();
}

void TimerQueue::handle_read() {
  std::uint64_t expirations;
  if (::read(timer_fd_, &expirations, sizeof(expirations)) < 0 &&
      errno != EAGAIN) {
    reactor_internal::ReportErrno("reactor: timerfd read failed");
  }
  timers_.expire(Clock::now());
  arm();
}

void TimerQueue::arm() {
  struct itimerspec spec;
  std::memset(&spec, 0, sizeof(spec));
  if (const auto earliest = timers_.earliest()) {
    auto delay = *earliest - Clock::now();
    const auto min_delay = std::chrono::microseconds(100);
    if (delay < min_delay) delay = min_delay;
    const auto ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(delay).count();
    spec.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    spec.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  }
  if (::timerfd_settime(timer_fd_, 0, &spec, nullptr) < 0) {
    reactor_internal::ReportErrno("reactor: timerfd_settime failed");
  }
}

}  // namespace serverkit::reactor
