// The conformance suite every logger in `all_loggers.h` runs through the
// shared interface: nothing lost and per-thread order kept on orderly
// shutdown, exact drop counters under forced overload, rotation, clear errors
// for an unwritable path and a full disk, flush that reaches the file, the
// console fd, and the level threshold. The reference (SyncLogger) runs first.
// Timing is never asserted.

#include "logger/logger.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <latch>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "base/sanitizers.h"
#include "gtest/gtest.h"
#include "logger/all_loggers.h"
#include "logger/internal/deferred_message.h"
#include "logger/sink.h"

#ifdef SERVERKIT_LOGGER_TEST_PLANTED
#include "logger/fuzz/planted_bug_logger.h"
#endif

namespace serverkit {
namespace {

constexpr int kMessagesPerThread = kUnderSanitizer ? 2'000 : 20'000;
constexpr int kOverloadMessages = kUnderSanitizer ? 5'000 : 20'000;
constexpr int kThreads = 4;

// A fresh directory under TEST_TMPDIR (or /tmp) for each call.
std::string FreshDir(const std::string& tag) {
  static std::atomic<int> counter{0};
  const char* base = std::getenv("TEST_TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") +
                    "/logger_test_" + std::to_string(::getpid()) + "_" + tag +
                    "_" + std::to_string(counter.fetch_add(1));
  ::mkdir(dir.c_str(), 0755);
  return dir;
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(d);
  }
  return names;
}

std::size_t FileSize(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size)
                                        : 0;
}

// Every test message is "msg <thread> <seq> <filler>"; finds the numbers.
bool ParseMessage(const std::string& line, int& thread, int& seq) {
  const std::size_t at = line.find(" msg ");
  if (at == std::string::npos) return false;
  return std::sscanf(line.c_str() + at, " msg %d %d", &thread, &seq) == 2;
}

std::string_view Filler(int seq) {
  static const std::string filler(600, 'x');
  return std::string_view(filler).substr(0,
                                         static_cast<std::size_t>(seq % 200));
}

LoggerOptions FileOptions(const std::string& path) {
  LoggerOptions o;
  o.sink.kind = SinkKind::kFile;
  o.sink.path = path;
  o.level = Level::kInfo;
  return o;
}

template <typename L>
class LoggerTest : public ::testing::Test {};

class LoggerNames {
 public:
  template <typename L>
  static std::string GetName(int) {
    return std::string(L::kName);
  }
};

#ifdef SERVERKIT_LOGGER_TEST_PLANTED
// logger_planted_test: the suite must fail each planted bug.
using AllLoggersTypes =
    ::testing::Types<PlantedBugLogger<PlantedBug::kLongLineCut>,
                     PlantedBugLogger<PlantedBug::kLevelDropped>>;
#else
using AllLoggersTypes = ApplyTypes<::testing::Types, AllLoggers>;
#endif
TYPED_TEST_SUITE(LoggerTest, AllLoggersTypes, LoggerNames);

TYPED_TEST(LoggerTest, ReportsItsContract) {
  using L = TypeParam;
  std::printf("[ impl     ] %s: %s, rotation %s\n",
              std::string(L::kName).c_str(), L::kAsync ? "async" : "sync",
              SupportsRotation<L>() ? "yes" : "no");
  EXPECT_FALSE(L::kName.empty());
}

