// -----------------------------------------------------------------------------
// servers/common/server_main.h
// -----------------------------------------------------------------------------
//
// The entry skeleton of our three servers (ping-pong, chat, HTTP). Once a
// server's Main has parsed its flags, `RunServer` does what all three do, in
// this order:
//
//   1. blocks SIGINT and SIGTERM and starts the watcher that quits the base
//      loop on either (so the loggers flush on the way out);
//   2. builds the task-queue factory named by --task_queue;
//   3. builds the logger named by --logger, bound to the server's log call;
//   4. raises the descriptor limit;
//   5. calls the server's Serve with the buffer named by --buffer.
//
// Serve runs its base loop with `LoopUntilStopped`, which the watcher quits.
// A bad name fails (exit 2) as components/by_name.h says.
//
// Thread-safety: call RunServer once, from main(), before any thread starts.

#ifndef SERVERKIT_SERVERS_COMMON_SERVER_MAIN_H_
#define SERVERKIT_SERVERS_COMMON_SERVER_MAIN_H_

#include <functional>
#include <memory>
#include <string_view>

#include "components/by_name.h"
#include "reactor/event_loop.h"
#include "servers/common/process.h"
#include "servers/common/server_policy.h"

namespace serverkit::servers {

// Blocks SIGINT and SIGTERM in the calling thread (and so in every thread it
// starts later) and starts a detached watcher that, on either signal, quits
// the loop LoopUntilStopped runs, once there is one. Call before any other
// thread starts; RunServer does.
void QuitOnStopSignals();

// Runs `base` until the stop-signal watcher quits it. Call from the thread
// that owns `base`.
void LoopUntilStopped(reactor::EventLoop* base);

// Steps 1 to 5 above; returns what `serve` returns. `bind_logger` turns the
// chosen logger into a std::function<LogSig> (MakeLogger's `bind`); `serve`
// is called as `serve.template operator()<B>(make_queue, log_line)`, with
// `make_queue` a const components::TaskQueueFactory& and `log_line` a
// const std::function<LogSig>& (empty without --logger).
template <typename LogSig, typename BindLogger, typename Serve>
int RunServer(std::string_view program, const components::Options& po,
              BindLogger bind_logger, Serve&& serve) {
  // Before any thread starts (an async logger's backend included): threads
  // inherit the blocked stop signals, so only the watcher takes them.
  QuitOnStopSignals();
  const components::TaskQueueFactory make_queue =
      components::MakeTaskQueueFactory(program, po);
  std::function<LogSig> log_line;
  const std::shared_ptr<void> logger =
      components::MakeLogger<LogSig>(program, po, bind_logger, &log_line);
  RaiseFdLimit();
  return components::WithBuffer(program, po, [&]<typename B>() {
    return serve.template operator()<B>(make_queue, log_line);
  });
}

}  // namespace serverkit::servers

#endif  // SERVERKIT_SERVERS_COMMON_SERVER_MAIN_H_
