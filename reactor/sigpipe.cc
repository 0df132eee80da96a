#include <signal.h>

#include <mutex>

namespace serverkit::reactor {

void IgnoreSigPipe() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

}  // namespace serverkit::reactor
