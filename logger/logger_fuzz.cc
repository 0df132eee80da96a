// Fuzz target: every logger of logger/all_loggers.h against the reference
// (sync) and a model, through the shared interface, one thread.
//
// The input chooses the options (the runtime threshold, flush_on, the queue
// capacity, the double buffer's size and count, size rotation and its limit,
// the flush interval), which loggers run beside the reference (one of the
// list, or all of them in lock-step), then a program that every logger
// runs alike: records of 0 to 70,000 bytes (around 1 KiB, 4 KiB, 64 KiB and
// the buffer's size on purpose) at any level, their bytes made from a
// fuzzer-chosen pattern ('\n', '\r', NUL and bytes above 0x7f included),
// through three forms of the format call; bursts of records that step
// through the levels; set_level; flush().
//
// How a record is written (the loggers' contract, logger/logger.h): a header
// of the logger's own layout, without a newline, that names the record's
// level, then the message's bytes verbatim, then exactly one '\n'. A message
// that holds '\n' therefore spans several lines of the file; nothing is
// escaped (a caller who needs one line per record escapes its fields, as the
// HTTP access log does). Each message starts with a marker, "\x1e<n>\x1f"
// (n: the record's number), a byte no header holds, so the file is read back
// record by record without trusting '\n' to end one.
//
// The oracle, after every flush() (while the loggers live) and after the
// destructors (orderly shutdown): the reference's file holds exactly the
// model's records (those at or above the threshold at the time of the call,
// in order), whole, each once and with its newline, and nothing else; then
// every other logger's file holds the same records, the failure naming the
// first one that differs. With rotation the files are read oldest first
// (ours: path.N ... path.1, path; spdlog: base.N.ext ...), each rotated file
// ends with a newline, and the limit is sized so nothing is deleted. Also:
// should_log agrees with the model, flush() returns true, and stats() counts
// every record written and none dropped (the counters are checked, but the
// file is what decides).
//
// Mutants (SERVERKIT_FUZZ_MUTANT with one more define), the two bugs the
// typed tests once missed (logger/fuzz/planted_bug_logger.h), each a logger
// added to the list:
//   - SERVERKIT_FUZZ_MUTANT_LONG_LINE: a line over 1 KiB is cut short and
//     loses its newline;
//   - SERVERKIT_FUZZ_MUTANT_LEVEL_DROPPED: records at WARN are silently
//     dropped (and counted as written).

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/type_list.h"
#include "build/fuzz/fuzz.h"
#include "logger/all_loggers.h"
#include "logger/logger.h"
#include "logger/sync_logger.h"

#ifdef SERVERKIT_FUZZ_MUTANT
#include "logger/fuzz/planted_bug_logger.h"
#endif