// Several threads, many messages, orderly shutdown (the destructor, no
// flush): every line is in the file, once, in each thread's order.
TYPED_TEST(LoggerTest, NothingLostAndPerThreadOrderKeptOnShutdown) {
  using L = TypeParam;
  const std::string path = FreshDir("shutdown") + "/log.txt";
  {
    LoggerOptions o = FileOptions(path);
    o.queue_capacity = 1024;
    o.buffer_bytes = 64 * 1024;  // many buffer swaps
    L logger(o);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&logger, t] {
        for (int i = 0; i < kMessagesPerThread; ++i) {
          SK_LOG_INFO(logger, "msg {} {} {}", t, i, Filler(i));
        }
      });
    }
    for (auto& th : threads) th.join();
  }
  const std::vector<std::string> lines = ReadLines(path);
  ASSERT_EQ(lines.size(),
            static_cast<std::size_t>(kThreads * kMessagesPerThread));
  std::vector<int> next(kThreads, 0);
  for (const std::string& line : lines) {
    int t = -1, seq = -1;
    ASSERT_TRUE(ParseMessage(line, t, seq)) << line;
    ASSERT_GE(t, 0);
    ASSERT_LT(t, kThreads);
    ASSERT_EQ(seq, next[t]) << "thread " << t << " out of order: " << line;
    ++next[t];
    // The whole message made it (no truncation).
    ASSERT_NE(
        line.find(std::string(Filler(seq)) + (line.back() == '\r' ? "\r" : "")),
        std::string::npos);
  }
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(next[t], kMessagesPerThread);
}

// Lines from empty to past every internal buffer (64 KiB and more), at
// every level, from several threads that flush now and then: the file read
// back holds each line whole (its own filler, its length, its newline),
// once, at its level, in each thread's order. Checked against what was sent,
// not the counters: after a last flush() while the logger lives, and again
// after its destructor.
constexpr std::size_t kLongLengths[] = {
    0, 1, 100, 1023, 1024, 1025, 4095, 4096, 8191, 16384, 65535, 65536, 70000};
constexpr Level kAllLevels[] = {Level::kTrace, Level::kDebug, Level::kInfo,
                                Level::kWarn,  Level::kError, Level::kCritical};
// Each length at each level twice (once under a sanitizer, which slows the
// queue loggers' spinning producers most).
constexpr int kLongPerThread =
    (kUnderSanitizer ? 1 : 2) * std::size(kLongLengths) * std::size(kAllLevels);
constexpr int kLongFlushEvery = 11;  // prime to both list sizes

std::string LongFiller(int thread, int seq, std::size_t n) {
  return std::string(n, static_cast<char>('a' + (thread * 7 + seq) % 26));
}

// What LongLinesAtEveryLevelWholeOnceAndInOrder sent, against `lines`.
void CheckLongLines(const std::vector<std::string>& lines,
                    const std::string& when) {
  ASSERT_EQ(lines.size(), static_cast<std::size_t>(kThreads * kLongPerThread))
      << "lines lost, merged or split (" << when << ")";
  std::vector<int> next(kThreads, 0);
  for (const std::string& raw : lines) {
    const std::string line = !raw.empty() && raw.back() == '\r'
                                 ? raw.substr(0, raw.size() - 1)
                                 : raw;
    int t = -1, seq = -1;
    ASSERT_TRUE(ParseMessage(line, t, seq))
        << when << ": " << line.substr(0, 200);
    ASSERT_GE(t, 0);
    ASSERT_LT(t, kThreads);
    ASSERT_EQ(seq, next[t])
        << "thread " << t << " out of order (" << when << ")";
    ++next[t];
    const std::size_t n = kLongLengths[seq % std::size(kLongLengths)];
    const std::string want = " msg " + std::to_string(t) + " " +
                             std::to_string(seq) + " " + std::to_string(n) +
                             " <" + LongFiller(t, seq, n) + ">";
    ASSERT_GE(line.size(), want.size())
        << "cut short: " << n << " bytes (" << when << ")";
    ASSERT_EQ(line.substr(line.size() - want.size()), want)
        << "thread " << t << " line " << seq << " (" << n
        << " bytes) not whole (" << when << ")";
    // The level's name in the record's head, in the logger's own spelling
    // ("WARN " here, "warning" in spdlog): its first four letters.
    const Level level = kAllLevels[seq % std::size(kAllLevels)];
    std::string head = line.substr(0, line.find(" msg "));
    for (char& c : head) c = static_cast<char>(std::tolower(c));
    std::string name(LevelName(level).substr(0, 4));
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    ASSERT_NE(head.find(name), std::string::npos)
        << "line " << seq << " not at level " << LevelName(level) << ": "
        << head << " (" << when << ")";
  }
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(next[t], kLongPerThread);
}

