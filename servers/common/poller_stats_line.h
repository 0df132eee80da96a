// -----------------------------------------------------------------------------
// servers/common/poller_stats_line.h
// -----------------------------------------------------------------------------
//
// The pollers' counts on a server's stop line (reactor/poller_stats.h):
// `PrintPollerStats` sums every loop's and prints one line on stderr,
// "serverkit uring: ..." where the loops run io_uring, else "serverkit
// epoll: ..." (the busy time per iteration only).
//
// Thread-safety: call from `self`'s thread (the base loop's, after its
// loop() returned) while the other loops still run: each loop's counts are
// read in its own thread, by a task posted to it and waited for.

#ifndef SERVERKIT_SERVERS_COMMON_POLLER_STATS_LINE_H_
#define SERVERKIT_SERVERS_COMMON_POLLER_STATS_LINE_H_

#include <string>
#include <vector>

#include "reactor/event_loop.h"
#include "reactor/poller_stats.h"

namespace serverkit::servers {

// What `loop` polls with, for a server's start line: "epoll", or "uring
// (readiness I/O)" / "uring (completion I/O)" (reactor/poller.h).
std::string PollerName(const reactor::EventLoop& loop);

// The sum of `loops`' counts; `self`, if among them, is read directly.
reactor::PollerStats CollectPollerStats(
    const std::vector<reactor::EventLoop*>& loops, reactor::EventLoop* self);

// Prints the line for `loops` (the backend is `self`'s).
void PrintPollerStats(const std::vector<reactor::EventLoop*>& loops,
                      reactor::EventLoop* self);

}  // namespace serverkit::servers

#endif  // SERVERKIT_SERVERS_COMMON_POLLER_STATS_LINE_H_
