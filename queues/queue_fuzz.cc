// Fuzz target: every queue in queues/all_queues.h other than the reference
// (mutex) against a model, single-threaded, the fuzzer choosing the
// operations of queues/queue.h's contract.
//
// The input: the element type (an integer, or a string long enough to live
// on the heap), which queue (one of the list, or all of them in lock-step),
// the capacity asked for (1..64), whether pushes go through
// Producer<Q> and pops through Consumer<Q> (the queue's tokens where it has
// them) or straight to the queue, then operations: try_push, try_pop, a
// blocking push (only when the model has room) and a blocking pop (only
// when the model holds an item): the queue's native push / pop where it has
// them, else a bounded retry of the try form; bursts of pushes and pops,
// filling to the bound (and one push past it) and draining (and one pop past
// empty).
//
// The model of each queue: the reference, a MutexQueue, holding what the
// queue should hold, with the queue's declared bound: capacity() for a
// bounded queue (at least the capacity asked for; the contract lets rings
// round up, and a bounded queue holds exactly capacity() items), none for
// an unbounded one (capacity() 0). Single-threaded, with one producer and
// one consumer, every queue is FIFO (queue.h, Ordering), so the oracle is:
// try_push succeeds exactly when the model has room, and a failed one leaves
// the value untouched; try_pop succeeds exactly when the model holds an item
// and gives the model's oldest; a blocking pop gives the model's oldest;
// capacity() is 0 for an unbounded queue and at least the capacity asked
// for otherwise; a bounded queue built with capacity 0 throws
// std::invalid_argument. Items left at the end are destroyed with the queue
// (ASan sees a leak or a double free of the string elements).
//
// Mutant (SERVERKIT_FUZZ_MUTANT): one more queue, an SpscRingQueue that
// loses the item of a push that fills the ring exactly at the end of its
// second lap or later (the queue full, its items one whole lap, aligned).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "base/type_list.h"
#include "build/fuzz/fuzz.h"
#include "queues/all_queues.h"
#include "queues/mutex_queue.h"
#include "queues/queue.h"

namespace serverkit {
namespace {

using fuzz::ByteReader;
using fuzz::Trace;

#ifdef SERVERKIT_FUZZ_MUTANT
// The planted bug: reports success but drops the item of a push that fills
// the ring when the write position ends a lap, from the second lap on.
template <typename T>
class LossySpscRingQueue : public SpscRingQueue<T> {
 public:
  static constexpr std::string_view kName = "spsc-ring-mutant";
  using SpscRingQueue<T>::SpscRingQueue;

  bool try_push(T&& v) {
    const std::size_t cap = this->capacity();
    if (pushed_ - popped_ == cap - 1 && (pushed_ + 1) % cap == 0 &&
        pushed_ + 1 >= 2 * cap && cap >= 4) {
      ++pushed_;  // the item is lost
      ++lost_;
      [[maybe_unused]] T gone(std::move(v));
      return true;
    }
    if (!SpscRingQueue<T>::try_push(std::move(v))) return false;
    ++pushed_;
    return true;
  }
  bool try_pop(T& out) {
    if (!SpscRingQueue<T>::try_pop(out)) return false;
    ++popped_;
    return true;
  }

 private:
  std::size_t pushed_ = 0;
  std::size_t popped_ = 0;
  std::size_t lost_ = 0;
};
using Fuzzed = Concat<Without<AllQueues, TypeList<QueueTemplate<MutexQueue>>>,
                      TypeList<QueueTemplate<LossySpscRingQueue>>>;
#else
// Every queue but the reference: a new one in all_queues.h is fuzzed too.
using Fuzzed = Without<AllQueues, TypeList<QueueTemplate<MutexQueue>>>;
#endif

// An input's budget: operations, the items one operation may push, and the
// pushes and pops of all queues together (atomic_queue holds at least 4096
// items, so a fill of it costs that many).
constexpr int kMaxOps = 1000;
constexpr std::size_t kMaxBurst = 5000;
constexpr std::size_t kMaxItemOps = 20'000;
std::size_t item_ops = 0;  // this input's so far

// The elements: an integer, or a string that lives on the heap (so a lost,
// duplicated or leaked element shows under ASan too).
template <typename T>
T Make(std::uint64_t n) {
  if constexpr (std::is_same_v<T, std::string>) {
    return "item " + std::to_string(n) + " of the queue fuzzer, on the heap";
  } else {
    return n;
  }
}
template <typename T>
std::string Show(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return "\"" + v + "\"";
  } else {
    return std::to_string(v);
  }
}

template <typename Q>
constexpr bool kNativeBlocking = HasNativeBlocking<Q>;

// One queue under test and its model.
template <typename Q>
class Checked {
 public:
  using T = typename Q::value_type;

