// The conformance suite every buffer in all_buffers.h runs through the shared
// interface, with the std::string-backed reference first:
//
//   - unit tests of each operation, the wrap-around and grow-while-wrapped
//     boundaries, read_fd larger than the writable space, write_fd of wrapped
//     data, EOF and errors;
//   - a property test that drives the buffer and the reference with the same
//     long random sequence of operations (append, prepend, retrieve in every
//     form, ensure_writable + write in place, grow, peek, read_fd from and
//     write_fd to a socketpair, move) and compares contents after each step.
//     A fixed seed and a few more; `--test_env=SERVERKIT_BUFFER_SEED=<n>`
//     adds one. A failure names the seed, the step and the operation;
//   - the MirroredRingBuffer's error paths: every failing system call throws
//     std::system_error naming it, and leaks no mapping and no descriptor.

#include "buffer/buffer.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/sanitizers.h"
#include "buffer/all_buffers.h"
#include "buffer/internal/fd_peer_testing.h"
#include "buffer/internal/mirrored_mapping.h"
#include "gtest/gtest.h"

namespace serverkit {
namespace {

constexpr int kSteps = kUnderSanitizer ? 4'000 : 20'000;

class BufferNames {
 public:
  template <typename B>
  static std::string GetName(int) {
    return std::string(B::kName);
  }
};

template <typename B>
class BufferTest : public ::testing::Test {};
using AllBuffersTypes = ApplyTypes<::testing::Types, AllBuffers>;
TYPED_TEST_SUITE(BufferTest, AllBuffersTypes, BufferNames);

// Whether read_fd reads into the writable space (all but the reference, which
// reads into its 64 KiB stack buffer only).
template <typename B>
constexpr bool kReadsIntoWritable = !std::is_same_v<B, StringBuffer>;

template <typename B>
std::string Contents(const B& b) {
  const ReadableSpans r = b.readable();
  std::string s(r.first.begin(), r.first.end());
  s.append(r.second.begin(), r.second.end());
  return s;
}

// Distinct, non-repeating test bytes: "slice i" of a large random pool.
const std::string& Pool() {
  static const std::string pool = [] {
    std::mt19937_64 rng(42);
    std::string s(1 << 20, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    return s;
  }();
  return pool;
}

std::string_view Bytes(std::mt19937_64& rng, std::size_t n) {
  const std::string& pool = Pool();
  n = std::min(n, pool.size());
  const std::size_t at = rng() % (pool.size() - n + 1);
  return std::string_view(pool).substr(at, n);
}

std::string Numbered(std::size_t n, int seed = 0) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i)
    s[i] = static_cast<char>('a' + (i + seed) % 26);
  return s;
}

// A non-blocking AF_UNIX stream socketpair; end 0 is the buffer's, end 1 the
// peer's.
class SocketPair {
 public:
  SocketPair() {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
                     fds_) != 0) {
      ADD_FAILURE() << "socketpair: " << std::strerror(errno);
      fds_[0] = fds_[1] = -1;
    }
  }
  SocketPair(const SocketPair&) = delete;
  SocketPair& operator=(const SocketPair&) = delete;
  ~SocketPair() {
    CloseOurs();
    ClosePeer();
  }
  int ours() const { return fds_[0]; }
  int peer() const { return fds_[1]; }
  void CloseOurs() {
    if (fds_[0] >= 0) ::close(fds_[0]);
    fds_[0] = -1;
  }
  void ClosePeer() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    fds_[1] = -1;
  }

  // Writes as much of `data` as the socket takes without blocking.
  std::size_t PeerSend(std::string_view data) {
    return buffer_internal::PeerSend(peer(), data);
  }

  // Reads up to `n` bytes that are already queued for the peer.
  std::string PeerReceive(std::size_t n) {
    return buffer_internal::PeerReceive(peer(), n);
  }

 private:
  int fds_[2];
};

// ------------------------------------------------------------ the basics

TYPED_TEST(BufferTest, ReportsItsContract) {
  TypeParam b;
  std::printf("[ impl     ] %s: capacity() = %zu, writable_bytes() = %zu, %s\n",
              std::string(TypeParam::kName).c_str(), b.capacity(),
              b.writable_bytes(),
              TypeParam::kAlwaysContiguous ? "always contiguous" : "may wrap");
  EXPECT_EQ(b.readable_bytes(), 0u);
  EXPECT_TRUE(b.readable().empty());
  EXPECT_EQ(b.peek(), "");
  EXPECT_EQ(b.bytes_moved(), 0u);
}

