// -----------------------------------------------------------------------------
// servers/http/work.cc
// -----------------------------------------------------------------------------
//
// The FNV-1a rounds of GET /work and their calibration (work.h).

#include "servers/http/work.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "base/thread_cpu.h"

namespace serverkit::http {
namespace {

// The block every round hashes: byte i is (167 * i + 13) mod 256.
constexpr std::array<unsigned char, kWorkBlockBytes> kBlock = [] {
  std::array<unsigned char, kWorkBlockBytes> b{};
  for (std::size_t i = 0; i < b.size(); ++i) {
    b[i] = static_cast<unsigned char>((167 * i + 13) & 0xff);
  }
  return b;
}();

std::uint64_t Fnv1a64(const unsigned char* p, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

// One round per iteration: the asm statements say the block may have
// changed and the digest is used, so no round can be hoisted or dropped.
std::uint64_t Rounds(std::uint64_t rounds) {
  std::uint64_t digest = Fnv1a64(kBlock.data(), kBlock.size());
  const unsigned char* block = kBlock.data();
  for (std::uint64_t r = 0; r < rounds; ++r) {
    asm volatile("" : "+r"(block) : : "memory");
    digest = Fnv1a64(block, kWorkBlockBytes);
    asm volatile("" : : "r"(digest));
  }
  return digest;
}

}  // namespace

WorkCost WorkCost::WithRounds(std::uint64_t rounds) {
  return WorkCost(rounds, 0.0);
}

WorkCost WorkCost::Calibrated(std::uint64_t ns) {
  if (ns == 0) return WorkCost(0, 0.0);
  // The fastest of a few batches: the one least disturbed by the host.
  constexpr std::uint64_t kBatch = 2000;
  double best = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    const std::uint64_t start = ThreadCpuNs();
    Rounds(kBatch);
    const double per = static_cast<double>(ThreadCpuNs() - start) /
                       static_cast<double>(kBatch);
    if (per > 0 && (best == 0.0 || per < best)) best = per;
  }
  if (best <= 0.0) best = 1.0;
  const auto rounds = static_cast<std::uint64_t>(
      std::max(1.0, static_cast<double>(ns) / best + 0.5));
  return WorkCost(rounds, best);
}

std::string WorkCost::Run() const {
  const std::uint64_t digest = Rounds(rounds_);
  char text[40];
  std::snprintf(text, sizeof(text), "{\"work\":\"%016llx\"}",
                static_cast<unsigned long long>(digest));
  return text;
}

std::string WorkCost::Body() { return WithRounds(0).Run(); }

}  // namespace serverkit::http
