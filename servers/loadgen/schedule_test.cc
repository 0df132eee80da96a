// Schedule: uniform streams keep an exact gap from a phase inside the first
// gap and do not drift; Poisson gaps have the right mean and a coefficient
// of variation near 1; streams repeat for a seed and differ between
// connections. Serial mode sends a request at its time or at the previous
// reply, whichever is later, and the wait counts from the intended time.

#include "servers/loadgen/schedule.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace serverkit::loadgen {
namespace {

std::vector<std::int64_t> Times(Schedule s, int n) {
  std::vector<std::int64_t> t;
  for (int i = 0; i < n; ++i, s.Advance()) t.push_back(s.next());
  return t;
}

TEST(ScheduleTest, UniformIsEvenlySpacedFromARandomPhase) {
  const Schedule s(Arrivals::kUniform, 1000, 1, 0);  // a 1 ms gap
  EXPECT_GE(s.next(), 0);
  EXPECT_LT(s.next(), 1'000'000);
  const auto t = Times(s, 100001);
  for (std::size_t i = 1; i < t.size(); ++i) {
    ASSERT_NEAR(t[i] - t[i - 1], 1'000'000, 1) << i;
  }
  EXPECT_NEAR(t.back() - t.front(), 100'000'000'000, 1);  // no drift
}

TEST(ScheduleTest, PoissonGapsAreExponential) {
  const auto t = Times(Schedule(Arrivals::kPoisson, 2000, 7, 3), 200001);
  double sum = 0, sum2 = 0;
  for (std::size_t i = 1; i < t.size(); ++i) {
    const double g = static_cast<double>(t[i] - t[i - 1]);
    ASSERT_GE(g, 0);
    sum += g;
    sum2 += g * g;
  }
  const double n = static_cast<double>(t.size() - 1);
  const double mean = sum / n;
  const double cv = std::sqrt(sum2 / n - mean * mean) / mean;
  EXPECT_NEAR(mean, 500'000, 500'000 * 0.01);
  EXPECT_NEAR(cv, 1.0, 0.02);
}

TEST(ScheduleTest, SeededPerConnection) {
  for (const Arrivals a : {Arrivals::kUniform, Arrivals::kPoisson}) {
    EXPECT_EQ(Times(Schedule(a, 100, 1, 0), 50),
              Times(Schedule(a, 100, 1, 0), 50));
    EXPECT_NE(Times(Schedule(a, 100, 1, 0), 50),
              Times(Schedule(a, 100, 1, 1), 50));
    EXPECT_NE(Times(Schedule(a, 100, 1, 0), 50),
              Times(Schedule(a, 100, 2, 0), 50));
  }
}

// One connection at 1000 requests/s (a 1 ms gap) against a server that
// answers each request 100 us after it is sent, except request 3, which it
// holds for 4.5 ms: the send and reply times under each mode.
struct Timed {
  std::int64_t intended, sent, reply;
};
std::vector<Timed> Simulate(Mode mode, int n) {
  Schedule s(Arrivals::kUniform, 1000, 1, 0);
  std::vector<Timed> out;
  std::int64_t previous_reply = 0;
  for (int i = 0; i < n; ++i, s.Advance()) {
    const std::int64_t sent = ReleaseTime(mode, s.next(), previous_reply);
    // Pipelined: the server answers in order, so a reply waits for the
    // previous one as well.
    const std::int64_t service = i == 3 ? 4'500'000 : 100'000;
    const std::int64_t reply = std::max(sent, previous_reply) + service;
    out.push_back({s.next(), sent, reply});
    previous_reply = reply;
  }
  return out;
}

TEST(ScheduleTest, SendLagIsFromTheReleaseTime) {
  // Pipelined, or serial and not held: from the intended time, never
  // negative.
  EXPECT_EQ(SendLag(Mode::kPipelined, 1000, 1300, 5000, 900), 300);
  EXPECT_EQ(SendLag(Mode::kSerial, 1000, 1300, 800, 900), 300);
  EXPECT_EQ(SendLag(Mode::kSerial, 1000, 900, 800, 0), 0);
  // Held: from the reply, or the previous request's lag where larger, but
  // never more than from its own intended time.
  EXPECT_EQ(SendLag(Mode::kSerial, 1000, 5030, 5000, 0), 30);
  EXPECT_EQ(SendLag(Mode::kSerial, 1000, 5030, 5000, 2000), 2000);
  EXPECT_EQ(SendLag(Mode::kSerial, 4000, 5030, 5000, 2000), 1030);
}

// A chain of held requests behind a busy server, the generator getting to
// each 30 us after the reply before: its lag stays 30 us (summed, it would
// be 100 x 30 us = 3 ms). A chain the generator started late (it was
// stopped for 300 ms) stays 300 ms late, request after request.
TEST(ScheduleTest, SendLagAlongAHeldChainIsTheLargestNotTheSum) {
  for (const std::int64_t first_lag :
       {std::int64_t{0}, std::int64_t{300'000'000}}) {
    std::int64_t previous_reply = 1'000'000'000, previous_lag = first_lag;
    std::int64_t worst = 0;
    for (int i = 0; i < 100; ++i) {
      const std::int64_t intended = 1000 * i;  // long due: every one held
      const std::int64_t got = previous_reply + 30'000;
      const std::int64_t lag =
          SendLag(Mode::kSerial, intended, got, previous_reply, previous_lag);
      worst = std::max(worst, lag);
      previous_lag = lag;
      previous_reply = got + 500'000;  // the server's turn
    }
    EXPECT_EQ(worst, std::max<std::int64_t>(first_lag, 30'000)) << first_lag;
    EXPECT_EQ(previous_lag, std::max<std::int64_t>(first_lag, 30'000));
  }
}

TEST(ScheduleTest, SerialHoldsTheNextRequestUntilTheReply) {
  const auto serial = Simulate(Mode::kSerial, 10);
  const std::int64_t t0 = serial[0].intended;  // the random phase
  for (std::size_t i = 0; i < serial.size(); ++i) {
    ASSERT_EQ(serial[i].intended, t0 + static_cast<std::int64_t>(i) * 1'000'000)
        << "the schedule does not move";
  }
  // Before the stall each request goes at its time.
  for (int i = 0; i <= 3; ++i) EXPECT_EQ(serial[i].sent, serial[i].intended);
  // Request 3's reply comes at t0 + 7.5 ms: requests 4..7, due at 4..7 ms,
  // go one after another behind it, each at the reply before.
  EXPECT_EQ(serial[3].reply, t0 + 7'500'000);
  for (int i = 4; i <= 7; ++i) {
    EXPECT_EQ(serial[i].sent, serial[i - 1].reply) << i;
    EXPECT_GT(serial[i].sent, serial[i].intended) << i;
  }
  EXPECT_EQ(serial[7].sent, t0 + 7'800'000);
  // The backlog is gone by request 8 (due at 8 ms, after 7's reply).
  EXPECT_EQ(serial[8].sent, serial[8].intended);
  // Latency is charged from the intended time: request 4 waited for 3.
  EXPECT_EQ(serial[4].reply - serial[4].intended, 3'600'000);
  // Never two in flight: every send is at or after the previous reply.
  for (std::size_t i = 1; i < serial.size(); ++i) {
    EXPECT_GE(serial[i].sent, serial[i - 1].reply) << i;
  }
}

TEST(ScheduleTest, PipelinedSendsOnScheduleWhateverTheReplies) {
  const auto piped = Simulate(Mode::kPipelined, 10);
  const auto serial = Simulate(Mode::kSerial, 10);
  for (std::size_t i = 0; i < piped.size(); ++i) {
    EXPECT_EQ(piped[i].sent, piped[i].intended) << i;
  }
  // Request 4 is in flight while 3 stalls; the corrected latency of the
  // requests behind the stall is the same either way.
  EXPECT_LT(piped[4].sent, piped[3].reply);
  for (std::size_t i = 0; i < piped.size(); ++i) {
    EXPECT_EQ(piped[i].reply - piped[i].intended,
              serial[i].reply - serial[i].intended)
        << i;
  }
}

TEST(ScheduleTest, Names) {
  EXPECT_EQ(ParseArrivals("uniform"), Arrivals::kUniform);
  EXPECT_EQ(ParseArrivals("poisson"), Arrivals::kPoisson);
  EXPECT_EQ(ParseArrivals("Poisson"), std::nullopt);
  EXPECT_EQ(ArrivalsName(Arrivals::kPoisson), "poisson");
  EXPECT_EQ(ParseMode("serial"), Mode::kSerial);
  EXPECT_EQ(ParseMode("pipelined"), Mode::kPipelined);
  EXPECT_EQ(ParseMode("closed"), std::nullopt);
  EXPECT_EQ(ModeName(Mode::kSerial), "serial");
}

}  // namespace
}  // namespace serverkit::loadgen