  Checked(std::size_t asked, bool producer, bool consumer)
      : q_(std::make_unique<Q>(asked)),
        model_(0),
        bound_(Q::kBounded ? q_->capacity() : 0),
        producer_(producer ? std::make_unique<Producer<Q>>(*q_) : nullptr),
        consumer_(consumer ? std::make_unique<Consumer<Q>>(*q_) : nullptr) {
    if constexpr (Q::kBounded) {
      SK_FUZZ_CHECK(q_->capacity() >= asked,
                    Name() + ": capacity() " + std::to_string(q_->capacity()) +
                        " is less than the capacity asked for, " +
                        std::to_string(asked));
    } else {
      SK_FUZZ_CHECK(q_->capacity() == 0,
                    Name() + ": an unbounded queue's capacity() is " +
                        std::to_string(q_->capacity()));
    }
  }

  static std::string Name() { return std::string(Q::kName); }

  bool has_room() const { return bound_ == 0 || size_ < bound_; }
  std::size_t size() const { return size_; }
  std::size_t bound() const { return bound_; }

  void TryPush(std::uint64_t n) {
    ++item_ops;
    T v = Make<T>(n);
    const bool pushed = producer_ ? producer_->try_push(std::move(v))
                                  : q_->try_push(std::move(v));
    if (has_room()) {
      SK_FUZZ_CHECK(pushed, Name() + ": try_push failed holding " +
                                std::to_string(size_) + " of " + BoundText());
      Model(n);
    } else {
      SK_FUZZ_CHECK(!pushed, Name() + ": try_push succeeded on a full queue (" +
                                 std::to_string(size_) + " of " + BoundText() +
                                 ")");
      SK_FUZZ_CHECK(
          v == Make<T>(n),
          Name() + ": a failed try_push changed its value to " + Show(v));
    }
  }

  // Only with room in the model.
  void BlockingPush(std::uint64_t n) {
    if (!has_room()) return;
    T v = Make<T>(n);
    if constexpr (kNativeBlocking<Q>) {
      q_->push(std::move(v));
    } else {
      bool pushed = false;
      for (int i = 0; i < 1000 && !pushed; ++i) {
        pushed = producer_ ? producer_->try_push(std::move(v))
                           : q_->try_push(std::move(v));
      }
      SK_FUZZ_CHECK(pushed, Name() + ": a push with room in the queue (" +
                                std::to_string(size_) + " of " + BoundText() +
                                ") failed 1000 times");
    }
    Model(n);
  }

  void TryPop() {
    ++item_ops;
    T out = Make<T>(~std::uint64_t{0});
    const bool popped = consumer_ ? consumer_->try_pop(out) : q_->try_pop(out);
    if (size_ == 0) {
      SK_FUZZ_CHECK(!popped,
                    Name() + ": try_pop on an empty queue gave " + Show(out));
      return;
    }
    SK_FUZZ_CHECK(popped, Name() + ": try_pop failed holding " +
                              std::to_string(size_) + " items");
    Expect(out);
  }

  // Only with an item in the model.
  void BlockingPop() {
    if (size_ == 0) return;
    T out = Make<T>(~std::uint64_t{0});
    if constexpr (kNativeBlocking<Q>) {
      q_->pop(out);
    } else {
      bool popped = false;
      for (int i = 0; i < 1000 && !popped; ++i) {
        popped = consumer_ ? consumer_->try_pop(out) : q_->try_pop(out);
      }
      SK_FUZZ_CHECK(popped, Name() + ": a pop holding " +
                                std::to_string(size_) +
                                " items failed 1000 times");
    }
    Expect(out);
  }

 private:
  std::string BoundText() const {
    return bound_ == 0 ? std::string("unbounded") : std::to_string(bound_);
  }

  void Model(std::uint64_t n) {
    T v = Make<T>(n);
    SK_FUZZ_CHECK(model_.try_push(std::move(v)), "the model refused a push");
    ++size_;
  }

  void Expect(const T& got) {
    T want{};
    SK_FUZZ_CHECK(model_.try_pop(want), "the model is empty");
    --size_;
    SK_FUZZ_CHECK(got == want, Name() + ": popped " + Show(got) +
                                   ", the oldest item is " + Show(want));
  }

