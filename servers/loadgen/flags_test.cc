// ParseFlags: defaults, every flag, and a clear error for each kind of bad
// command line (the exit status 2 is checked end to end in
// loadgen_test.py).

#include "servers/loadgen/flags.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace serverkit::loadgen {
namespace {

ParsedFlags Parse(std::vector<std::string_view> args) {
  return ParseFlags(args);
}

TEST(FlagsTest, DefaultsWithTheRequiredFlags) {
  const ParsedFlags p = Parse({"--protocol=echo", "--port=80", "--rate=100"});
  ASSERT_EQ(p.error, "");
  const Options& o = p.options;
  EXPECT_EQ(o.protocol, Protocol::kEcho);
  EXPECT_EQ(o.host, "127.0.0.1");
  EXPECT_EQ(o.port, 80);
  EXPECT_EQ(o.connections, 16);
  EXPECT_EQ(o.threads, 1);
  EXPECT_EQ(o.rate, 100);
  EXPECT_EQ(o.duration_s, 2);
  EXPECT_EQ(o.warmup_s, 0.5);
  EXPECT_EQ(o.arrivals, Arrivals::kUniform);
  EXPECT_EQ(o.mode, Mode::kPipelined);  // echo's default
  EXPECT_EQ(o.seed, 1u);
  EXPECT_EQ(o.size, 64u);
  EXPECT_EQ(o.max_lag_us, 1000);
  EXPECT_EQ(o.json, "");
}

// HTTP clients do not pipeline, so http's default is one request in flight
// per connection; either protocol takes either mode.
TEST(FlagsTest, ModeDefaultsByProtocol) {
  EXPECT_EQ(Parse({"--protocol=http", "--port=80", "--rate=1"}).options.mode,
            Mode::kSerial);
  EXPECT_EQ(
      Parse({"--protocol=http", "--port=80", "--rate=1", "--mode=pipelined"})
          .options.mode,
      Mode::kPipelined);
  EXPECT_EQ(Parse({"--protocol=echo", "--port=80", "--rate=1", "--mode=serial"})
                .options.mode,
            Mode::kSerial);
  EXPECT_EQ(ModeName(Mode::kSerial), "serial");
  EXPECT_EQ(ModeName(Mode::kPipelined), "pipelined");
}

TEST(FlagsTest, EveryFlag) {
  const ParsedFlags p =
      Parse({"--protocol=http", "--host=::1", "--port=8080", "--connections=8",
             "--threads=2", "--rate=2.5e3", "--duration=1.5", "--warmup=0",
             "--arrivals=poisson", "--seed=42", "--path=/x?y",
             "--host_header=h:1", "--max_lag_us=500", "--json=/tmp/r.json",
             "--count_above_us=7", "--mode=pipelined"});
  ASSERT_EQ(p.error, "");
  const Options& o = p.options;
  EXPECT_EQ(o.protocol, Protocol::kHttp);
  EXPECT_EQ(o.host, "::1");
  EXPECT_EQ(o.threads, 2);
  EXPECT_EQ(o.rate, 2500);
  EXPECT_EQ(o.duration_s, 1.5);
  EXPECT_EQ(o.warmup_s, 0);
  EXPECT_EQ(o.arrivals, Arrivals::kPoisson);
  EXPECT_EQ(o.seed, 42u);
  EXPECT_EQ(o.path, "/x?y");
  EXPECT_EQ(o.host_header, "h:1");
  EXPECT_EQ(o.max_lag_us, 500);
  EXPECT_EQ(o.json, "/tmp/r.json");
  EXPECT_EQ(o.count_above_us, 7);
  EXPECT_EQ(o.mode, Mode::kPipelined);
}

TEST(FlagsTest, Help) { EXPECT_TRUE(Parse({"--help"}).help); }

// The required flags, with `flag` in place of the one of the same name or
// added after them.
std::vector<std::string> With(const std::string& flag) {
  std::vector<std::string> args = {"--protocol=echo", "--port=80",
                                   "--rate=100"};
  const std::size_t eq = flag.find('=');
  for (std::string& a : args) {
    if (eq != std::string::npos && a.starts_with(flag.substr(0, eq + 1))) {
      a = flag;
      return args;
    }
  }
  args.push_back(flag);
  return args;
}

std::string ErrorOf(const std::vector<std::string>& args) {
  return ParseFlags(std::vector<std::string_view>(args.begin(), args.end()))
      .error;
}

TEST(FlagsTest, Errors) {
  const std::pair<std::string, std::string> cases[] = {
      {"--protocol=ftp", "bad value \"ftp\" for --protocol"},
      {"--port=0", "for --port"},
      {"--port=65536", "for --port"},
      {"--port=80x", "for --port"},
      {"--rate=0", "for --rate"},
      {"--rate=-5", "for --rate"},
      {"--rate=nan", "for --rate"},
      {"--rate=inf", "for --rate"},
      {"--rate=", "for --rate"},
      {"--connections=0", "for --connections"},
      {"--threads=0", "for --threads"},
      {"--threads=17", "exceeds --connections=16"},
      {"--duration=0", "for --duration"},
      {"--warmup=-1", "for --warmup"},
      {"--arrivals=bursty", "for --arrivals"},
      {"--mode=closed", "bad value \"closed\" for --mode"},
      {"--mode=Serial", "for --mode"},
      {"--seed=-1", "for --seed"},
      {"--size=0", "for --size"},
      {"--max_lag_us=0", "for --max_lag_us"},
      {"--count_above_us=0", "for --count_above_us"},
      {"--host=localhost", "numeric IPv4 or IPv6"},
      {"--json=", "--json needs a path"},
      {"--path=/", "http only"},
      {"--bogus=1", "unknown flag --bogus"},
      {"--rate", "expected --name=value"},
      {"positional", "expected --name=value"},
  };
  for (const auto& [flag, message] : cases) {
    const std::string error = ErrorOf(With(flag));
    EXPECT_NE(error.find(message), std::string::npos)
        << flag << ": \"" << error << "\"";
  }
  const auto expect = [](const std::vector<std::string>& args,
                         const std::string& message) {
    const std::string error = ErrorOf(args);
    EXPECT_NE(error.find(message), std::string::npos) << error;
  };
  expect({"--protocol=echo", "--port=80", "--rate=1", "--port=81"},
         "--port given twice");
  expect({"--port=80", "--rate=1"}, "missing required flag --protocol");
  expect({"--protocol=echo", "--rate=1"}, "missing required flag --port");
  expect({"--protocol=echo", "--port=1"}, "missing required flag --rate");
  expect({"--protocol=http", "--port=1", "--rate=1", "--size=9"}, "echo only");
  expect({"--protocol=http", "--port=1", "--rate=1", "--path=x"}, "for --path");
  expect({"--protocol=http", "--port=1", "--rate=1", "--host_header=a b"},
         "for --host_header");
}

}  // namespace
}  // namespace serverkit::loadgen
