// -----------------------------------------------------------------------------
// servers/http/work.h
// -----------------------------------------------------------------------------
//
// `WorkCost`: the CPU cost that our HTTP server's `GET /work` runs per
// request, inline on the I/O thread or on a thread pool (work_pool.h).
//
// The work is real: FNV-1a 64 over a fixed block of kWorkBlockBytes bytes,
// `rounds()` times, each digest handed to an empty asm statement so the
// compiler must compute every round. The reply's body is the digest as JSON,
// `{"work":"<16 hex digits>"}`: the same for any number of rounds (each round
// hashes the same block), so every server process and every pool answers
// the same body, while the cost still feeds the reply.
//
// `Calibrated(ns)` picks the rounds so that one call costs about `ns` of the
// calling thread's CPU time on this machine, measured at startup.
//
// Thread-safety: a WorkCost is immutable after construction; `Run` is
// thread-safe.

#ifndef SERVERKIT_SERVERS_HTTP_WORK_H_
#define SERVERKIT_SERVERS_HTTP_WORK_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace serverkit::http {

inline constexpr std::size_t kWorkBlockBytes = 256;

class WorkCost {
 public:
  // Exactly `rounds` rounds (0: the body alone, at no cost).
  static WorkCost WithRounds(std::uint64_t rounds);
  // About `ns` of CPU time per Run (0: no rounds).
  static WorkCost Calibrated(std::uint64_t ns);

  // Runs the rounds and returns the body.
  std::string Run() const;

  std::uint64_t rounds() const { return rounds_; }
  // The measured CPU time of one round (0 when not calibrated).
  double ns_per_round() const { return ns_per_round_; }

  // The body every Run returns.
  static std::string Body();

 private:
  WorkCost(std::uint64_t rounds, double ns_per_round)
      : rounds_(rounds), ns_per_round_(ns_per_round) {}

  std::uint64_t rounds_;
  double ns_per_round_;
};

}  // namespace serverkit::http

#endif  // SERVERKIT_SERVERS_HTTP_WORK_H_