TYPED_TEST(BufferTest, AppendPrependRetrieve) {
  TypeParam b;
  b.append(std::string_view("world"));
  b.append(", again", 7);
  EXPECT_EQ(Contents(b), "world, again");
  b.prepend(std::string_view("hello "));
  EXPECT_EQ(Contents(b), "hello world, again");
  EXPECT_EQ(b.peek(5), "hello");
  char out[6] = {};
  b.peek_into({out, 5});
  EXPECT_STREQ(out, "hello");
  b.retrieve(6);
  EXPECT_EQ(b.retrieve_as_string(5), "world");
  EXPECT_EQ(b.readable_bytes(), 7u);
  EXPECT_EQ(b.retrieve_all_as_string(), ", again");
  EXPECT_EQ(b.readable_bytes(), 0u);
  b.append(std::string_view("x"));
  b.retrieve_all();
  EXPECT_EQ(b.readable_bytes(), 0u);
  // Empty operations are fine everywhere.
  b.append("", 0);
  b.prepend("", 0);
  b.retrieve(0);
  EXPECT_EQ(b.retrieve_as_string(0), "");
  EXPECT_EQ(b.peek(0), "");
}

// prependable_bytes() is what kPrependSpace says it is.
TYPED_TEST(BufferTest, PrependSpaceMatchesTheTrait) {
  TypeParam b;
  b.append(Numbered(100));
  b.retrieve(10);
  switch (TypeParam::kPrependSpace) {
    case PrependSpace::kNone:
      EXPECT_EQ(b.prependable_bytes(), 0u);
      break;
    case PrependSpace::kFront:
      EXPECT_GE(b.prependable_bytes(), 10u) << "what was retrieved is room";
      break;
    case PrependSpace::kShared:
      EXPECT_EQ(b.prependable_bytes(), b.writable_bytes());
      EXPECT_EQ(b.prependable_bytes(), b.capacity() - b.readable_bytes());
      break;
  }
}

TYPED_TEST(BufferTest, LengthHeaderPrependDoesNotMove) {
  if constexpr (TypeParam::kPrependSpace == PrependSpace::kNone) {
    GTEST_SKIP() << "no cheap prepend";
  } else {
    TypeParam b;
    const std::string body = Numbered(100);
    b.append(body);
    ASSERT_GE(b.prependable_bytes(), 8u);
    const std::uint64_t before = b.bytes_moved();
    const std::uint32_t length = 100;
    b.prepend(&length, sizeof(length));
    EXPECT_EQ(b.bytes_moved(), before);
    std::uint32_t read_back = 0;
    b.peek_into({reinterpret_cast<char*>(&read_back), sizeof(read_back)});
    EXPECT_EQ(read_back, length);
    b.retrieve(4);
    EXPECT_EQ(Contents(b), body);
  }
}

