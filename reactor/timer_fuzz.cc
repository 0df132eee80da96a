// Fuzz target: the loop's timer bookkeeping (reactor/timer_list.h, what
// TimerQueue arms its timerfd from) against a sorted model, on a fake clock.
//
// The input: operations, each an operation byte and its arguments: add a
// timer (a fresh id, when = now + an offset from -3 ms to 60 ms, one-shot or
// periodic with an interval of 1..40 ms, and what its callback does: nothing,
// cancel a timer (a live one, itself, one added later, or an id never
// used), or add a one-shot or periodic timer); cancel a live, fired or
// unknown id; advance the clock (0..60 ms) and expire.
//
// The model: the live timers as a list sorted by (when, insertion order),
// a re-armed periodic timer counting as inserted when it is re-armed;
// expire(now) takes every entry with when <= now off the front at once,
// then for each in order: skipped if cancelled meanwhile, else re-armed at
// now + interval (periodic) or forgotten (one-shot), then its callback runs
// (on the model, the same action as on the real list).
//
// The oracle, after every operation: the ids fired (in order) are the
// model's, earliest() is the model's first time, and size() is the number of
// live timers.
//
// Mutant (SERVERKIT_FUZZ_MUTANT): a wrapper whose cancel, while expire runs,
// is put off until expire returns, so a timer cancelled by an earlier
// callback of the same round still fires.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "build/fuzz/fuzz.h"
#include "reactor/timer_list.h"

namespace serverkit::reactor {
namespace {

using fuzz::ByteReader;
using fuzz::Trace;
using Ms = std::chrono::milliseconds;

// An input's budget: operations, and timers added (callbacks that add stop
// adding past it).
constexpr int kMaxOps = 2000;
constexpr TimerId kMaxTimers = 400;

#ifdef SERVERKIT_FUZZ_MUTANT
// The planted bug: cancels made from a callback take effect only once the
// round is over.
class List {
 public:
  void add(TimerId id, Clock::time_point when, Clock::duration interval,
           TimerCallback cb) {
    list_.add(id, when, interval, std::move(cb));
  }
  void cancel(TimerId id) {
    if (expiring_) {
      deferred_.push_back(id);
    } else {
      list_.cancel(id);
    }
  }
  void expire(Clock::time_point now) {
    expiring_ = true;
    list_.expire(now);
    expiring_ = false;
    for (const TimerId id : deferred_) list_.cancel(id);
    deferred_.clear();
  }
  std::optional<Clock::time_point> earliest() const { return list_.earliest(); }
  std::size_t size() const { return list_.size(); }

 private:
  TimerList list_;
  bool expiring_ = false;
  std::vector<TimerId> deferred_;
};
#else
using List = TimerList;
#endif

// What a timer's callback does when it fires, fixed when it is added (a
// callback that adds a timer adds a fresh one every time it runs).
struct Action {
  enum Kind : std::uint8_t { kNothing, kCancel, kAdd } kind = kNothing;
  TimerId target = 0;         // kCancel
  std::int64_t offset = 0;    // kAdd: when = now (of the round) + offset ms
  std::int64_t interval = 0;  // kAdd: 0 one-shot
};

std::string Describe(const Action& a) {
  switch (a.kind) {
    case Action::kNothing:
      return "nothing";
    case Action::kCancel:
      return "cancel " + std::to_string(a.target);
    case Action::kAdd:
      return "add a timer at now + " + std::to_string(a.offset) + " ms" +
             (a.interval > 0 ? ", every " + std::to_string(a.interval) + " ms"
                             : std::string(", one-shot"));
  }
  return "?";
}

class Harness {
 public:
  explicit Harness(ByteReader& in) : in_(in) {}

  void Run() {
    for (int op = 0; op < kMaxOps && !in_.empty(); ++op) {
      switch (in_.in_range(0, 7)) {
        case 0:
        case 1:
        case 2:
          AddFromInput();
          break;
        case 3:
        case 4:
          CancelFromInput();
          break;
        default:
          Advance(Ms(in_.in_range(0, 60)));
          break;
      }
      Compare();
    }
  }

