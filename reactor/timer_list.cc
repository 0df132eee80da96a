#include "reactor/timer_list.h"

#include <vector>

namespace serverkit::reactor {

void TimerList::add(TimerId id, Clock::time_point when,
                    Clock::duration interval, TimerCallback cb) {
  auto timer = std::make_shared<Timer>(Timer{std::move(cb), interval});
  by_time_.emplace(when, std::make_pair(id, std::move(timer)));
  active_[id] = when;
}

void TimerList::cancel(TimerId id) {
  auto it = active_.find(id);
  if (it == active_.end()) return;  // fired (one-shot) or unknown: a no-op
  auto [first, last] = by_time_.equal_range(it->second);
  for (auto t = first; t != last; ++t) {
    if (t->second.first == id) {
      by_time_.erase(t);
      break;
    }
  }
  active_.erase(it);
}

void TimerList::expire(Clock::time_point now) {
  std::vector<std::pair<TimerId, std::shared_ptr<Timer>>> due;
  while (!by_time_.empty() && by_time_.begin()->first <= now) {
    due.push_back(std::move(by_time_.begin()->second));
    by_time_.erase(by_time_.begin());
  }
  for (auto& [id, timer] : due) {
    if (!active_.count(id)) continue;  // cancelled by an earlier callback
    if (timer->interval.count() > 0) {
      const auto next = now + timer->interval;
      active_[id] = next;
      by_time_.emplace(next, std::make_pair(id, timer));
    } else {
      active_.erase(id);
    }
    timer->cb();
  }
}

std::optional<Clock::time_point> TimerList::earliest() const {
  if (by_time_.empty()) return std::nullopt;
  return by_time_.begin()->first;
}

}  // namespace serverkit::reactor
