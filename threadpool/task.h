// -----------------------------------------------------------------------------
// threadpool/task.h
// -----------------------------------------------------------------------------
//
// `Task`: the unit of work every pool in this project runs. A move-only,
// type-erased `void()` callable with a small-buffer optimisation.
//
// Why not `std::function<void()>`:
//   - it must be copyable, so a task that owns a `std::promise` (what
//     `SubmitWithFuture` posts) or any other move-only state would need a
//     `shared_ptr` around it: one more allocation and two atomic reference
//     counts per task;
//   - libstdc++ keeps only 16 bytes inline, so a lambda capturing more than two
//     pointers allocates.
// `std::move_only_function` is C++23 and not in gcc 12. So: 64 bytes (one cache
// line), 56 of them inline storage. A callable that fits (and is nothrow
// movable) is stored inline: no allocation per task. Larger callables go to
// the heap. Moving a `Task` is noexcept, which lock-free rings rely on.
//
// A default-constructed or moved-from `Task` is empty (`!task`); calling an
// empty task is undefined (it is checked in debug builds).
//
// Thread-safety: thread-compatible (a `Task` is a value; one thread at a time).

#ifndef SERVERKIT_THREADPOOL_TASK_H_
#define SERVERKIT_THREADPOOL_TASK_H_

#include <cassert>
#include <concepts>
#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

#include "base/cache_line.h"

namespace serverkit {

class Task {
 public:
  // Bytes of callable stored without an allocation.
  static constexpr std::size_t kInlineSize = 56;
  // Callables aligned more strictly than a pointer go to the heap.
  static constexpr std::size_t kInlineAlign = alignof(void*);

  Task() noexcept = default;

  template <typename F>
  requires(!std::same_as<std::remove_cvref_t<F>, Task> &&
           std::invocable<std::decay_t<F>&>)
      Task(
          F&& f) {  // NOLINT(google-explicit-constructor): a callable is a Task
    using D = std::decay_t<F>;
    if constexpr (kFitsInline<D>) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
      ops_ = &kInlineOps<D>;
    } else {
      D* heap = new D(std::forward<F>(f));
      ::new (static_cast<void*>(storage_)) D*(heap);
      ops_ = &kHeapOps<D>;
    }
  }

  Task(Task&& other) noexcept { MoveFrom(other); }

  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      Reset();
      MoveFrom(other);
    }
    return *this;
  }

  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;

  ~Task() { Reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }

  // Runs the callable. Exceptions propagate to the caller. The task stays
  // non-empty (calling it again calls the callable again).
  void operator()() {
    assert(ops_ != nullptr && "called an empty Task");
    ops_->invoke(storage_);
  }

  // Destroys the callable; the task becomes empty.
  void Reset() noexcept {
    if (ops_ != nullptr) {
      ops_->destroy(storage_);
      ops_ = nullptr;
    }
  }

 private:
  struct Ops {
    void (*invoke)(void* storage);
    // Move-constructs the callable from `src` storage into `dst` storage and
    // destroys what is left in `src`.
    void (*relocate)(void* dst, void* src) noexcept;
    void (*destroy)(void* storage) noexcept;
  };

  template <typename D>
  static constexpr bool kFitsInline =
      sizeof(D) <= kInlineSize &&
      alignof(D) <= kInlineAlign&& std::is_nothrow_move_constructible_v<D>;

  template <typename D>
  static constexpr Ops kInlineOps = {
      [](void* s) { (*std::launder(static_cast<D*>(s)))(); },
      [](void* dst, void* src) noexcept {
        D* from = std::launder(static_cast<D*>(src));
        ::new (dst) D(std::move(*from));
        from->~D();
      },
      [](void* s) noexcept { std::launder(static_cast<D*>(s))->~D(); },
  };

  template <typename D>
  static constexpr Ops kHeapOps = {
      [](void* s) { (**std::launder(static_cast<D**>(s)))(); },
      [](void* dst, void* src) noexcept {
        ::new (dst) D*(*std::launder(static_cast<D**>(src)));
      },
      [](void* s) noexcept { delete *std::launder(static_cast<D**>(s)); },
  };

  void MoveFrom(Task& other) noexcept {
    ops_ = other.ops_;
    if (ops_ != nullptr) {
      ops_->relocate(storage_, other.storage_);
      other.ops_ = nullptr;
    }
  }

  const Ops* ops_ = nullptr;
  alignas(kInlineAlign) unsigned char storage_[kInlineSize];
};

static_assert(sizeof(Task) == kCacheLineSize, "a Task is one cache line");
static_assert(std::is_nothrow_move_constructible_v<Task>);
static_assert(std::is_nothrow_move_assignable_v<Task>);

}  // namespace serverkit

#endif  // SERVERKIT_THREADPOOL_TASK_H_
