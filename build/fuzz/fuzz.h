// -----------------------------------------------------------------------------
// build/fuzz/fuzz.h
// -----------------------------------------------------------------------------
//
// What every fuzz target shares (build/fuzz/fuzz.bzl builds them):
//
//   - `ByteReader`: the fuzzer's bytes read as choices (an operation, a
//     size, some bytes), never past the end;
//   - `Trace`: the operations the current input has made, printed when an
//     oracle fails, so a differential mismatch reads as a recipe;
//   - `SK_FUZZ_CHECK(cond, what)`: the oracle. On failure it prints
//     "serverkit-fuzz: oracle failed: ..." (tools/fuzz.sh looks for that
//     line to tell a planted bug caught by the oracle from any other crash),
//     the trace, and aborts.
//
// Each target defines `LLVMFuzzerTestOneInput` with SK_FUZZ_TARGET(fn),
// `fn` taking the input's ByteReader. Under --config=fuzz
// (clang, libFuzzer) libFuzzer drives it; in `make test` fuzz_replay_main.cc
// feeds it the target's corpus, seeds and regression inputs.
//
// Thread-safety: one fuzzing thread; the trace is global.

#ifndef SERVERKIT_BUILD_FUZZ_FUZZ_H_
#define SERVERKIT_BUILD_FUZZ_FUZZ_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace serverkit::fuzz {

// Reads the fuzzer's input front to back; past the end every read gives 0
// and empty bytes, so a short input is a short program, never an error.
class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size)
      : data_(data), size_(size) {}

  bool empty() const { return pos_ >= size_; }
  std::size_t remaining() const { return empty() ? 0 : size_ - pos_; }

  std::uint8_t u8() { return empty() ? 0 : data_[pos_++]; }
  bool boolean() { return (u8() & 1) != 0; }
  std::uint16_t u16() {
    return static_cast<std::uint16_t>(u8() | (std::uint16_t{u8()} << 8));
  }
  std::uint32_t u32() {
    return static_cast<std::uint32_t>(u16() | (std::uint32_t{u16()} << 16));
  }
  // A value in [lo, hi] (hi >= lo), from as few bytes as the range needs.
  std::size_t in_range(std::size_t lo, std::size_t hi) {
    const std::size_t span = hi - lo;
    if (span == 0) return lo;
    const std::size_t raw = span < 0x100     ? u8()
                            : span < 0x10000 ? u16()
                                             : u32();
    return lo + raw % (span + 1);
  }
  // Up to `n` bytes (fewer at the end of the input).
  std::string_view bytes(std::size_t n) {
    const std::size_t k = n < remaining() ? n : remaining();
    std::string_view out(reinterpret_cast<const char*>(data_ + pos_), k);
    pos_ += k;
    return out;
  }
  // Everything left.
  std::string_view rest() { return bytes(remaining()); }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// The operations of the current input, for the failure report. Targets
// call Trace::reset() at the start of each input.
class Trace {
 public:
  static void reset();
  static void add(std::string op);
  static const std::vector<std::string>& ops();
};

// Prints the failure, the trace (its last 200 operations) and aborts.
[[noreturn]] void OracleFailed(const char* file, int line, const char* cond,
                               std::string_view what);

// `s` with every byte outside printable ASCII as \xHH, for reports.
std::string Printable(std::string_view s, std::size_t max = 200);

}  // namespace serverkit::fuzz

#define SK_FUZZ_CHECK(cond, what)                                       \
  do {                                                                  \
    if (!(cond)) {                                                      \
      ::serverkit::fuzz::OracleFailed(__FILE__, __LINE__, #cond, what); \
    }                                                                   \
  } while (0)

// Defines the target's LLVMFuzzerTestOneInput: resets the trace, then runs
// `one_input(ByteReader&)` on the input.
#define SK_FUZZ_TARGET(one_input)                                 \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, \
                                        std::size_t size) {       \
    ::serverkit::fuzz::Trace::reset();                            \
    ::serverkit::fuzz::ByteReader sk_fuzz_input(data, size);      \
    one_input(sk_fuzz_input);                                     \
    return 0;                                                     \
  }

#endif  // SERVERKIT_BUILD_FUZZ_FUZZ_H_