namespace serverkit {
namespace {

using fuzz::ByteReader;
using fuzz::Printable;
using fuzz::Trace;

#if defined(SERVERKIT_FUZZ_MUTANT_LONG_LINE)
using Planted = TypeList<PlantedBugLogger<PlantedBug::kLongLineCut>>;
#elif defined(SERVERKIT_FUZZ_MUTANT_LEVEL_DROPPED)
using Planted = TypeList<PlantedBugLogger<PlantedBug::kLevelDropped>>;
#elif defined(SERVERKIT_FUZZ_MUTANT)
#error \
    "a logger_fuzz mutant names its bug: SERVERKIT_FUZZ_MUTANT_LONG_LINE or _LEVEL_DROPPED"
#else
using Planted = TypeList<>;
#endif

// Every logger but the reference: a new one in all_loggers.h is fuzzed too.
using Fuzzed = Concat<Without<AllLoggers, TypeList<SyncLogger>>, Planted>;

// An input's budget: operations, flushes (each reads every file back), and
// message bytes (each logger writes them all; less with rotation, whose
// renames cost more per file).
constexpr int kMaxOps = 200;
constexpr int kMaxFlushes = 16;
constexpr std::size_t kMaxBytes = 1 << 20;
constexpr std::size_t kMaxBytesRotating = 256 << 10;
constexpr std::size_t kRotatedLimits = 64;
constexpr std::size_t kMaxLength = 70'000;
constexpr std::size_t kMaxHeader = 512;  // longer: a record ran into it

constexpr Level kLevels[] = {Level::kTrace, Level::kDebug, Level::kInfo,
                             Level::kWarn,  Level::kError, Level::kCritical,
                             Level::kOff};

std::string LevelText(Level level) {
  return std::string(LevelName(level).substr(0, 5));
}

// The message's first bytes; \x1e appears in no header.
std::string Marker(std::uint64_t n) {
  return "\x1e" + std::to_string(n) + "\x1f";
}

// A record the model expects in the file.
struct Expected {
  Level level;
  std::string message;  // the marker and the payload
};

// The shared interface behind one virtual call, so the loggers of one input
// sit in one vector.
class AnyLogger {
 public:
  virtual ~AnyLogger() = default;
  virtual std::string name() const = 0;
  virtual bool should_log(Level level) const = 0;
  virtual void set_level(Level level) = 0;
  // Form 0: "{}" of one string_view; 1: the marker's number as an integer
  // argument and the payload as a string_view; 2: two std::string rvalues.
  virtual void Log(Level level, int form, std::uint64_t n,
                   std::string_view payload) = 0;
  virtual bool flush() = 0;
  virtual LoggerStats stats() const = 0;
};

template <typename L>
class Boxed final : public AnyLogger {
 public:
  explicit Boxed(const LoggerOptions& o) : logger_(o) {}
  std::string name() const override { return std::string(L::kName); }
  bool should_log(Level level) const override {
    return logger_.should_log(level);
  }
  void set_level(Level level) override { logger_.set_level(level); }
  void Log(Level level, int form, std::uint64_t n,
           std::string_view payload) override {
    switch (form) {
      case 0: {
        const std::string message = Marker(n) + std::string(payload);
        logger_.log(level, SK_LOG_HERE, "{}", std::string_view(message));
        break;
      }
      case 1:
        logger_.log(level, SK_LOG_HERE, "\x1e{}\x1f{}", n, payload);
        break;
      default:
        logger_.log(level, SK_LOG_HERE, "{}{}", Marker(n),
                    std::string(payload));
        break;
    }
  }
  bool flush() override { return logger_.flush(); }
  LoggerStats stats() const override { return logger_.stats(); }

 private:
  L logger_;
};

// Where this process's loggers write: one folder per logger, emptied for
// each input, removed at exit (never freed, so the exit handler may use it).
const std::filesystem::path& WorkDir() {
  static const std::filesystem::path* const dir = [] {
    const char* base = std::getenv("TEST_TMPDIR");
    if (base == nullptr) base = std::getenv("TMPDIR");
    auto* d = new std::filesystem::path(
        std::filesystem::path(base != nullptr ? base : "/tmp") /
        ("logger_fuzz." + std::to_string(::getpid())));
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(WorkDir(), ec);
    });
    return d;
  }();
  return *dir;
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The number N of a rotated file ("log.txt.N", ours; "log.N.txt",
// spdlog's); 0 for the live file; -1 for any other name.
long RotatedNumber(const std::string& name) {
  if (name == "log.txt") return 0;
  std::string digits;
  if (name.rfind("log.txt.", 0) == 0) {
    digits = name.substr(8);
  } else if (name.rfind("log.", 0) == 0 && name.size() > 8 &&
             name.compare(name.size() - 4, 4, ".txt") == 0) {
    digits = name.substr(4, name.size() - 8);
  }
  if (digits.empty() || digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(),
                   [](char c) { return c >= '0' && c <= '9'; })) {
    return -1;
  }
  return std::stol(digits);
}

// A logger's bytes: its rotated files oldest first, then the live file.
std::string ReadLog(const std::filesystem::path& dir, const std::string& who,
                    bool rotating) {
  std::vector<std::pair<long, std::filesystem::path>> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const long n = RotatedNumber(name);
    SK_FUZZ_CHECK(n >= 0, who + ": an unexpected file " + name);
    SK_FUZZ_CHECK(rotating || n == 0,
                  who + ": a rotated file " + name + " without rotation");
    files.emplace_back(n, e.path());
  }
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string all;
  for (const auto& [n, path] : files) {
    std::string text = ReadFile(path);
    if (n > 0) {
      SK_FUZZ_CHECK(!text.empty() && text.back() == '\n',
                    who + ": rotated file " + path.filename().string() +
                        " is empty or ends inside a line");
    }
    all += text;
  }
  return all;
}

