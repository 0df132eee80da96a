// A deliberate data race in a task that TbbPool runs on a oneTBB worker: the
// task writes `g_shared` while the thread that submitted it writes it too,
// with nothing ordering the two. TSan must report it with the project's
// suppressions linked in (expect_race.sh checks that it does); a suppression
// that matches oneTBB's frames under the task (the worker's stack is
// task_group.h and libtbb.so below our lambda) would hide it.

#include <cstdio>
#include <cstring>

#include "base/sanitizers.h"
#include "threadpool/executor.h"
#include "threadpool/tbb_pool.h"

namespace {

int g_shared = 0;

}  // namespace

int main(int argc, char** argv) {
  // expect_race.sh asks first whether this binary is instrumented at all.
  if (argc > 1 && std::strcmp(argv[1], "--probe") == 0) {
    std::puts(serverkit::kUnderTsan ? "tsan" : "no-tsan");
    return 0;
  }
  if (!serverkit::kUnderTsan) {
    std::puts("tbb_task_race: not a ThreadSanitizer build, nothing to run");
    return 0;
  }
  serverkit::TbbPool pool(2);
  serverkit::Submit(pool, [] { g_shared = 1; });
  g_shared = 2;  // races with the task: the submit orders nothing after it
  pool.shutdown(serverkit::ShutdownMode::kDrain);
  std::printf("tbb_task_race: g_shared=%d\n", g_shared);
  return 0;
}