TYPED_TEST(BufferTest, WriteInPlace) {
  TypeParam b;
  b.ensure_writable(10'000);
  ASSERT_GE(b.writable_bytes(), 10'000u);
  WritableSpans w = b.writable();
  ASSERT_EQ(w.size(), b.writable_bytes());
  if (!w.first.empty()) {
    EXPECT_EQ(b.begin_write(), w.first.data());
  }
  const std::string data = Numbered(10'000);
  CopyIn(w, data);
  b.has_written(6'000);
  EXPECT_EQ(Contents(b), data.substr(0, 6'000));
}

TYPED_TEST(BufferTest, GrowsFarBeyondItsInitialSize) {
  TypeParam b(16);
  std::string expected;
  for (int i = 0; i < 20; ++i) {
    const std::string chunk = Numbered(static_cast<std::size_t>(1) << i, i);
    b.append(chunk);
    expected += chunk;
  }
  EXPECT_EQ(Contents(b), expected);
  EXPECT_EQ(b.peek(), expected);
}

// Fills the buffer to its capacity, consumes some, and appends past the end of
// the storage: a ring wraps here, the others compact or (mirrored) run on
// into the second view.
TYPED_TEST(BufferTest, WrapAround) {
  TypeParam b(4096);
  b.ensure_writable(4096);
  const std::size_t room = b.writable_bytes();
  std::string expected = Numbered(room);
  b.append(expected);
  b.retrieve(room / 2);
  expected.erase(0, room / 2);
  const std::string more = Numbered(room / 4, 7);
  const std::size_t capacity = b.capacity();
  b.append(more);
  expected += more;
  EXPECT_EQ(Contents(b), expected);
  EXPECT_EQ(b.capacity(), capacity) << "wrapping or compaction should not grow";
  if constexpr (!TypeParam::kAlwaysContiguous) {
    EXPECT_FALSE(b.readable().contiguous()) << "expected the ring to wrap";
  }
  if constexpr (TypeParam::kPrependSpace == PrependSpace::kShared) {
    EXPECT_EQ(b.bytes_moved(), 0u) << "a ring wraps without moving";
  }
  // A contiguous view of everything, then of a prefix.
  EXPECT_EQ(b.peek(), expected);
  EXPECT_TRUE(b.readable().contiguous());
  EXPECT_EQ(b.peek(10), expected.substr(0, 10));
  // Consume past the wrap point.
  const std::size_t k = room / 2 + 3;
  EXPECT_EQ(b.retrieve_as_string(k), expected.substr(0, k));
  EXPECT_EQ(Contents(b), expected.substr(k));
}

TYPED_TEST(BufferTest, GrowWhileWrapped) {
  TypeParam b(4096);
  b.ensure_writable(4096);
  const std::size_t room = b.writable_bytes();
  std::string expected = Numbered(room);
  b.append(expected);
  b.retrieve(room - 100);
  expected.erase(0, room - 100);
  const std::string wrap = Numbered(room / 2, 3);
  b.append(wrap);  // wraps (ring) with 100 bytes at the end of the storage
  expected += wrap;
  if constexpr (!TypeParam::kAlwaysContiguous) {
    ASSERT_FALSE(b.readable().contiguous());
  }
  const std::string big = Numbered(3 * room, 5);
  b.append(big);  // more than the free space: grows
  expected += big;
  EXPECT_EQ(Contents(b), expected);
  EXPECT_GE(b.capacity(), expected.size());
  b.prepend(std::string_view("HDR!"));
  expected.insert(0, "HDR!");
  EXPECT_EQ(b.retrieve_all_as_string(), expected);
}

TYPED_TEST(BufferTest, PrependAtTheStartOfTheStorage) {
  TypeParam b(4096);
  std::string expected = Numbered(50);
  b.append(expected);
  for (int i = 0; i < 40; ++i) {  // more than the 8-byte cheap area
    const std::string h = Numbered(7, i);
    b.prepend(h);
    expected.insert(0, h);
  }
  EXPECT_EQ(Contents(b), expected);
  EXPECT_EQ(b.peek(), expected);
}

TYPED_TEST(BufferTest, CopyOrMoveKeepsContents) {
  TypeParam a(64);
  a.append(Numbered(1000));
  if constexpr (std::is_copy_constructible_v<TypeParam>) {
    TypeParam copy(a);
    EXPECT_EQ(Contents(copy), Numbered(1000));
  }
  TypeParam moved(std::move(a));
  EXPECT_EQ(Contents(moved), Numbered(1000));
  // The moved-from buffer is valid and usable.
  a.retrieve_all();  // NOLINT(bugprone-use-after-move)
  a.append(std::string_view("again"));
  EXPECT_EQ(Contents(a), "again");
  a = std::move(moved);
  EXPECT_EQ(Contents(a), Numbered(1000));
}

// ----------------------------------------------------------- system calls

TYPED_TEST(BufferTest, ReadFdLargerThanTheWritableSpace) {
  SocketPair s;
  TypeParam b;
  b.append(std::string_view("prefix:"));
  const std::size_t writable = b.writable_bytes();
  const std::string sent_wanted = Numbered(100'000);
  const std::size_t sent = s.PeerSend(sent_wanted);
  ASSERT_GT(sent, writable) << "the socket took too little to test this";
  int err = 0;
  const ssize_t n = b.read_fd(s.ours(), &err);
  std::size_t expected_n = std::min(sent, kReadFdExtraBytes);
  if constexpr (kReadsIntoWritable<TypeParam>) {
    expected_n = std::min(
        sent,
        writable + (writable < kReadFdExtraBytes ? kReadFdExtraBytes : 0));
  }
  ASSERT_EQ(n, static_cast<ssize_t>(expected_n)) << "writable was " << writable;
  EXPECT_EQ(Contents(b), "prefix:" + sent_wanted.substr(0, expected_n));
  // The rest arrives with further calls.
  std::size_t total = expected_n;
  while (total < sent) {
    const ssize_t more = b.read_fd(s.ours(), &err);
    ASSERT_GT(more, 0) << std::strerror(err);
    total += static_cast<std::size_t>(more);
  }
  EXPECT_EQ(Contents(b), "prefix:" + sent_wanted.substr(0, sent));
  // Nothing left: EAGAIN.
  EXPECT_EQ(b.read_fd(s.ours(), &err), -1);
  EXPECT_EQ(err, EAGAIN);
}

TYPED_TEST(BufferTest, ReadFdEndOfFileAndBadDescriptor) {
  SocketPair s;
  TypeParam b;
  s.PeerSend("last words");
  s.ClosePeer();
  int err = 0;
  EXPECT_EQ(b.read_fd(s.ours(), &err), 10);
  EXPECT_EQ(b.read_fd(s.ours(), &err), 0);
  EXPECT_EQ(Contents(b), "last words");
  err = 0;
  EXPECT_EQ(b.read_fd(-1, &err), -1);
  EXPECT_EQ(err, EBADF);
  EXPECT_EQ(Contents(b), "last words");
  err = 0;
  EXPECT_EQ(b.write_fd(-1, &err), -1);
  EXPECT_EQ(err, EBADF);
  EXPECT_EQ(Contents(b), "last words") << "a failed write_fd consumed bytes";
}

TYPED_TEST(BufferTest, WriteFdOfWrappedData) {
  SocketPair s;
  TypeParam b(4096);
  b.ensure_writable(4096);
  const std::size_t room = b.writable_bytes();
  std::string expected = Numbered(room);
  b.append(expected);
  b.retrieve(room - 10);
  expected.erase(0, room - 10);
  const std::string more = Numbered(500, 1);
  b.append(more);
  expected += more;
  int err = 0;
  EXPECT_EQ(b.write_fd(s.ours(), &err), static_cast<ssize_t>(expected.size()));
  EXPECT_EQ(b.readable_bytes(), 0u);
  EXPECT_EQ(s.PeerReceive(expected.size()), expected);
  EXPECT_EQ(b.write_fd(s.ours(), &err), 0) << "nothing to write";
}

TYPED_TEST(BufferTest, WriteFdPartialWhenTheSocketIsFull) {
  SocketPair s;
  TypeParam b;
  const std::string data = Numbered(4 << 20);  // more than a socket holds
  b.append(data);
  int err = 0;
  const ssize_t n = b.write_fd(s.ours(), &err);
  ASSERT_GT(n, 0);
  ASSERT_LT(static_cast<std::size_t>(n), data.size());
  EXPECT_EQ(Contents(b), data.substr(static_cast<std::size_t>(n)));
  EXPECT_EQ(b.write_fd(s.ours(), &err), -1);
  EXPECT_EQ(err, EAGAIN);
  EXPECT_EQ(s.PeerReceive(static_cast<std::size_t>(n)), data.substr(0, n));
}

// ------------------------------------------------------- property test

// One buffer and the reference, driven by the same random operations.
template <typename B>
class Lockstep {
 public:
  explicit Lockstep(std::uint64_t seed) : rng_(seed), impl_(Pick(64, 8192)) {}

  // Runs one random operation; returns a failure describing it, if any.
  ::testing::AssertionResult Step(std::string& op) {
    const bool was_wrapped = !impl_.readable().contiguous();
    const unsigned roll = static_cast<unsigned>(rng_() % 100);
    if (roll < 22) {
      op = "append";
      const std::string_view data = Bytes(rng_, Size());
      impl_.append(data);
      ref_.append(data);
    } else if (roll < 30) {
      op = "prepend";
      const std::string_view data =
          Bytes(rng_, rng_() % 5 == 0 ? Pick(0, 300) : Pick(0, 16));
      impl_.prepend(data);
      ref_.prepend(data);
    } else if (roll < 40) {
      op = "retrieve";
      const std::size_t n = Pick(0, ref_.readable_bytes());
      impl_.retrieve(n);
      ref_.retrieve(n);
    } else if (roll < 46) {
      op = "retrieve(small)";
      const std::size_t n =
          Pick(0, std::min<std::size_t>(ref_.readable_bytes(), 32));
      impl_.retrieve(n);
      ref_.retrieve(n);
    } else if (roll < 48) {
      op = "retrieve(all readable)";
      impl_.retrieve(impl_.readable_bytes());
      ref_.retrieve_all();
    } else if (roll < 50) {
      op = "retrieve_all";
      impl_.retrieve_all();
      ref_.retrieve_all();
    } else if (roll < 56) {
      op = "retrieve_as_string";
      const std::size_t n = Pick(0, ref_.readable_bytes());
      if (impl_.retrieve_as_string(n) != ref_.retrieve_as_string(n)) {
        return ::testing::AssertionFailure() << "retrieve_as_string differs";
      }
    } else if (roll < 58) {
      op = "retrieve_all_as_string";
      if (impl_.retrieve_all_as_string() != ref_.retrieve_all_as_string()) {
        return ::testing::AssertionFailure()
               << "retrieve_all_as_string differs";
      }
    } else if (roll < 66) {
      op = "ensure_writable + write in place";
      const std::size_t n = Size();
      impl_.ensure_writable(n);
      if (impl_.writable_bytes() < n) {
        return ::testing::AssertionFailure()
               << "ensure_writable(" << n << ") left "
               << impl_.writable_bytes();
      }
      const WritableSpans w = impl_.writable();
      if (w.size() != impl_.writable_bytes() ||
          (!w.first.empty() && w.first.data() != impl_.begin_write()) ||
          (w.first.empty() && !w.second.empty())) {
        return ::testing::AssertionFailure()
               << "writable() disagrees with writable_bytes()";
      }
      const std::string_view data = Bytes(rng_, Pick(0, n));
      CopyIn(w, data);
      impl_.has_written(data.size());
      ref_.append(data);
    } else if (roll < 69) {
      op = "grow";
      // Every forced growth at least doubles: stop at 1 MiB.
      if (impl_.capacity() < (1 << 20)) {
        impl_.ensure_writable(impl_.writable_bytes() + 1 + Pick(0, 5000));
      }
    } else if (roll < 77) {
      op = "peek";
      const std::size_t n = Pick(0, ref_.readable_bytes());
      if (impl_.peek(n) != ref_.peek(n)) {
        return ::testing::AssertionFailure() << "peek(" << n << ") differs";
      }
      std::string out(Pick(0, n), '\0');
      impl_.peek_into(out);
      if (out != ref_.peek(out.size())) {
        return ::testing::AssertionFailure()
               << "peek_into(" << out.size() << ") differs";
      }
    } else if (roll < 87) {
      op = "read_fd";
      if (auto r = ReadFd(); !r) return r;
    } else if (roll < 96) {
      op = "write_fd";
      if (auto r = WriteFd(); !r) return r;
    } else if (roll < 98) {
      op = "move";
      B other(std::move(impl_));
      impl_ = B(Pick(0, 100));  // the moved-from buffer is replaced, then back
      impl_ = std::move(other);
    } else {
      // Start over in a small buffer holding the same bytes, so growth, the
      // extra read buffer and wrapping come up again.
      op = "copy into a fresh small buffer";
      B fresh(Pick(0, 512));
      const ReadableSpans r = impl_.readable();
      fresh.append(r.first.data(), r.first.size());
      fresh.append(r.second.data(), r.second.size());
      impl_ = std::move(fresh);
    }
    if (!impl_.readable().contiguous()) ++stats_.wrapped_steps;
    if (impl_.capacity() != capacity_) {
      ++stats_.capacity_changes;
      if (was_wrapped) ++stats_.grew_while_wrapped;
      capacity_ = impl_.capacity();
    }
    return Check();
  }

  // How much of the interesting ground a run covered.
  struct Stats {
    int wrapped_steps = 0;     // steps that ended with readable data wrapped
    int capacity_changes = 0;  // growths, and fresh small buffers
    int grew_while_wrapped = 0;
    int extra_reads = 0;  // read_fd calls that spilled into the 64 KiB extra
  };
  const Stats& stats() const { return stats_; }

 private:
  std::size_t Pick(std::size_t lo, std::size_t hi) {
    return lo + static_cast<std::size_t>(rng_() % (hi - lo + 1));
  }
  // Mostly small, sometimes a page or so, rarely beyond the 64 KiB extra.
  std::size_t Size() {
    const unsigned r = static_cast<unsigned>(rng_() % 100);
    if (r < 70) return Pick(0, 64);
    if (r < 95) return Pick(0, 4096);
    return Pick(0, 70'000);
  }

  ::testing::AssertionResult ReadFd() {
    const unsigned r = static_cast<unsigned>(rng_() % 10);
    const std::size_t want = r < 6   ? Pick(1, 2048)
                             : r < 9 ? Pick(1, 70'000)
                                     : Pick(60'000, 150'000);
    const std::string_view data = Bytes(rng_, want);
    const std::size_t sent = socket_.PeerSend(data);
    if (sent == 0)
      return ::testing::AssertionFailure() << "the peer could not send";
    const std::size_t writable = impl_.writable_bytes();
    std::size_t expected = std::min(sent, kReadFdExtraBytes);
    if constexpr (kReadsIntoWritable<B>) {
      expected = std::min(
          sent,
          writable + (writable < kReadFdExtraBytes ? kReadFdExtraBytes : 0));
    }
    int err = 0;
    ssize_t n = impl_.read_fd(socket_.ours(), &err);
    if (n > 0 && static_cast<std::size_t>(n) > writable) ++stats_.extra_reads;
    if (n != static_cast<ssize_t>(expected)) {
      return ::testing::AssertionFailure()
             << "read_fd returned " << n << " (" << std::strerror(err)
             << "), expected " << expected << " (sent " << sent << ", writable "
             << writable << ")";
    }
    std::size_t total = static_cast<std::size_t>(n);
    while (total < sent) {
      n = impl_.read_fd(socket_.ours(), &err);
      if (n <= 0)
        return ::testing::AssertionFailure()
               << "a further read_fd returned " << n;
      total += static_cast<std::size_t>(n);
    }
    // The reference reads the same bytes through its own read_fd.
    if (ref_socket_.PeerSend(data.substr(0, sent)) != sent) {
      return ::testing::AssertionFailure()
             << "the reference's peer could not send";
    }
    for (total = 0; total < sent;) {
      n = ref_.read_fd(ref_socket_.ours(), &err);
      if (n <= 0)
        return ::testing::AssertionFailure()
               << "the reference's read_fd returned " << n;
      total += static_cast<std::size_t>(n);
    }
    return ::testing::AssertionSuccess();
  }

  ::testing::AssertionResult WriteFd() {
    const std::size_t readable = impl_.readable_bytes();
    int err = 0;
    const ssize_t n = impl_.write_fd(socket_.ours(), &err);
    if (readable == 0 ? n != 0 : n <= 0) {
      return ::testing::AssertionFailure()
             << "write_fd of " << readable << " bytes returned " << n << " ("
             << std::strerror(err) << ")";
    }
    const std::string got = socket_.PeerReceive(static_cast<std::size_t>(n));
    if (got != ref_.peek(static_cast<std::size_t>(n))) {
      return ::testing::AssertionFailure() << "the peer received other bytes";
    }
    ref_.retrieve(static_cast<std::size_t>(n));
    return ::testing::AssertionSuccess();
  }

  ::testing::AssertionResult Check() const {
    if (impl_.readable_bytes() != ref_.readable_bytes()) {
      return ::testing::AssertionFailure()
             << "readable_bytes() " << impl_.readable_bytes() << ", reference "
             << ref_.readable_bytes();
    }
    const ReadableSpans r = impl_.readable();
    if (r.size() != impl_.readable_bytes() ||
        (r.first.empty() && !r.second.empty()) ||
        (B::kAlwaysContiguous && !r.second.empty())) {
      return ::testing::AssertionFailure() << "readable() spans are malformed";
    }
    const std::string_view want(ref_.readable().first.data(),
                                ref_.readable_bytes());
    if (want.substr(0, r.first.size()) !=
            std::string_view(r.first.data(), r.first.size()) ||
        want.substr(r.first.size()) !=
            std::string_view(r.second.data(), r.second.size())) {
      return ::testing::AssertionFailure() << "contents differ";
    }
    return ::testing::AssertionSuccess();
  }

  std::mt19937_64 rng_;
  B impl_;
  StringBuffer ref_;
  SocketPair socket_;
  SocketPair ref_socket_;
  Stats stats_;
  std::size_t capacity_ = impl_.capacity();
};

std::vector<std::uint64_t> Seeds() {
  std::vector<std::uint64_t> seeds = {0x5EEDB0FF, 1, 2, 3, 4};
  if (const char* env = std::getenv("SERVERKIT_BUFFER_SEED")) {
    seeds.push_back(std::strtoull(env, nullptr, 0));
  }
  return seeds;
}

TYPED_TEST(BufferTest, MatchesTheReferenceUnderRandomOperations) {
  for (const std::uint64_t seed : Seeds()) {
    Lockstep<TypeParam> lockstep(seed);
    std::string op;
    for (int step = 0; step < kSteps; ++step) {
      const ::testing::AssertionResult r = lockstep.Step(op);
      ASSERT_TRUE(r) << TypeParam::kName << ": seed " << seed << " (rerun with "
                     << "bazel test --test_env=SERVERKIT_BUFFER_SEED=" << seed
                     << "), step " << step << ", operation " << op;
    }
    const auto& st = lockstep.stats();
    std::printf(
        "[ coverage ] %s seed %llu: %d steps, %d ended wrapped, %d capacity "
        "changes (%d while wrapped), %d read_fd into the extra buffer\n",
        std::string(TypeParam::kName).c_str(),
        static_cast<unsigned long long>(seed), kSteps, st.wrapped_steps,
        st.capacity_changes, st.grew_while_wrapped, st.extra_reads);
  }
}

// ------------------------------------------- handing the storage over

TEST(LinearBufferTest, ReleaseGivesTheStorageWithItsBytesUncopied) {
  LinearBuffer b;
  b.append(std::string_view("0123456789"));
  b.retrieve(3);
  const char* where = b.peek().data();
  const std::size_t capacity = b.capacity();
  BufferStorage s = b.release();
  EXPECT_EQ(s.data(), where);  // the very bytes, not a copy
  EXPECT_EQ(std::string_view(s.data(), s.size()), "3456789");
  EXPECT_EQ(s.capacity, capacity);
  // Left empty with no storage, and still a working buffer.
  EXPECT_EQ(b.readable_bytes(), 0u);
  EXPECT_EQ(b.capacity(), 0u);
  b.prepend(std::string_view("p"));
  b.append(std::string_view("after"));
  EXPECT_EQ(b.retrieve_all_as_string(), "pafter");
}

TEST(LinearBufferTest, AdoptTakesStorageAndItsBytes) {
  BufferStorage s;
  s.assign("xxhello", 7);
  s.begin = 2;
  const char* where = s.data();
  LinearBuffer b;
  b.adopt(std::move(s));
  EXPECT_EQ(b.peek(), "hello");
  EXPECT_EQ(b.peek().data(), where);
  EXPECT_EQ(b.capacity(), 7u);
  b.append(std::string_view(" world, past the adopted capacity"));
  EXPECT_EQ(b.retrieve_all_as_string(),
            "hello world, past the adopted capacity");

  // Empty storage: the indices start where a fresh buffer's do.
  BufferStorage room;
  room.reserve(64);
  b.adopt(std::move(room));
  EXPECT_EQ(b.capacity(), 64u);
  EXPECT_EQ(b.prependable_bytes(), LinearBuffer::kCheapPrepend);
  EXPECT_EQ(b.writable_bytes(), 64u - LinearBuffer::kCheapPrepend);

  // No storage at all (an empty spare): like a released buffer.
  b.adopt(BufferStorage{});
  EXPECT_EQ(b.capacity(), 0u);
  b.append(std::string_view("grows again"));
  EXPECT_EQ(b.retrieve_all_as_string(), "grows again");
}

TEST(BufferStorageTest, ReserveKeepsEnoughCapacityAndEmpties) {
  BufferStorage s;
  s.assign("abc", 3);
  const char* first = s.bytes.get();
  s.reserve(2);
  EXPECT_EQ(s.bytes.get(), first);  // enough: no reallocation
  EXPECT_EQ(s.size(), 0u);
  s.reserve(1000);
  EXPECT_GE(s.capacity, 1000u);
  EXPECT_EQ(s.size(), 0u);
  s.assign("", 0);
  EXPECT_EQ(s.size(), 0u);
}

// ------------------------------------------------------ the ring's moves

TEST(RingBufferTest, ContiguousViewMovesInPlaceOrReallocates) {
  struct Case {
    std::size_t retrieve, wrap;  // in a 16-byte ring filled to the brim
    const char* how;
  };
  for (const Case& c :
       {Case{14, 4, "head moves up"}, Case{6, 2, "tail moves down"},
        Case{8, 7, "fresh storage"}}) {
    RingBuffer b(16);
    ASSERT_EQ(b.capacity(), 16u);
    std::string expected = Numbered(16);
    b.append(expected);
    b.retrieve(c.retrieve);
    expected.erase(0, c.retrieve);
    const std::string wrap = Numbered(c.wrap, 9);
    b.append(wrap);
    expected += wrap;
    ASSERT_FALSE(b.readable().contiguous()) << c.how;
    EXPECT_EQ(b.peek(), expected) << c.how;
    EXPECT_TRUE(b.readable().contiguous()) << c.how;
    EXPECT_EQ(b.bytes_moved(), expected.size()) << c.how;
    EXPECT_EQ(b.capacity(), 16u) << c.how;
    // Still a working ring afterwards.
    b.append(std::string_view("z"));
    expected += "z";
    EXPECT_EQ(Contents(b), expected) << c.how;
  }
}

TEST(RingBufferTest, PrefixViewMovesOnlyWhenThePrefixStraddles) {
  RingBuffer b(16);
  b.append(Numbered(16));
  b.retrieve(12);
  b.append(Numbered(6, 3));  // 4 bytes at the end, 6 at the start
  EXPECT_EQ(b.peek(4), Numbered(16).substr(12, 4));
  EXPECT_EQ(b.bytes_moved(), 0u);
  EXPECT_EQ(b.peek(5).size(), 5u);
  EXPECT_EQ(b.bytes_moved(), 10u);
}

// ------------------------------------------- the mirrored buffer's mapping

int CountOpenFds() {
  int count = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (::readdir(d) != nullptr) ++count;
    ::closedir(d);
  }
  return count;
}

int CountMirroredMappings() {
  std::ifstream maps("/proc/self/maps");
  int count = 0;
  for (std::string line; std::getline(maps, line);) {
    if (line.find("serverkit-mirrored-ring") != std::string::npos) ++count;
  }
  return count;
}

TEST(MirroredRingBufferTest, CapacityIsWholePagesAndTheViewsAlias) {
  const std::size_t page = buffer_internal::MirroredMapping::PageSize();
  MirroredRingBuffer b(1);
  EXPECT_EQ(b.capacity(), page);
  EXPECT_EQ(MirroredRingBuffer(page + 1).capacity(), 2 * page);
  EXPECT_EQ(CountMirroredMappings(), 2) << "two views of one memfd";
  b.append(Numbered(page));
  b.retrieve(page - 3);
  b.append(std::string_view("wxyz"));  // runs on into the second view
  EXPECT_EQ(b.peek(), Numbered(page).substr(page - 3) + "wxyz");
  EXPECT_EQ(b.bytes_moved(), 0u);
  EXPECT_EQ(b.capacity(), page);
}

TEST(MirroredRingBufferTest, NoMappingOrDescriptorOutlivesTheBuffer) {
  const int fds = CountOpenFds();
  {
    MirroredRingBuffer b;
    for (int i = 0; i < 12; ++i)
      b.append(Numbered(std::size_t{1} << i));  // grows
    MirroredRingBuffer moved(std::move(b));
    EXPECT_EQ(CountMirroredMappings(), 2);
    EXPECT_EQ(CountOpenFds(), fds) << "a live buffer holds no descriptor";
  }
  EXPECT_EQ(CountMirroredMappings(), 0);
  EXPECT_EQ(CountOpenFds(), fds);
}

TEST(MirroredRingBufferTest, EveryFailingCallThrowsNamesItselfAndLeaksNothing) {
  const int fds = CountOpenFds();
  const char* const calls[] = {"memfd_create", "ftruncate", "reservation",
                               "first view", "second view"};
  for (int step = 1; step <= 5; ++step) {
    buffer_internal::SetMirroredMappingFaultForTesting(step);
    try {
      MirroredRingBuffer b;
      ADD_FAILURE() << "step " << step << " did not throw";
    } catch (const std::system_error& e) {
      EXPECT_NE(std::string(e.what()).find(calls[step - 1]), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("MirroredRingBuffer"),
                std::string::npos);
      EXPECT_EQ(e.code().value(), ENOMEM);
    }
    buffer_internal::SetMirroredMappingFaultForTesting(0);
    EXPECT_EQ(CountMirroredMappings(), 0) << "step " << step;
    EXPECT_EQ(CountOpenFds(), fds) << "step " << step;
  }
}

TEST(MirroredRingBufferTest, FailedGrowthLeavesTheBufferUnchanged) {
  MirroredRingBuffer b;
  const std::string data = Numbered(3000);
  b.append(data);
  b.retrieve(1000);
  const std::size_t capacity = b.capacity();
  buffer_internal::SetMirroredMappingFaultForTesting(5);
  EXPECT_THROW(b.append(Numbered(10'000)), std::system_error);
  EXPECT_THROW(b.ensure_writable(1 << 20), std::system_error);
  buffer_internal::SetMirroredMappingFaultForTesting(0);
  EXPECT_EQ(b.capacity(), capacity);
  EXPECT_EQ(Contents(b), data.substr(1000));
  EXPECT_EQ(CountMirroredMappings(), 2);
  b.append(Numbered(10'000));  // and it grows once the system allows
  EXPECT_EQ(Contents(b), data.substr(1000) + Numbered(10'000));
}

TEST(MirroredRingBufferTest, RealFailuresThrow) {
  const int fds = CountOpenFds();
  // More address space than a 47-bit user space has (2 x 2^47 bytes), then a
  // capacity refused before any system call.
  EXPECT_THROW(MirroredRingBuffer(std::size_t{1} << 47), std::system_error);
  EXPECT_THROW(MirroredRingBuffer(std::size_t{1} << 62), std::system_error);
  EXPECT_EQ(CountMirroredMappings(), 0);
  EXPECT_EQ(CountOpenFds(), fds);
}

// Runs in a death-test child: with no descriptors allowed, memfd_create fails.
// The limit is restored before what() is called: UBSan's vptr check needs a
// descriptor of its own.
void ConstructWithNoDescriptorsLeft() {
  rlimit saved;
  ::getrlimit(RLIMIT_NOFILE, &saved);
  const rlimit none = {0, saved.rlim_max};
  ::setrlimit(RLIMIT_NOFILE, &none);
  try {
    MirroredRingBuffer b;
  } catch (const std::system_error& e) {
    ::setrlimit(RLIMIT_NOFILE, &saved);
    std::fprintf(stderr, "%s\n", e.what());
    std::exit(0);
  }
  std::exit(1);
}

TEST(MirroredRingBufferDeathTest, NoDescriptorsLeftMeansAClearError) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(ConstructWithNoDescriptorsLeft(), ::testing::ExitedWithCode(0),
              "MirroredRingBuffer: memfd_create failed");
}

}  // namespace
}  // namespace serverkit