bool HeadNamesLevel(std::string_view head, Level level) {
  // The logger's own spelling ("WARN " ours, "warning" spdlog's): the
  // first four letters, in any case.
  std::string h(head), name(LevelName(level).substr(0, 4));
  for (char& c : h) c = static_cast<char>(std::tolower(c));
  for (char& c : name) c = static_cast<char>(std::tolower(c));
  return h.find(name) != std::string::npos;
}

std::string Describe(const std::vector<Expected>& want, std::size_t j) {
  return "record " + std::to_string(j) + " of " + std::to_string(want.size()) +
         " (" + LevelText(want[j].level) + ", message " +
         std::to_string(want[j].message.size()) +
         " bytes: " + Printable(want[j].message, 40) + ")";
}

// `text` (a logger's file) holds exactly `want`, record by record.
void CheckRecords(std::string_view text, const std::vector<Expected>& want,
                  const std::string& who, const std::string& when) {
  const std::string at = who + " (" + when + "): ";
  std::size_t p = 0;
  for (std::size_t j = 0; j < want.size(); ++j) {
    const std::string& m = want[j].message;
    const std::size_t marker_end = m.find('\x1f') + 1;
    const std::size_t q =
        text.find(std::string_view(m).substr(0, marker_end), p);
    SK_FUZZ_CHECK(q != std::string_view::npos,
                  at + Describe(want, j) + " is missing (" +
                      std::to_string(text.size() - p) +
                      " bytes left: " + Printable(text.substr(p), 120) + ")");
    const std::string_view head = text.substr(p, q - p);
    SK_FUZZ_CHECK(
        head.size() <= kMaxHeader && head.find('\n') == std::string_view::npos,
        at + "before " + Describe(want, j) + ", " +
            std::to_string(head.size()) +
            " bytes that are no header: " + Printable(head, 160) +
            " (a record lost, cut short, merged or split)");
    SK_FUZZ_CHECK(HeadNamesLevel(head, want[j].level),
                  at + Describe(want, j) + " has the header " +
                      Printable(head, 160) + ", not at its level");
    const std::size_t got = std::min(m.size(), text.size() - q);
    std::size_t same = 0;
    while (same < got && text[q + same] == m[same]) ++same;
    SK_FUZZ_CHECK(same == m.size(),
                  at + Describe(want, j) + " differs from byte " +
                      std::to_string(same) + ": the file has " +
                      Printable(text.substr(q + same), 60) + ", the record " +
                      Printable(std::string_view(m).substr(same), 60));
    SK_FUZZ_CHECK(q + m.size() < text.size() && text[q + m.size()] == '\n',
                  at + Describe(want, j) +
                      " does not end with its newline: then " +
                      Printable(text.substr(q + m.size()), 60));
    p = q + m.size() + 1;
  }
  SK_FUZZ_CHECK(p == text.size(),
                at + std::to_string(text.size() - p) +
                    " bytes after the last of " + std::to_string(want.size()) +
                    " records: " + Printable(text.substr(p), 120));
}

// The loggers of one input: the reference first.
struct Running {
  std::vector<std::unique_ptr<AnyLogger>> loggers;
  std::vector<std::string> names;  // kept past the loggers' destruction
  std::vector<std::filesystem::path> dirs;
};

// The loggers of `Ls` whose index `pick` accepts (and that can rotate, when
// rotation is on).
template <typename... Ls, typename Pick>
void MakeLoggers(TypeList<Ls...>, Pick pick, const LoggerOptions& base,
                 Running& run) {
  std::size_t i = 0;
  auto one = [&](auto tag) {
    using L = typename decltype(tag)::type;
    if (!pick(i++)) return;
    if (base.sink.rotate_bytes > 0 && !SupportsRotation<L>()) return;
    const std::filesystem::path dir =
        WorkDir() / std::to_string(run.loggers.size());
    std::filesystem::create_directories(dir);
    LoggerOptions o = base;
    o.sink.path = (dir / "log.txt").string();
    run.loggers.push_back(std::make_unique<Boxed<L>>(o));
    run.names.push_back(std::string(L::kName));
    run.dirs.push_back(dir);
  };
  (one(std::type_identity<Ls>{}), ...);
}

