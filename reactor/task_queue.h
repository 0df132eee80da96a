// -----------------------------------------------------------------------------
// reactor/task_queue.h
// -----------------------------------------------------------------------------
//
// The EventLoop's cross-thread pending-task queue, chosen at run time.
//
// `TaskQueue` is a small virtual interface (the loop holds one through a
// unique_ptr); `AnyTaskQueue<Q>` adapts any `Queue` from queues/ that allows
// many producers to it. A virtual call costs a few ns next to the eventfd
// write and the epoll round it saves or causes, and it lets one reactor binary
// compare every queue.
//
// Thread-safety: `push` is thread-safe; `try_pop` is called only by the loop
// thread (the single consumer).

#ifndef SERVERKIT_REACTOR_TASK_QUEUE_H_
#define SERVERKIT_REACTOR_TASK_QUEUE_H_

#include <memory>
#include <string_view>
#include <thread>
#include <utility>

#include "queues/queue.h"
#include "reactor/callbacks.h"

namespace serverkit::reactor {

class TaskQueue {
 public:
  virtual ~TaskQueue() = default;
  virtual std::string_view name() const = 0;
  // Enqueues `task`; waits (yielding) while a bounded queue is full.
  virtual void push(Functor&& task) = 0;
  virtual bool try_pop(Functor& out) = 0;
};

template <Queue Q>
class AnyTaskQueue final : public TaskQueue {
  static_assert(std::is_same_v<typename Q::value_type, Functor>);
  static_assert(Q::kTopology != Topology::kSpsc,
                "a loop's task queue has many producers");

 public:
  explicit AnyTaskQueue(std::size_t capacity) : q_(capacity), consumer_(q_) {}

  std::string_view name() const override { return Q::kName; }

  void push(Functor&& task) override {
    while (!q_.try_push(std::move(task))) std::this_thread::yield();
  }

  bool try_pop(Functor& out) override { return consumer_.try_pop(out); }

 private:
  Q q_;
  Consumer<Q> consumer_;  // the loop thread's handle
};

// `MakeTaskQueue<MutexQueue>()` and so on.
template <template <typename> class Q>
std::unique_ptr<TaskQueue> MakeTaskQueue(std::size_t capacity = 65536) {
  return std::make_unique<AnyTaskQueue<Q<Functor>>>(capacity);
}

}  // namespace serverkit::reactor

#endif  // SERVERKIT_REACTOR_TASK_QUEUE_H_
