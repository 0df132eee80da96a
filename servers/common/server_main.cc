// -----------------------------------------------------------------------------
// servers/common/server_main.cc
// -----------------------------------------------------------------------------
//
// The stop signals of the entry skeleton (server_main.h): one watcher per
// process, quitting the one base loop LoopUntilStopped runs.

#include "servers/common/server_main.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace serverkit::servers {
namespace {

// The loop the watcher quits; a global because the watcher is detached and
// may outlive every other object.
std::atomic<reactor::EventLoop*> g_base_loop{nullptr};

}  // namespace

void QuitOnStopSignals() {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals,
                  nullptr);  // inherited by all threads
  std::thread([stop_signals] {
    int sig;
    sigwait(&stop_signals, &sig);
    for (;;) {
      if (reactor::EventLoop* l = g_base_loop.load()) {
        l->quit();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }).detach();
}

void LoopUntilStopped(reactor::EventLoop* base) {
  g_base_loop.store(base);
  base->loop();
  g_base_loop.store(nullptr);
}

}  // namespace serverkit::servers