template <typename... Ls>
constexpr std::size_t CountOf(TypeList<Ls...>) {
  return sizeof...(Ls);
}

// A record's length: short, around 1 KiB, an edge of a buffer, or any.
std::size_t ChooseLength(ByteReader& in, const LoggerOptions& o) {
  const std::size_t edges[] = {1023,
                               1024,
                               1025,
                               4095,
                               4096,
                               4097,
                               65535,
                               65536,
                               65537,
                               kMaxLength,
                               o.buffer_bytes - 1,
                               o.buffer_bytes,
                               o.buffer_bytes + 1};
  switch (in.in_range(0, 3)) {
    case 0:
      return in.in_range(0, 64);
    case 1:
      return in.in_range(0, 2048);
    case 2:
      return std::min(edges[in.in_range(0, std::size(edges) - 1)], kMaxLength);
    default:
      return in.in_range(0, kMaxLength);
  }
}

// `n` bytes of a fuzzer-chosen pattern (up to 16 bytes), repeated.
std::string ChoosePayload(ByteReader& in, std::size_t n, std::uint64_t seq) {
  std::string pattern(in.bytes(in.in_range(0, 16)));
  if (pattern.empty()) pattern.assign(1, static_cast<char>('a' + seq % 26));
  std::string out;
  out.reserve(n);
  while (out.size() < n) out.append(pattern, 0, n - out.size());
  return out;
}

class Program {
 public:
  Program(Running& run, Level threshold, bool rotating)
      : run_(run), threshold_(threshold), rotating_(rotating) {}

  bool ShouldLog(Level level) const {
    return level >= threshold_ && level != Level::kOff;
  }

  void SetLevel(Level level) {
    threshold_ = level;
    for (auto& l : run_.loggers) l->set_level(level);
  }

  void Log(Level level, int form, const std::string& payload) {
    const std::uint64_t n = seq_++;
    bytes_ += payload.size();
    for (std::size_t i = 0; i < run_.loggers.size(); ++i) {
      const bool says = run_.loggers[i]->should_log(level);
      SK_FUZZ_CHECK(says == ShouldLog(level),
                    run_.names[i] + ": should_log(" + LevelText(level) +
                        ") is " + (says ? "true" : "false") +
                        " with the threshold at " + LevelText(threshold_));
      if (says) run_.loggers[i]->Log(level, form, n, payload);
    }
    if (ShouldLog(level)) {
      want_.push_back({level, Marker(n) + payload});
    }
  }

  void Flush() {
    for (std::size_t i = 0; i < run_.loggers.size(); ++i) {
      SK_FUZZ_CHECK(run_.loggers[i]->flush(),
                    run_.names[i] + ": flush() reported an I/O error: " +
                        run_.loggers[i]->stats().last_error);
      const LoggerStats s = run_.loggers[i]->stats();
      SK_FUZZ_CHECK(
          s.written == want_.size() && s.dropped == 0 && s.io_errors == 0,
          run_.names[i] + ": after flush(), stats() says written " +
              std::to_string(s.written) + ", dropped " +
              std::to_string(s.dropped) + ", I/O errors " +
              std::to_string(s.io_errors) + " (" + s.last_error + "); " +
              std::to_string(want_.size()) + " records were logged");
    }
    Check("after flush()");
  }

  // The reference against the model, then every other logger.
  void Check(const std::string& when) const {
    for (std::size_t i = 0; i < run_.dirs.size(); ++i) {
      CheckRecords(ReadLog(run_.dirs[i], run_.names[i], rotating_), want_,
                   run_.names[i], when);
    }
  }

  std::size_t bytes() const { return bytes_; }
  std::uint64_t seq() const { return seq_; }

 private:
  Running& run_;
  Level threshold_;
  const bool rotating_;
  std::vector<Expected> want_;
  std::uint64_t seq_ = 0;
  std::size_t bytes_ = 0;
};

