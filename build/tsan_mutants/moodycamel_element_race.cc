// A deliberate data race in our code run inside a moodycamel queue: the
// element's move assignment, which moodycamel's try_dequeue calls, writes the
// int the element points to while the producer writes it after its push,
// with nothing ordering the two. TSan must report it with the project's
// suppressions linked in (expect_race.sh checks that it does); a suppression
// that matches moodycamel's frames under the element's code would hide it.

#include <cstdio>
#include <cstring>
#include <thread>

#include "base/sanitizers.h"
#include "queues/moodycamel_queues.h"

namespace {

int g_shared = 0;

}  // namespace

// Not in an anonymous namespace: with internal linkage the symbolizer would
// print moodycamel's inlined frames unqualified ("dequeue<...>"), unlike
// those of the project's real element types, which a name-based suppression
// such as `race:moodycamel::` matches.
namespace serverkit::tsan_mutants {

// Move-only, like the project's queue elements; the move assignment is where
// moodycamel's dequeue hands the element over.
class Racy {
 public:
  Racy() = default;
  explicit Racy(int* target) noexcept : target_(target) {}
  Racy(Racy&& other) noexcept : target_(other.target_) {}
  Racy& operator=(Racy&& other) noexcept {
    target_ = other.target_;
    if (target_ != nullptr) ++*target_;  // the racy write, inside try_dequeue
    return *this;
  }
  Racy(const Racy&) = delete;
  Racy& operator=(const Racy&) = delete;

 private:
  int* target_ = nullptr;
};

}  // namespace serverkit::tsan_mutants

int main(int argc, char** argv) {
  // expect_race.sh asks first whether this binary is instrumented at all.
  if (argc > 1 && std::strcmp(argv[1], "--probe") == 0) {
    std::puts(serverkit::kUnderTsan ? "tsan" : "no-tsan");
    return 0;
  }
  if (!serverkit::kUnderTsan) {
    std::puts(
        "moodycamel_element_race: not a ThreadSanitizer build, nothing to run");
    return 0;
  }
  serverkit::MoodycamelQueue<serverkit::tsan_mutants::Racy> queue(16);
  std::thread producer([&queue] {
    queue.try_push(serverkit::tsan_mutants::Racy(&g_shared));
    g_shared = 2;  // races with the consumer's move assignment
  });
  std::thread consumer([&queue] {
    serverkit::tsan_mutants::Racy out;
    while (!queue.try_pop(out)) std::this_thread::yield();
  });
  producer.join();
  consumer.join();
  std::printf("moodycamel_element_race: g_shared=%d\n", g_shared);
  return 0;
}
