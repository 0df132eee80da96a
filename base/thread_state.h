// -----------------------------------------------------------------------------
// base/thread_state.h
// -----------------------------------------------------------------------------
//
// For tests that must prove a thread is blocked before they go on (a waiter
// parked on a futex, a submitter stalled on a full queue): this process's
// thread ids and their scheduler state from /proc. Linux only; test-only.

#ifndef SERVERKIT_BASE_THREAD_STATE_H_
#define SERVERKIT_BASE_THREAD_STATE_H_

#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace serverkit {

// The calling thread's kernel id (gettid).
inline long CurrentTid() { return static_cast<long>(::syscall(SYS_gettid)); }

// "" when thread `tid` of this process is asleep ('S') in a futex wait (the
// wchan check is skipped where the kernel hides wchan), else what it is doing.
inline std::string NotParkedReason(long tid) {
  const std::string dir = "/proc/self/task/" + std::to_string(tid) + "/";
  std::ifstream stat(dir + "stat");
  std::string line;
  if (!std::getline(stat, line)) return "cannot read " + dir + "stat";
  const auto paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) {
    return "malformed stat: " + line;
  }
  const char state = line[paren + 2];
  if (state != 'S') return std::string("state '") + state + "', not 'S'";
  std::ifstream wchan_file(dir + "wchan");
  std::string wchan;
  std::getline(wchan_file, wchan);
  if (wchan.empty() || wchan == "0") return "";  // hidden: state only
  if (wchan.find("futex") == std::string::npos) {
    return "sleeping in '" + wchan + "', not a futex wait";
  }
  return "";
}

}  // namespace serverkit

#endif  // SERVERKIT_BASE_THREAD_STATE_H_
