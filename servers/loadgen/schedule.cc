#include "servers/loadgen/schedule.h"

#include <cmath>

namespace serverkit::loadgen {

std::string_view ArrivalsName(Arrivals a) {
  return a == Arrivals::kUniform ? "uniform" : "poisson";
}

std::optional<Arrivals> ParseArrivals(std::string_view s) {
  if (s == "uniform") return Arrivals::kUniform;
  if (s == "poisson") return Arrivals::kPoisson;
  return std::nullopt;
}

std::string_view ModeName(Mode m) {
  return m == Mode::kSerial ? "serial" : "pipelined";
}

std::optional<Mode> ParseMode(std::string_view s) {
  if (s == "serial") return Mode::kSerial;
  if (s == "pipelined") return Mode::kPipelined;
  return std::nullopt;
}

Schedule::Schedule(Arrivals arrivals, double rate, std::uint64_t seed,
                   std::uint64_t connection)
    : arrivals_(arrivals),
      gap_ns_(1e9 / rate),
      // Seeds one step apart would give overlapping SplitMix64 streams;
      // hashing (seed, index) gives each connection an unrelated one.
      rng_(SplitMix64(seed ^ (connection * 0xd1b54a32d192ed03ull)).Next()) {
  if (arrivals_ == Arrivals::kUniform) {
    phase_ns_ = rng_.NextUnit() * gap_ns_;
    next_ = static_cast<std::int64_t>(phase_ns_);
  } else {
    t_ns_ = Gap();
    next_ = static_cast<std::int64_t>(t_ns_);
  }
}

double Schedule::Gap() {
  // Inverse transform: -ln(1 - U) is Exp(1) for U uniform in [0, 1).
  return -std::log1p(-rng_.NextUnit()) * gap_ns_;
}

void Schedule::Advance() {
  ++index_;
  if (arrivals_ == Arrivals::kUniform) {
    next_ = static_cast<std::int64_t>(phase_ns_ +
                                      static_cast<double>(index_) * gap_ns_);
  } else {
    t_ns_ += Gap();
    next_ = static_cast<std::int64_t>(t_ns_);
  }
}

}  // namespace serverkit::loadgen
