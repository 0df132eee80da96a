// -----------------------------------------------------------------------------
// servers/loadgen/schedule.h
// -----------------------------------------------------------------------------
//
// `Schedule`: the intended send times of one connection's requests, fixed in
// advance and independent of the replies (an open loop). The aggregate rate
// is split evenly over the connections; each connection draws its own stream:
//
//   - uniform: one request every `1 / rate` seconds from a random phase in
//     [0, gap), computed as phase + i * gap so it does not drift;
//   - poisson: exponential gaps of mean `1 / rate` (the first one too, so the
//     phase is random as well).
//
// Streams are seeded from (seed, connection index): the same flags give the
// same times. Times are nanoseconds from the start of the run.
//
// `Mode` says how a connection's requests share it, and ReleaseTime() when
// each may go out; latency is measured from the intended time either way:
//
//   - serial: at most one request in flight per connection; a request goes
//     at its intended time or when the reply to the previous one completes,
//     whichever is later (wrk2's method; browsers and most HTTP clients
//     never pipeline). A reply that stalls delays the next send, and the
//     wait is charged to that request, from its intended time;
//   - pipelined: every request at its intended time, replies or not.
//
// Thread-safety: thread-compatible; each connection's owner thread advances
// its own Schedule.

#ifndef SERVERKIT_SERVERS_LOADGEN_SCHEDULE_H_
#define SERVERKIT_SERVERS_LOADGEN_SCHEDULE_H_

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>

namespace serverkit::loadgen {

enum class Arrivals { kUniform, kPoisson };

std::string_view ArrivalsName(Arrivals a);
std::optional<Arrivals> ParseArrivals(std::string_view s);

enum class Mode { kSerial, kPipelined };

std::string_view ModeName(Mode m);
std::optional<Mode> ParseMode(std::string_view s);

// The earliest time a request intended at `intended` may be sent, when the
// reply to the connection's previous request completed at `previous_reply`
// (serial mode; pipelined ignores it). Send lag is measured from here: a
// request held behind a reply is the server's wait, not the generator's.
constexpr std::int64_t ReleaseTime(Mode mode, std::int64_t intended,
                                   std::int64_t previous_reply) {
  return mode == Mode::kSerial ? std::max(intended, previous_reply) : intended;
}

// The generator's delay of a request it got to at `got`, from its release
// time; a held request (serial) carries `previous_lag` where larger, so a
// backlog the generator made stays its lag. The larger, not the sum: summed,
// each step's small turnaround read as lag along long held chains
// (servers/loadgen/README.md). Never more than `got - intended`.
constexpr std::int64_t SendLag(Mode mode, std::int64_t intended,
                               std::int64_t got, std::int64_t previous_reply,
                               std::int64_t previous_lag) {
  const std::int64_t own = std::max<std::int64_t>(
      got - ReleaseTime(mode, intended, previous_reply), 0);
  if (mode != Mode::kSerial || previous_reply <= intended) return own;
  return std::min(std::max(own, previous_lag),
                  std::max<std::int64_t>(got - intended, 0));
}

// SplitMix64: a small, fast generator with good 64-bit output, enough for
// arrival gaps and phases.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double NextUnit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

class Schedule {
 public:
  // `rate`: this connection's requests per second (> 0).
  Schedule(Arrivals arrivals, double rate, std::uint64_t seed,
           std::uint64_t connection);

  // The intended time of the next request, in ns from the start.
  std::int64_t next() const { return next_; }
  // Moves to the request after next().
  void Advance();

 private:
  double Gap();

  Arrivals arrivals_;
  double gap_ns_;  // the mean gap
  SplitMix64 rng_;
  double phase_ns_ = 0;
  double t_ns_ = 0;  // poisson: the running sum
  std::uint64_t index_ = 0;
  std::int64_t next_ = 0;
};

}  // namespace serverkit::loadgen

#endif  // SERVERKIT_SERVERS_LOADGEN_SCHEDULE_H_