TYPED_TEST(LoggerTest, LongLinesAtEveryLevelWholeOnceAndInOrder) {
  using L = TypeParam;
  const std::string path = FreshDir("long") + "/log.txt";
  {
    LoggerOptions o = FileOptions(path);
    o.level = Level::kTrace;
    o.flush_on = Level::kOff;  // only the threads' own flushes
    o.queue_capacity = 64;
    o.buffer_bytes = 64 * 1024;  // lines as long as a whole buffer
    L logger(o);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&logger, t] {
        for (int i = 0; i < kLongPerThread; ++i) {
          const std::size_t n = kLongLengths[i % std::size(kLongLengths)];
          const Level level = kAllLevels[i % std::size(kAllLevels)];
          logger.log(level, SK_LOG_HERE, "msg {} {} {} <{}>", t, i, n,
                     LongFiller(t, i, n));
          if (i % kLongFlushEvery == kLongFlushEvery - 1) {
            EXPECT_TRUE(logger.flush());
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_TRUE(logger.flush());
    CheckLongLines(ReadLines(path), "after flush()");
    if (::testing::Test::HasFatalFailure()) return;
  }
  CheckLongLines(ReadLines(path), "after the destructor");
}

// A message's bytes go to the file as they are, '\n', '\r', NUL and bytes
// above 0x7f included, followed by exactly one '\n' (a message ending in '\n'
// gets a second one): each record is a header without a newline, then the
// message, then '\n'. Every message starts with a marker, "\x1e<i>\x1f",
// that no header holds, so the file is read record by record rather than
// line by line.
TYPED_TEST(LoggerTest, MessageBytesWrittenVerbatimWithOneNewline) {
  using L = TypeParam;
  const std::string path = FreshDir("verbatim") + "/log.txt";
  const std::string bodies[] = {
      "",
      "\n",
      "\n\n",
      "ends in newline\n",
      "a\nb",
      "\r\n",
      "cr\r",
      std::string("nul\0mid", 7),
      "\xff\xfe\x80",
      "\x1b[31mred",
      std::string(3000, '\n'),
      std::string(1500, 'x') + "\n" + std::string(1500, 'y') + "\n"};
  std::vector<std::string> sent;
  {
    LoggerOptions o = FileOptions(path);
    o.level = Level::kTrace;
    o.buffer_bytes = 4096;
    L logger(o);
    for (std::size_t i = 0; i < std::size(bodies); ++i) {
      sent.push_back("\x1e" + std::to_string(i) + "\x1f" + bodies[i]);
      logger.log(kAllLevels[i % std::size(kAllLevels)], SK_LOG_HERE, "{}",
                 std::string_view(sent.back()));
    }
    EXPECT_TRUE(logger.flush());
  }
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  std::size_t p = 0;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const std::string marker = "\x1e" + std::to_string(i) + "\x1f";
    const std::size_t q = text.find(marker, p);
    ASSERT_NE(q, std::string::npos) << "record " << i << " is missing";
    const std::string head = text.substr(p, q - p);
    ASSERT_EQ(head.find('\n'), std::string::npos)
        << "record " << i << ": a newline before its message: " << head;
    ASSERT_EQ(text.compare(q, sent[i].size(), sent[i]), 0)
        << "record " << i << " (" << sent[i].size() << " bytes) altered";
    ASSERT_LT(q + sent[i].size(), text.size()) << "record " << i << " cut";
    ASSERT_EQ(text[q + sent[i].size()], '\n')
        << "record " << i << " does not end with one newline";
    p = q + sent[i].size() + 1;
  }
  EXPECT_EQ(p, text.size()) << "bytes after the last record";
}

// flush() returns with every earlier record in the file (read while the
// logger is still alive), and the counters say so.
TYPED_TEST(LoggerTest, FlushReachesTheFile) {
  using L = TypeParam;
  const std::string path = FreshDir("flush") + "/log.txt";
  L logger(FileOptions(path));
  constexpr int kCount = 1000;
  for (int round = 1; round <= 2; ++round) {
    for (int i = 0; i < kCount; ++i)
      SK_LOG_INFO(logger, "msg {} {} {}", 0, i, "y");
    EXPECT_TRUE(logger.flush());
    EXPECT_EQ(ReadLines(path).size(), static_cast<std::size_t>(round * kCount));
    const LoggerStats s = logger.stats();
    EXPECT_EQ(s.written, static_cast<std::uint64_t>(round * kCount));
    EXPECT_EQ(s.dropped, 0u);
    EXPECT_EQ(s.io_errors, 0u);
    EXPECT_EQ(s.last_error, "");
  }
}

// A sink that cannot keep up: a FIFO whose reader waits on a latch. An async
// logger's producers run to their end while nobody reads, so the pipe, stdio's
// buffer and the logger's own queue or buffers fill and stay full; the
// producers log far more than all of that can hold (asserted first), so the
// drops are certain, not a matter of timing. A synchronous logger writes on
// the producers' threads and would wait forever on an unread pipe, so its
// reader starts at once (it never drops). With the drop policy, every record
// is either written or counted as dropped, exactly.
TYPED_TEST(LoggerTest, DropCountersExactUnderForcedOverload) {
  using L = TypeParam;
  const std::string path = FreshDir("overload") + "/fifo";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << std::strerror(errno);
  const int rfd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(rfd, 0) << std::strerror(errno);
  const int pipe_bytes = ::fcntl(rfd, F_GETPIPE_SZ);
  ASSERT_GT(pipe_bytes, 0) << std::strerror(errno);

  LoggerOptions o = FileOptions(path);
  o.overflow = OverflowPolicy::kDrop;
  o.queue_capacity = 64;
  o.buffer_bytes = 4096;
  o.max_buffers = 2;
  o.flush_interval = std::chrono::milliseconds(10);
  constexpr int kProducers = 2;
  const std::uint64_t total = std::uint64_t{kProducers} * kOverloadMessages;
  // Each line holds at least its 80-byte payload and a newline. With these
  // options an async logger holds far less than `kHeldAtMost` while its
  // writes block: 64 queued records or a few 4 KiB buffers, a 64 KiB
  // formatting buffer, stdio's 64 KiB.
  constexpr std::uint64_t kMinLineBytes = 80 + 1;
  constexpr std::uint64_t kHeldAtMost = 512 * 1024;
  if constexpr (L::kAsync) {
    ASSERT_GT(total * kMinLineBytes,
              static_cast<std::uint64_t>(pipe_bytes) + kHeldAtMost)
        << "too few records to overflow the pipe and the logger";
  }

  std::string received;
  LoggerStats held;  // async: before anything was read
  LoggerStats s;
  {
    auto logger = std::make_unique<L>(o);
    std::latch reader_go(1);
    // Reads from the release until EOF (the logger closed its end).
    std::thread reader([&] {
      reader_go.wait();
      char buf[65536];
      for (;;) {
        pollfd p{rfd, POLLIN, 0};
        ::poll(&p, 1, 100);
        const ssize_t n = ::read(rfd, buf, sizeof(buf));
        if (n > 0) {
          received.append(buf, static_cast<std::size_t>(n));
        } else if (n == 0) {
          break;  // EOF: no writer left
        } else if (errno != EAGAIN && errno != EINTR) {
          break;
        }
      }
    });
    if constexpr (!L::kAsync) reader_go.count_down();
    std::vector<std::thread> producers;
    for (int t = 0; t < kProducers; ++t) {
      producers.emplace_back([&, t] {
        for (int i = 0; i < kOverloadMessages; ++i) {
          SK_LOG_INFO(*logger, "msg {} {} {}", t, i, std::string(80, 'z'));
        }
      });
    }
    for (auto& p : producers) p.join();
    held = logger->stats();
    if constexpr (L::kAsync) reader_go.count_down();
    EXPECT_TRUE(logger->flush());
    s = logger->stats();
    logger.reset();  // closes the write end: the reader sees EOF
    reader.join();
  }
  ::close(rfd);

  std::printf(
      "[ overload ] %s: written %llu, dropped %llu of %llu "
      "(%llu dropped unread)\n",
      std::string(L::kName).c_str(), static_cast<unsigned long long>(s.written),
      static_cast<unsigned long long>(s.dropped),
      static_cast<unsigned long long>(total),
      static_cast<unsigned long long>(held.dropped));
  EXPECT_EQ(s.written + s.dropped, total);
  EXPECT_EQ(s.io_errors, 0u) << s.last_error;
  const std::vector<std::string> lines = SplitLines(received);
  EXPECT_EQ(lines.size(), s.written);
  if constexpr (L::kAsync) {
    EXPECT_GT(held.dropped, 0u)
        << "nothing was dropped while the sink was not read";
  } else {
    EXPECT_EQ(s.dropped, 0u) << "a synchronous logger never drops";
  }
  // What was written keeps each thread's order.
  std::map<int, int> last;
  for (const std::string& line : lines) {
    int t = -1, seq = -1;
    ASSERT_TRUE(ParseMessage(line, t, seq)) << line;
    auto it = last.find(t);
    if (it != last.end()) {
      ASSERT_GT(seq, it->second);
    }
    last[t] = seq;
  }
}

// Size rotation: the live file plus `max_files` rotated ones, none above the
// limit, holding the newest lines without a gap.
TYPED_TEST(LoggerTest, RotationProducesThePromisedFiles) {
  using L = TypeParam;
  if constexpr (!SupportsRotation<L>()) {
    GTEST_SKIP() << L::kName << " does not rotate";
  } else {
    const std::string dir = FreshDir("rotation");
    constexpr std::size_t kLimit = 4096;
    constexpr std::size_t kKept = 3;
    constexpr int kCount = 2000;  // about 200 KiB: dozens of rotations
    {
      LoggerOptions o = FileOptions(dir + "/app.log");
      o.sink.rotate_bytes = kLimit;
      o.sink.max_files = kKept;
      o.buffer_bytes = 16 * 1024;
      L logger(o);
      for (int i = 0; i < kCount; ++i)
        SK_LOG_INFO(logger, "msg {} {} {}", 0, i, Filler(50));
      EXPECT_TRUE(logger.flush());
      EXPECT_EQ(logger.stats().io_errors, 0u) << logger.stats().last_error;
    }
    const std::vector<std::string> files = ListDir(dir);
    EXPECT_EQ(files.size(), 1 + kKept);
    std::set<int> seqs;
    for (const std::string& name : files) {
      const std::string path = dir + "/" + name;
      EXPECT_LE(FileSize(path), kLimit) << name;
      EXPECT_GT(FileSize(path), 0u) << name;
      for (const std::string& line : ReadLines(path)) {
        int t, seq;
        ASSERT_TRUE(ParseMessage(line, t, seq)) << line;
        EXPECT_TRUE(seqs.insert(seq).second) << "duplicate line " << seq;
      }
    }
    ASSERT_FALSE(seqs.empty());
    EXPECT_EQ(*seqs.rbegin(), kCount - 1) << "the newest line is missing";
    EXPECT_EQ(static_cast<std::size_t>(*seqs.rbegin() - *seqs.begin() + 1),
              seqs.size())
        << "a gap in the kept lines";
    std::printf("[ rotation ] %s: files:", std::string(L::kName).c_str());
    for (const auto& f : files) std::printf(" %s", f.c_str());
    std::printf("\n");
  }
}

// A path whose parent is a regular file can never be opened (not even by
// root, and spdlog cannot create the directory): a clear exception.
TYPED_TEST(LoggerTest, UnwritablePathGivesAClearError) {
  using L = TypeParam;
  const std::string blocker = FreshDir("unwritable") + "/not_a_dir";
  { std::ofstream(blocker) << "x"; }
  const std::string path = blocker + "/app.log";
  try {
    L logger(FileOptions(path));
    ADD_FAILURE() << "no error for " << path;
  } catch (const std::system_error& e) {
    const std::string what = e.what();
    std::printf("[ error    ] %s: %s\n", std::string(L::kName).c_str(),
                what.c_str());
    EXPECT_NE(what.find(path), std::string::npos) << what;
  }
}

// /dev/full: every write fails with ENOSPC. No crash, no hang; flush reports
// it and the error is in words.
TYPED_TEST(LoggerTest, FullDiskGivesAnErrorNotACrashOrHang) {
  using L = TypeParam;
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  LoggerStats s;
  bool flushed_ok = true;
  {
    L logger(FileOptions("/dev/full"));
    // More than any stdio buffer, so writes reach the device.
    for (int i = 0; i < 3000; ++i)
      SK_LOG_INFO(logger, "msg {} {} {}", 0, i, Filler(150));
    flushed_ok = logger.flush();
    s = logger.stats();
    // Logging on after the error is harmless too.
    for (int i = 0; i < 100; ++i)
      SK_LOG_ERROR(logger, "msg {} {} {}", 0, i, "after");
  }
  std::printf("[ full     ] %s: io_errors %llu, last error: %s\n",
              std::string(L::kName).c_str(),
              static_cast<unsigned long long>(s.io_errors),
              s.last_error.c_str());
  EXPECT_FALSE(flushed_ok);
  EXPECT_GT(s.io_errors, 0u);
  EXPECT_FALSE(s.last_error.empty());
}

// The console sink writes to the fd it was given (here a file).
TYPED_TEST(LoggerTest, ConsoleWritesToTheGivenFd) {
  using L = TypeParam;
  const std::string path = FreshDir("console") + "/console.txt";
  const int fd =
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  {
    LoggerOptions o;
    o.sink.kind = SinkKind::kConsole;
    o.sink.fd = fd;
    L logger(o);
    for (int i = 0; i < 100; ++i)
      SK_LOG_WARN(logger, "msg {} {} {}", 0, i, "c");
    EXPECT_TRUE(logger.flush());
    EXPECT_EQ(ReadLines(path).size(), 100u);
  }
  ::close(fd);
  EXPECT_EQ(ReadLines(path).size(), 100u);
}

// The runtime threshold: records below it are not made (their arguments are
// not even evaluated); set_level moves it.
TYPED_TEST(LoggerTest, LevelThreshold) {
  using L = TypeParam;
  const std::string path = FreshDir("level") + "/log.txt";
  LoggerOptions o = FileOptions(path);
  o.level = Level::kWarn;
  L logger(o);
  int evaluated = 0;
  auto arg = [&] { return ++evaluated; };
  SK_LOG_INFO(logger, "msg {} {} hidden", 0, arg());
  SK_LOG_DEBUG(logger, "msg {} {} hidden", 0, arg());
  SK_LOG_WARN(logger, "msg {} {} shown", 0, arg());
  EXPECT_EQ(evaluated, 1);
  EXPECT_FALSE(logger.should_log(Level::kInfo));
  logger.set_level(Level::kDebug);
  EXPECT_TRUE(logger.should_log(Level::kDebug));
  SK_LOG_DEBUG(logger, "msg {} {} shown", 0, arg());
  SK_LOG_TRACE(logger, "msg {} {} hidden", 0, arg());
  logger.set_level(Level::kOff);
  SK_LOG_CRITICAL(logger, "msg {} {} hidden", 0, arg());
  EXPECT_TRUE(logger.flush());
  const std::vector<std::string> lines = ReadLines(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("msg 0 1 shown"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("msg 0 2 shown"), std::string::npos) << lines[1];
  EXPECT_EQ(logger.stats().written, 2u);
}

// ------------------------------------------------------------- the helpers

TEST(LevelTest, FloorAndNames) {
  static_assert(AtOrAboveFloor(Level::kTrace) == (SERVERKIT_LOG_FLOOR == 0));
  static_assert(AtOrAboveFloor(Level::kCritical));
  EXPECT_EQ(LevelName(Level::kInfo), "INFO ");
  EXPECT_EQ(LevelName(Level::kError), "ERROR");
}

TEST(DeferredMessageTest, FormatsCopiesOfItsArguments) {
  using logger_internal::DeferredMessage;
  std::string text = "hello";
  const char* cstr = text.c_str();
  DeferredMessage m(fmt::string_view("{} {} {:.2f} {}"), std::string_view(text),
                    42, 1.5, cstr);
  text.assign("XXXXX");  // the message kept its own copy
  DeferredMessage moved(std::move(m));
  EXPECT_TRUE(m.empty());
  fmt::memory_buffer out;
  moved.FormatTo(out);
  EXPECT_EQ(fmt::to_string(out), "hello 42 1.50 hello");
}

TEST(DeferredMessageTest, LargeArgumentsGoToTheHeap) {
  using logger_internal::DeferredMessage;
  DeferredMessage small(fmt::string_view("{}"), 1);
  EXPECT_TRUE(small.stored_inline());
  DeferredMessage big(fmt::string_view("{}{}{}{}"), std::string("a"),
                      std::string("b"), std::string("c"), std::string("d"));
  EXPECT_FALSE(big.stored_inline());
  DeferredMessage moved;
  moved = std::move(big);
  fmt::memory_buffer out;
  moved.FormatTo(out);
  EXPECT_EQ(fmt::to_string(out), "abcd");
}

TEST(FileSinkTest, RotatesAtLineBoundariesWithNumberedNames) {
  const std::string dir = FreshDir("sink");
  const std::string path = dir + "/x.log";
  {
    FileSink sink(path, 100, 2);
    std::string chunk;
    for (int i = 0; i < 30; ++i)
      chunk += fmt::format("line {:04}\n", i);  // 10 B each
    ASSERT_TRUE(sink.Write(chunk));             // one call, split over files
    ASSERT_TRUE(sink.Flush());
  }
  EXPECT_EQ(ReadLines(path + ".2").front(), "line 0000");
  EXPECT_EQ(ReadLines(path + ".1").front(), "line 0010");
  EXPECT_EQ(ReadLines(path).front(), "line 0020");
  EXPECT_EQ(ReadLines(path).size(), 10u);
  EXPECT_EQ(ListDir(dir).size(), 3u);
}

TEST(FileSinkTest, LineLongerThanTheLimitGetsItsOwnFile) {
  const std::string dir = FreshDir("longline");
  const std::string path = dir + "/x.log";
  {
    FileSink sink(path, 16, 5);
    ASSERT_TRUE(sink.Write("short\n" + std::string(40, 'L') + "\nshort2\n"));
  }
  EXPECT_EQ(ReadLines(path + ".2"), std::vector<std::string>{"short"});
  EXPECT_EQ(ReadLines(path + ".1"),
            std::vector<std::string>{std::string(40, 'L')});
  EXPECT_EQ(ReadLines(path), std::vector<std::string>{"short2"});
}

TEST(AsyncQueueLoggerTest, NamesJoinTheQueueName) {
  EXPECT_EQ(AsyncQueueLogger<MoodycamelQueue>::kName, "async-queue-moodycamel");
  EXPECT_EQ(AsyncQueueLogger<BoundedMpmcQueue>::kName,
            "async-queue-bounded-mpmc");
}

}  // namespace
}  // namespace serverkit