 private:
  struct Entry {
    Clock::time_point when;
    std::uint64_t seq;  // insertion order
    TimerId id;
    Clock::duration interval;
  };

  static std::string At(Clock::time_point t) {
    return std::to_string(
               std::chrono::duration_cast<Ms>(t - Clock::time_point{})
                   .count()) +
           " ms";
  }

  Action ActionFromInput(TimerId id) {
    Action a;
    switch (in_.in_range(0, 5)) {
      case 0:
      case 1:
        break;
      case 2: {  // a live timer
        a.kind = Action::kCancel;
        if (live_.empty()) {
          a.target = id;
        } else {
          auto it = live_.begin();
          std::advance(it, in_.in_range(0, live_.size() - 1));
          a.target = *it;
        }
        break;
      }
      case 3:  // itself, one added later, or one never used
        a.kind = Action::kCancel;
        switch (in_.in_range(0, 3)) {
          case 0:
            a.target = id;
            break;
          case 1:
          case 2:
            a.target = id + in_.in_range(1, 4);
            break;
          default:
            a.target = in_.boolean() ? 0 : kMaxTimers * 2 + 1;
            break;
        }
        break;
      default:
        a.kind = Action::kAdd;
        a.offset = static_cast<std::int64_t>(in_.in_range(0, 40));
        a.interval =
            in_.boolean() ? 0 : static_cast<std::int64_t>(in_.in_range(1, 40));
        break;
    }
    return a;
  }

  void AddFromInput() {
    if (next_id_ > kMaxTimers) return;
    const TimerId id = next_id_;
    const auto offset = static_cast<std::int64_t>(in_.in_range(0, 63)) - 3;
    const std::int64_t interval =
        in_.boolean() ? 0 : static_cast<std::int64_t>(in_.in_range(1, 40));
    const Action a = ActionFromInput(id);
    Trace::add("add " + std::to_string(id) + " at " + At(now_ + Ms(offset)) +
               (interval > 0 ? ", every " + std::to_string(interval) + " ms"
                             : std::string(", one-shot")) +
               "; its callback: " + Describe(a));
    Add(id, now_ + Ms(offset), Ms(interval), a);
  }

  // Adds timer `id` to both sides (it must be next_id_).
  void Add(TimerId id, Clock::time_point when, Clock::duration interval,
           const Action& a) {
    ++next_id_;
    actions_[id] = a;
    real_.add(id, when, interval, [this, id] { RealFired(id); });
    Insert(Entry{when, seq_++, id, interval});
    live_.insert(id);
  }

  void CancelFromInput() {
    TimerId id;
    if (!live_.empty() && in_.in_range(0, 3) != 0) {
      auto it = live_.begin();
      std::advance(it, in_.in_range(0, live_.size() - 1));
      id = *it;
    } else {
      id = in_.in_range(0, next_id_ + 2);  // fired, cancelled, or unknown
    }
    Trace::add("cancel " + std::to_string(id) +
               (live_.count(id) ? " (live)" : " (not live)"));
    real_.cancel(id);
    ModelCancel(id);
  }

  void Advance(Clock::duration by) {
    now_ += by;
    Trace::add("advance to " + At(now_) + " and expire");
    real_fired_.clear();
    model_fired_.clear();
    round_now_ = now_;
    // The real list first: its callbacks add timers (fresh ids); the model
    // must then add the same ones, so it is given back the ids the real
    // callbacks used.
    const TimerId ids_before = next_id_;
    real_.expire(now_);
    real_added_until_ = next_id_;
    next_id_ = ids_before;
    ModelExpire(now_);
    SK_FUZZ_CHECK(next_id_ == real_added_until_,
                  "the callbacks added " +
                      std::to_string(real_added_until_ - ids_before) +
                      " timers on the real list, " +
                      std::to_string(next_id_ - ids_before) + " on the model");
    std::string fired;
    for (const TimerId id : real_fired_) fired += " " + std::to_string(id);
    Trace::add("  fired:" + (fired.empty() ? std::string(" none") : fired));
    std::string want;
    for (const TimerId id : model_fired_) want += " " + std::to_string(id);
    SK_FUZZ_CHECK(real_fired_ == model_fired_,
                  "fired" + (fired.empty() ? std::string(" none") : fired) +
                      ", the model fires" +
                      (want.empty() ? std::string(" none") : want));
  }

