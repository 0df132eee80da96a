// -----------------------------------------------------------------------------
// reactor/policy.h
// -----------------------------------------------------------------------------
//
// A `ReactorPolicy` names the components a server is built with:
//
//   - `Buffer`: the connections' input and output buffer type (buffer/);
//   - `MakeTaskQueue()`: each loop's cross-thread task queue (queues/);
//   - `kCoalesceWakeups`: whether posts share eventfd wake-ups;
//   - `kName`: how reports call it.
//
// `BaselinePolicy` is muduo's choice (a mutex-swapped vector, a linear
// buffer, one wake-up per idle period). `Policy<B, Q, coalesce>` builds any
// other combination; the ping-pong validation swaps one component at a time.

#ifndef SERVERKIT_REACTOR_POLICY_H_
#define SERVERKIT_REACTOR_POLICY_H_

#include <concepts>
#include <memory>
#include <string_view>

#include "buffer/buffer.h"
#include "buffer/linear_buffer.h"
#include "queues/swap_vector_queue.h"
#include "reactor/event_loop.h"
#include "reactor/task_queue.h"

namespace serverkit::reactor {

template <typename P>
concept ReactorPolicy = Buffer<typename P::Buffer> && requires {
  { P::kName } -> std::convertible_to<std::string_view>;
  { P::kCoalesceWakeups } -> std::convertible_to<bool>;
  { P::MakeTaskQueue() } -> std::same_as<std::unique_ptr<TaskQueue>>;
};

template <typename B, template <typename> class Q, bool kCoalesce = true>
struct Policy {
  using Buffer = B;
  static constexpr std::string_view kName = "custom";
  static constexpr bool kCoalesceWakeups = kCoalesce;
  static std::unique_ptr<TaskQueue> MakeTaskQueue() {
    return reactor::MakeTaskQueue<Q>();
  }
};

struct BaselinePolicy : Policy<LinearBuffer, SwapVectorQueue, true> {
  static constexpr std::string_view kName = "baseline";
};

// The options every loop of a policy's server is built with.
template <ReactorPolicy P>
EventLoopOptions LoopOptionsFor() {
  EventLoopOptions options;
  options.task_queue = P::MakeTaskQueue();
  options.coalesce_wakeups = P::kCoalesceWakeups;
  return options;
}

static_assert(ReactorPolicy<BaselinePolicy>);

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_POLICY_H_
