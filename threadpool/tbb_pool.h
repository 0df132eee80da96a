// -----------------------------------------------------------------------------
// threadpool/tbb_pool.h
// -----------------------------------------------------------------------------
//
// `TbbPool`: oneTBB 2021.8 (Debian's libtbb-dev) behind the `Executor`
// interface: a `tbb::task_arena` with one slot per worker (plus one reserved
// for the thread that waits in `shutdown`) and a `tbb::task_group` that counts
// the tasks.
//
// Submit is `arena.enqueue(group.defer(handler))`: the submitter does not
// join the arena (an external thread could otherwise be made to wait for a
// free slot) and the group still tracks the task. Drain is
// `arena.execute([&] { group.wait(); })`. Discard: oneTBB's
// `task_group::cancel()` skips unstarted tasks but reports no count, so the
// adapter drains with each unstarted handler dropping its task unrun
// (internal/adapter.h).
//
// Worker threads: oneTBB keeps one process-wide set of workers, capped by
// `tbb::global_control::max_allowed_parallelism` (the core count by default).
// A pool of more workers than that (the sweep's sleeping-task scenario uses
// dozens) holds a `global_control` raising the cap to `workers + 1` while it
// lives. The cap is process-wide: when several controls are alive, oneTBB
// applies the smallest. oneTBB also promises no mandatory concurrency: it
// may run fewer threads in the arena than asked, which the sweep would show.
//
// Thread-safety: thread-safe, per the `Executor` contract (executor.h).

#ifndef SERVERKIT_THREADPOOL_TBB_POOL_H_
#define SERVERKIT_THREADPOOL_TBB_POOL_H_

#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "base/sanitizers.h"
#include "threadpool/executor.h"
#include "threadpool/internal/adapter.h"
#include "threadpool/task.h"

namespace serverkit {

class TbbPool {
 public:
  static constexpr std::string_view kName = "tbb";

  explicit TbbPool(std::size_t workers)
      : workers_(workers == 0 ? 1 : workers),
        arena_(static_cast<int>(workers_) + 1, /*reserved_for_masters=*/1) {
    const std::size_t wanted = workers_ + 1;
    if (wanted >
        static_cast<std::size_t>(oneapi::tbb::info::default_concurrency())) {
      cap_.emplace(oneapi::tbb::global_control::max_allowed_parallelism,
                   wanted);
    }
    arena_.initialize();
  }

  TbbPool(const TbbPool&) = delete;
  TbbPool& operator=(const TbbPool&) = delete;

  // noexcept: `tbb::task_group`'s destructor is noexcept(false) (it throws
  // `missing_wait` when nobody waited); `shutdown` always waits, so it
  // cannot throw here.
  ~TbbPool() noexcept { shutdown(ShutdownMode::kDrain); }

  bool try_submit(Task&& task) {
    return core_.TrySubmit(task, [this](auto&& wrapped) {
      if constexpr (kUnderTsan) {
        arena_.enqueue(group_.defer(Annotated(&finished_, std::move(wrapped))));
      } else {
        arena_.enqueue(group_.defer(std::move(wrapped)));
      }
    });
  }

  std::size_t shutdown(ShutdownMode mode) {
    return core_.Shutdown(mode, [this] {
      arena_.execute([this] { group_.wait(); });
      TsanAcquire(&finished_);
    });
  }

  std::size_t workers() const { return workers_; }

  std::uint64_t task_exceptions() const { return core_.task_exceptions(); }

 private:
  using Wrapped = threadpool_internal::AdapterCore::Wrapped;

  // libtbb.so is not instrumented, so ThreadSanitizer cannot see the order it
  // gives. Under TSan each task says it: its submission before its run (on
  // the task's own address), its end and destruction before `group_.wait()`
  // returns (on `finished_`), and its destruction before TBB builds another
  // task in the same memory.
  class Annotated {
   public:
    Annotated(const char* finished, Wrapped&& wrapped) noexcept
        : finished_{finished}, wrapped_(std::move(wrapped)) {
      handoff_.Publish();
    }
    Annotated(Annotated&& o) noexcept
        : handoff_(o.handoff_),
          finished_{o.finished_.addr},
          wrapped_(std::move(o.wrapped_)) {
      handoff_.Publish();
    }
    void operator()() const {
      TsanAcquire(&handoff_);
      wrapped_();
    }

   private:
    struct ReleaseOnDestruction {
      const char* addr;
      ~ReleaseOnDestruction() { TsanRelease(addr); }
    };
    // In this order: `wrapped_` is destroyed first, `handoff_` last.
    TsanHandoff handoff_;
    ReleaseOnDestruction finished_;
    Wrapped wrapped_;
  };

  char finished_ = 0;  // TSan's address for "a task has ended"
  const std::size_t workers_;
  std::optional<oneapi::tbb::global_control> cap_;
  threadpool_internal::AdapterCore core_{this, kName};
  oneapi::tbb::task_arena arena_;
  oneapi::tbb::task_group group_;
};

static_assert(Executor<TbbPool>);

}  // namespace serverkit

#endif  // SERVERKIT_THREADPOOL_TBB_POOL_H_
