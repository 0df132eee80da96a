// -----------------------------------------------------------------------------
// servers/common/process.cc
// -----------------------------------------------------------------------------
//
// The descriptor limit and the stop-signal watcher (process.h).

#include "servers/common/process.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <ctime>
#include <utility>

namespace serverkit::servers {

long RaiseFdLimit() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur < rl.rlim_max) {
    rlimit want = rl;
    want.rlim_cur = rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &want) == 0) rl = want;
  }
  return rl.rlim_cur == RLIM_INFINITY ? -1 : static_cast<long>(rl.rlim_cur);
}

StopSignalWatcher::StopSignalWatcher(std::function<void()> on_stop) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  thread_ = std::thread([this, stop, on_stop = std::move(on_stop)] {
    // A bounded wait, so the destructor can end the watch.
    const timespec tick{0, 100 * 1000 * 1000};
    while (!done_.load(std::memory_order_acquire)) {
      if (sigtimedwait(&stop, nullptr, &tick) > 0) {
        on_stop();
        return;
      }
    }
  });
}

StopSignalWatcher::~StopSignalWatcher() {
  done_.store(true, std::memory_order_release);
  thread_.join();
}

}  // namespace serverkit::servers