  // The callback of timer `id` on the real list.
  void RealFired(TimerId id) {
    real_fired_.push_back(id);
    const Action a = actions_.at(id);  // a copy: adding may rehash
    if (a.kind == Action::kCancel) {
      real_.cancel(a.target);
    } else if (a.kind == Action::kAdd && next_id_ <= kMaxTimers) {
      const TimerId fresh = next_id_++;
      actions_[fresh] = Action{};
      real_.add(fresh, round_now_ + Ms(a.offset), Ms(a.interval),
                [this, fresh] { RealFired(fresh); });
    }
  }

  // --- the model

  void Insert(const Entry& e) {
    const auto pos = std::upper_bound(
        model_.begin(), model_.end(), e, [](const Entry& x, const Entry& y) {
          return x.when != y.when ? x.when < y.when : x.seq < y.seq;
        });
    model_.insert(pos, e);
  }

  void ModelCancel(TimerId id) {
    live_.erase(id);
    model_.erase(std::remove_if(model_.begin(), model_.end(),
                                [id](const Entry& e) { return e.id == id; }),
                 model_.end());
  }

  void ModelExpire(Clock::time_point now) {
    std::vector<Entry> due;
    while (!model_.empty() && model_.front().when <= now) {
      due.push_back(model_.front());
      model_.erase(model_.begin());
    }
    for (const Entry& e : due) {
      if (!live_.count(e.id)) continue;  // cancelled by an earlier callback
      if (e.interval.count() > 0) {
        Insert(Entry{now + e.interval, seq_++, e.id, e.interval});
      } else {
        live_.erase(e.id);
      }
      model_fired_.push_back(e.id);
      const Action a = actions_.at(e.id);
      if (a.kind == Action::kCancel) {
        ModelCancel(a.target);
      } else if (a.kind == Action::kAdd && next_id_ <= kMaxTimers) {
        const TimerId fresh = next_id_++;
        Insert(Entry{now + Ms(a.offset), seq_++, fresh, Ms(a.interval)});
        live_.insert(fresh);
      }
    }
  }

  void Compare() {
    // No optional for the model's side: gcc 12 at -O1 (TSan) calls it
    // maybe-uninitialized.
    const bool model_has = !model_.empty();
    const std::optional<Clock::time_point> got = real_.earliest();
    SK_FUZZ_CHECK(
        got.has_value() == model_has && (!got || *got == model_.front().when),
        "earliest() is " + (got ? At(*got) : std::string("none")) +
            ", the model's " +
            (model_has ? At(model_.front().when) : std::string("none")));
    SK_FUZZ_CHECK(real_.size() == live_.size(),
                  "size() is " + std::to_string(real_.size()) +
                      ", the model "
                      "has " +
                      std::to_string(live_.size()) + " live timers");
  }

  ByteReader& in_;
  List real_;
  Clock::time_point now_{};
  Clock::time_point round_now_{};
  TimerId next_id_ = 1;
  TimerId real_added_until_ = 1;
  std::unordered_map<TimerId, Action> actions_;
  std::vector<TimerId> real_fired_;
  std::vector<TimerId> model_fired_;
  // The model: sorted by (when, seq); the live ids.
  std::vector<Entry> model_;
  std::set<TimerId> live_;
  std::uint64_t seq_ = 0;
};

void OneInput(fuzz::ByteReader& in) {
  Harness harness(in);
  harness.Run();
}

}  // namespace
}  // namespace serverkit::reactor

SK_FUZZ_TARGET(serverkit::reactor::OneInput)
