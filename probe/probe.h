// -----------------------------------------------------------------------------
// probe/probe.h
// -----------------------------------------------------------------------------
//
// SERVERKIT_PROBE("name"): a positive control for a server that is not built
// on serverkit's components. Put it at a call site of your own (your queue's
// pop, your log call). Off, it costs one relaxed load and a predictable
// branch. Turned on by the environment, it spins a stated number of
// nanoseconds of CPU per pass and counts the passes, so that a run with the
// probe on beside one with it off measures what one nanosecond at that site
// costs the whole server (the exchange rate) and how often the site runs.
//
//   SERVERKIT_PROBE=name:ns[,name:ns...]   the sites on, and their spin
//   SERVERKIT_PROBE_OUT=PATH               where the counts go at exit
//                                          (default: stderr), one line per
//                                          site: "probe NAME passes N ns S"
//
// A site named in the variable but never reached prints "passes 0". A
// malformed variable is reported once on stderr and turns every site off;
// it never stops the program. Header only, standard library only, C++17.
//
// Thread-safety: thread-safe; a site may be passed from any thread. Memory
// ordering: the site's counter is relaxed (a count, read at exit); the
// state word is read relaxed and written once under a mutex.

#ifndef SERVERKIT_PROBE_PROBE_H_
#define SERVERKIT_PROBE_PROBE_H_

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace serverkit::probe {

enum State : int { kUnread = 0, kOff = 1, kOn = 2 };

// One call site: its name, its spin (-1: not named in the variable) and its
// passes. Sites are static objects, linked into a list when first passed.
struct Site {
  const char* name;
  std::atomic<std::int64_t> spin_ns{-2};  // -2: not resolved yet
  std::atomic<std::uint64_t> passes{0};
  Site* next = nullptr;
};

namespace internal {

inline std::atomic<int> g_state{kUnread};
inline std::mutex g_mu;
inline Site* g_sites = nullptr;  // guarded by g_mu
inline std::vector<std::pair<std::string, std::int64_t>> g_config;

// "a:100,b:2500" into g_config; false on anything else.
inline bool ParseConfig(const char* text) {
  g_config.clear();
  std::string_view rest(text);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
    const auto colon = item.find(':');
    if (colon == 0 || colon == std::string_view::npos ||
        colon + 1 == item.size()) {
      return false;
    }
    std::int64_t ns = 0;
    for (const char c : item.substr(colon + 1)) {
      if (c < '0' || c > '9' || ns > 1'000'000'000) return false;
      ns = ns * 10 + (c - '0');
    }
    g_config.emplace_back(std::string(item.substr(0, colon)), ns);
  }
  return !g_config.empty();
}

// The passes counted at every site named `name`. Caller holds g_mu.
inline std::uint64_t SumPassesLocked(std::string_view name) {
  std::uint64_t n = 0;
  for (Site* s = g_sites; s != nullptr; s = s->next) {
    if (name == s->name) n += s->passes.load(std::memory_order_relaxed);
  }
  return n;
}

inline void Report() {
  std::lock_guard<std::mutex> lock(g_mu);
  const char* path = std::getenv("SERVERKIT_PROBE_OUT");
  std::FILE* out = path && *path ? std::fopen(path, "w") : stderr;
  if (out == nullptr) {
    std::fprintf(stderr, "serverkit probe: cannot write %s: %s\n", path,
                 std::strerror(errno));
    out = stderr;
  }
  for (const auto& [name, ns] : g_config) {
    const std::uint64_t passes = SumPassesLocked(name);
    std::fprintf(out, "probe %s passes %llu ns %lld\n", name.c_str(),
                 static_cast<unsigned long long>(passes),
                 static_cast<long long>(ns));
  }
  if (out != stderr) std::fclose(out);
}

// Reads the variable once (the first pass of any site).
inline int ReadState() {
  std::lock_guard<std::mutex> lock(g_mu);
  int s = g_state.load(std::memory_order_relaxed);
  if (s != kUnread) return s;
  const char* text = std::getenv("SERVERKIT_PROBE");
  s = kOff;
  if (text != nullptr && *text != '\0') {
    if (ParseConfig(text)) {
      s = kOn;
      std::atexit(Report);
    } else {
      std::fprintf(stderr,
                   "serverkit probe: SERVERKIT_PROBE='%s' is not "
                   "name:ns[,name:ns...]; every probe is off\n",
                   text);
    }
  }
  g_state.store(s, std::memory_order_relaxed);
  return s;
}

// Busy work on the thread's own CPU clock, so that a preempted spin still
// costs its stated CPU.
inline void Spin(std::int64_t ns) {
  timespec t0{}, t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  do {
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  } while ((t.tv_sec - t0.tv_sec) * 1'000'000'000LL + (t.tv_nsec - t0.tv_nsec) <
           ns);
}

inline void Pass(Site* site) {
  int s = g_state.load(std::memory_order_relaxed);
  if (s == kUnread) s = ReadState();
  if (s != kOn) return;
  std::int64_t ns = site->spin_ns.load(std::memory_order_relaxed);
  if (ns == -2) {
    std::lock_guard<std::mutex> lock(g_mu);
    ns = site->spin_ns.load(std::memory_order_relaxed);
    if (ns == -2) {
      ns = -1;
      for (const auto& [name, spin] : g_config) {
        if (name == site->name) ns = spin;
      }
      site->next = g_sites;
      g_sites = site;
      site->spin_ns.store(ns, std::memory_order_relaxed);
    }
  }
  if (ns < 0) return;
  site->passes.fetch_add(1, std::memory_order_relaxed);
  if (ns > 0) Spin(ns);
}

// Tests only: forget the variable and the sites' resolution, so that the
// next pass reads the environment again (not thread-safe).
inline void ResetForTest() {
  std::lock_guard<std::mutex> lock(g_mu);
  for (Site* s = g_sites; s != nullptr;) {
    Site* next = s->next;
    s->spin_ns.store(-2, std::memory_order_relaxed);
    s->passes.store(0, std::memory_order_relaxed);
    s->next = nullptr;
    s = next;
  }
  g_sites = nullptr;
  g_config.clear();
  g_state.store(kUnread, std::memory_order_relaxed);
}

// The passes counted at the site named `name` so far.
inline std::uint64_t PassesOf(std::string_view name) {
  std::lock_guard<std::mutex> lock(g_mu);
  return SumPassesLocked(name);
}

}  // namespace internal
}  // namespace serverkit::probe

// The off path: one relaxed load of the state word and a branch the
// predictor learns at once.
#define SERVERKIT_PROBE(name_literal)                                   \
  do {                                                                  \
    static ::serverkit::probe::Site serverkit_probe_site{name_literal}; \
    if (__builtin_expect(                                               \
            ::serverkit::probe::internal::g_state.load(                 \
                std::memory_order_relaxed) != ::serverkit::probe::kOff, \
            0)) {                                                       \
      ::serverkit::probe::internal::Pass(&serverkit_probe_site);        \
    }                                                                   \
  } while (0)

#endif  // SERVERKIT_PROBE_PROBE_H_