void OneInput(ByteReader& in) {
  constexpr std::size_t kCount = CountOf(Fuzzed{});
  const std::size_t which = in.in_range(0, kCount);
  LoggerOptions o;
  o.sink.kind = SinkKind::kFile;
  o.level = kLevels[in.in_range(0, 6)];
  o.flush_on = kLevels[in.in_range(0, 6)];
  o.overflow = OverflowPolicy::kBlock;
  o.queue_capacity = in.in_range(1, 256);
  o.buffer_bytes = in.in_range(256, 70'000);
  o.max_buffers = in.in_range(1, 4);
  o.flush_interval = std::chrono::milliseconds(in.in_range(1, 100));
  const bool rotating = in.boolean();
  std::size_t budget = kMaxBytes;
  if (rotating) {
    o.sink.rotate_bytes = in.in_range(512, 65'536);
    // Enough files that rotation deletes nothing, and few enough that a
    // rotation's renames (one per file kept) stay cheap: at most
    // kRotatedLimits limits' worth of bytes. Each file holds more than half
    // a limit, or a line longer than the limit, or what came just before
    // such a line.
    budget = std::min(kMaxBytesRotating, kRotatedLimits * o.sink.rotate_bytes);
    o.sink.max_files = 3 * kRotatedLimits + 8;
  }

  std::error_code ec;
  std::filesystem::remove_all(WorkDir(), ec);
  std::filesystem::create_directories(WorkDir());
  // The reference (index 0) always runs; `which` picks among the rest.
  Running run;
  MakeLoggers(
      Concat<TypeList<SyncLogger>, Fuzzed>{},
      [which](std::size_t i) {
        return i == 0 || which == kCount || which == i - 1;
      },
      o, run);
  Trace::add(fmt::format(
      "loggers: {}; threshold {}, flush_on {}, queue {}, buffers {} x {} B, "
      "flush every {} ms, rotation {}",
      fmt::join(run.names, ", "), LevelText(o.level), LevelText(o.flush_on),
      o.queue_capacity, o.max_buffers, o.buffer_bytes, o.flush_interval.count(),
      rotating ? fmt::format("at {} B", o.sink.rotate_bytes) : "none"));

  Program program(run, o.level, rotating);
  int flushes = 0;
  for (int op = 0; op < kMaxOps && !in.empty() && program.bytes() < budget;
       ++op) {
    switch (in.in_range(0, 7)) {
      case 0:
      case 1:
      case 2:
      case 3: {
        const Level level = kLevels[in.in_range(0, 5)];
        const int form = static_cast<int>(in.in_range(0, 2));
        const std::size_t n =
            std::min(ChooseLength(in, o), budget - program.bytes());
        const std::string payload = ChoosePayload(in, n, program.seq());
        Trace::add(fmt::format("log {} form {}, {} bytes: {}", LevelText(level),
                               form, n, Printable(payload, 40)));
        program.Log(level, form, payload);
        break;
      }
      case 4: {
        // Stepping through the levels, lengths growing by `step`.
        const std::size_t k = in.in_range(1, 32);
        const std::size_t first = in.in_range(0, 5);
        const std::size_t n0 = ChooseLength(in, o);
        const std::size_t step = in.in_range(0, 4096);
        const int form = static_cast<int>(in.in_range(0, 2));
        const std::string pattern(in.bytes(in.in_range(0, 8)));
        Trace::add(fmt::format(
            "burst of {} records from {}, {} bytes + {} each, form {}, "
            "pattern {}",
            k, LevelText(kLevels[first]), n0, step, form, Printable(pattern)));
        for (std::size_t i = 0; i < k && program.bytes() < budget; ++i) {
          const std::size_t n =
              std::min({n0 + i * step, kMaxLength, budget - program.bytes()});
          std::string payload;
          const std::string_view p =
              pattern.empty() ? std::string_view("burst") : pattern;
          while (payload.size() < n)
            payload.append(p.substr(0, n - payload.size()));
          program.Log(kLevels[(first + i) % 6], form, payload);
        }
        break;
      }
      case 5: {
        const Level level = kLevels[in.in_range(0, 6)];
        Trace::add("set_level(" + LevelText(level) + ")");
        program.SetLevel(level);
        break;
      }
      default:
        if (flushes < kMaxFlushes) {
          ++flushes;
          Trace::add("flush(), then read every file back");
          program.Flush();
        }
        break;
    }
  }
  Trace::add("destroy every logger (orderly shutdown), read every file back");
  run.loggers.clear();
  program.Check("after the destructor");
}

}  // namespace
}  // namespace serverkit

SK_FUZZ_TARGET(serverkit::OneInput)