  std::unique_ptr<Q> q_;
  MutexQueue<T> model_;  // the reference: what q_ should hold, in order
  std::size_t size_ = 0;
  const std::size_t bound_;  // 0: unbounded
  // Declared after q_, so destroyed before it (a token must not outlive its
  // queue).
  std::unique_ptr<Producer<Q>> producer_;
  std::unique_ptr<Consumer<Q>> consumer_;
};

// A bounded queue asked for capacity 0 throws std::invalid_argument (once
// per process: it does not depend on the input).
template <typename Q>
void CheckZeroCapacity() {
  if constexpr (Q::kBounded) {
    bool threw = false;
    try {
      Q q(0);
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    SK_FUZZ_CHECK(threw, std::string(Q::kName) +
                             ": capacity 0 did not throw invalid_argument");
  }
}

template <typename T, typename L>
struct CheckedTuple;
template <typename T, typename... Qs>
struct CheckedTuple<T, TypeList<Qs...>> {
  // Behind pointers: a Checked holds a mutex (its model) and cannot move.
  using type =
      std::tuple<std::unique_ptr<Checked<typename Qs::template Of<T>>>...>;
  static constexpr std::size_t kCount = sizeof...(Qs);
  // The queue numbered `which` (in the list's order), or all of them when
  // `which` is kCount; the others stay null.
  static type Make(std::size_t which, std::size_t asked, bool producer,
                   bool consumer) {
    return MakeAt(std::index_sequence_for<Qs...>(), which, asked, producer,
                  consumer);
  }
  template <std::size_t... I>
  static type MakeAt(std::index_sequence<I...>, std::size_t which,
                     std::size_t asked, bool producer, bool consumer) {
    return type((which == kCount || which == I
                     ? std::make_unique<Checked<typename Qs::template Of<T>>>(
                           asked, producer, consumer)
                     : nullptr)...);
  }
  static void ZeroCapacity() {
    (CheckZeroCapacity<typename Qs::template Of<T>>(), ...);
  }
};

template <typename T>
void Run(ByteReader& in) {
  using Tuple = CheckedTuple<T, Fuzzed>;
  static const bool zero_checked = [] {
    Tuple::ZeroCapacity();
    return true;
  }();
  (void)zero_checked;

  const std::size_t which = in.in_range(0, Tuple::kCount);
  const std::size_t asked = in.in_range(1, 64);
  const bool producer = in.boolean();
  const bool consumer = in.boolean();
  Trace::add(
      (which == Tuple::kCount ? std::string("every queue")
                              : "queue " + std::to_string(which)) +
      ", of " +
      std::string(std::is_same_v<T, std::string> ? "strings" : "integers") +
      ", capacity " + std::to_string(asked) + ", pushes " +
      (producer ? "through Producer<Q>" : "straight") + ", pops " +
      (consumer ? "through Consumer<Q>" : "straight"));
  auto queues = Tuple::Make(which, asked, producer, consumer);
  auto all = [&](auto&& f) {
    std::apply([&](auto&... q) { ((q ? f(*q) : void()), ...); }, queues);
  };
  std::uint64_t next = 0;  // the value of the next item pushed

  item_ops = 0;
  for (int op = 0; op < kMaxOps && !in.empty() && item_ops < kMaxItemOps;
       ++op) {
    switch (in.in_range(0, 7)) {
      case 0:
      case 1:
        Trace::add("try_push(" + std::to_string(next) + ")");
        all([&](auto& q) { q.TryPush(next); });
        ++next;
        break;
      case 2:
        Trace::add("try_pop()");
        all([&](auto& q) { q.TryPop(); });
        break;
      case 3:
        Trace::add("push(" + std::to_string(next) +
                   ") (blocking, where the model has room)");
        all([&](auto& q) { q.BlockingPush(next); });
        ++next;
        break;
      case 4:
        Trace::add("pop() (blocking, where the model holds an item)");
        all([&](auto& q) { q.BlockingPop(); });
        break;
      case 5: {
        const std::size_t k = in.in_range(1, 64);
        const bool pop = in.boolean();
        Trace::add(pop ? "try_pop() x " + std::to_string(k)
                       : "try_push() x " + std::to_string(k) + " from " +
                             std::to_string(next));
        for (std::size_t i = 0; i < k; ++i) {
          if (pop) {
            all([&](auto& q) { q.TryPop(); });
          } else {
            all([&](auto& q) { q.TryPush(next); });
            ++next;
          }
        }
        break;
      }
      case 6: {
        // Each queue to its own bound (unbounded ones: `extra` items), then
        // one try_push more.
        const std::size_t extra = in.in_range(0, 255);
        Trace::add("fill each queue to its bound (unbounded: " +
                   std::to_string(extra) + " items), then one try_push more");
        all([&](auto& q) {
          std::size_t k = q.bound() == 0 ? extra : q.bound() - q.size();
          if (k > kMaxBurst) k = kMaxBurst;
          for (std::size_t i = 0; i < k; ++i) q.TryPush(next + i);
          q.TryPush(next + k);
        });
        next += kMaxBurst + 1;
        break;
      }
      default:
        Trace::add("drain each queue, then one try_pop more");
        all([&](auto& q) {
          while (q.size() > 0) q.TryPop();
          q.TryPop();
        });
        break;
    }
  }
}

void OneInput(ByteReader& in) {
  if (in.boolean()) {
    Run<std::string>(in);
  } else {
    Run<std::uint64_t>(in);
  }
}

}  // namespace
}  // namespace serverkit

SK_FUZZ_TARGET(serverkit::OneInput)
