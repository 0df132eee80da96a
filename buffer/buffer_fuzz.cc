// Fuzz target: every buffer in buffer/all_buffers.h other than the reference
// (StringBuffer) in lock-step with the reference, the fuzzer choosing the
// operations of buffer/buffer.h's contract.
//
// The input: one byte per buffer's initial size, then operations, each an
// operation byte and its arguments: append (string_view and pointer forms,
// the fuzzer's bytes or a longer pattern), prepend (both forms), retrieve,
// retrieve_all, retrieve_as_string, retrieve_all_as_string, peek(n), peek(),
// peek_into, ensure_writable + writing in place + has_written, writing in
// place into the space already there, growth, read_fd and write_fd through
// a non-blocking socketpair (drained after every operation, so nothing ever
// blocks), read_fd at end of file and with nothing to read, write_fd to a
// peer that has gone and with nothing to write, a move there and back, and
// a copy into a fresh small buffer.
//
// The oracle, after every operation, for every buffer: the readable bytes
// (count and content) equal the reference's; readable() is well formed (one
// span for a kAlwaysContiguous buffer); prependable_bytes() is what
// kPrependSpace says (kShared: writable_bytes(), capacity() - readable;
// kNone: 0). Per operation: what a retrieve_as_string / peek / peek_into
// returns equals the reference's; ensure_writable(n) leaves at least n
// writable and writable() matches writable_bytes() and begin_write(); a
// prepend of at most prependable_bytes() and a peek of an always-contiguous
// buffer move nothing (bytes_moved()); B(initial) has at least `initial`
// writable; read_fd takes at most writable_bytes() + 64 KiB and the readable
// bytes grow by what it returned, 0 at end of file, -1 with the errno when
// nothing is there; write_fd writes a prefix of the readable bytes and
// retrieves it, returns 0 with nothing readable (even on a bad descriptor)
// and -1 with EPIPE, changing nothing, when the peer has gone. What the
// contract leaves to each design (capacity, growth, what is moved when) is
// not compared.
//
// Mutant (SERVERKIT_FUZZ_MUTANT): one more buffer, a RingBuffer whose
// prepend swaps two of the prepended bytes when they straddle the end of
// the storage (a prepend after a retrieve, into a ring that has wrapped).

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "base/type_list.h"
#include "buffer/all_buffers.h"
#include "buffer/buffer.h"
#include "buffer/internal/fd_peer_testing.h"
#include "build/fuzz/fuzz.h"

namespace serverkit {
namespace {

using fuzz::ByteReader;
using fuzz::Printable;
using fuzz::Trace;

#ifdef SERVERKIT_FUZZ_MUTANT
// The planted bug: a prepend whose bytes straddle the end of the ring
// swaps the two bytes on either side of the end.
class SlippingRingBuffer : public RingBuffer {
 public:
  static constexpr std::string_view kName = "ring-mutant";
  using RingBuffer::RingBuffer;

  void prepend(std::string_view s) { prepend(s.data(), s.size()); }
  void prepend(const void* p, std::size_t n) {
    prepend(static_cast<const char*>(p), n);
  }
  void prepend(const char* p, std::size_t n) {
    RingBuffer::prepend(p, n);
    const ReadableSpans r = readable();
    if (n >= 2 && !r.second.empty() && r.first.size() < n) {
      std::swap(const_cast<char&>(r.first.back()),
                const_cast<char&>(r.second.front()));
    }
  }
};
static_assert(Buffer<SlippingRingBuffer>);
using Fuzzed = Concat<Without<AllBuffers, TypeList<StringBuffer>>,
                      TypeList<SlippingRingBuffer>>;
#else
// Every buffer but the reference: a new one in all_buffers.h is fuzzed too.
using Fuzzed = Without<AllBuffers, TypeList<StringBuffer>>;
#endif

using Buffers = ApplyTypes<std::tuple, Fuzzed>;

// An input's budget: operations, and the readable bytes a buffer may hold
// before appends are skipped.
constexpr int kMaxOps = 1500;
constexpr std::size_t kMaxReadable = std::size_t{1} << 20;

template <typename B>
std::string Name() {
  return std::string(B::kName);
}

template <typename B>
std::string Contents(const B& b) {
  const ReadableSpans r = b.readable();
  std::string s(r.first.begin(), r.first.end());
  s.append(r.second.begin(), r.second.end());
  return s;
}

// `n` bytes that do not repeat with a short period, different per `tag`.
std::string Pattern(std::size_t n, std::uint32_t tag) {
  std::string s(n, '\0');
  std::uint32_t x = tag * 2654435761u + 12345u;
  for (char& c : s) {
    x = x * 1103515245u + 12345u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

// Two per-process non-blocking AF_UNIX stream pairs: `live` (fd 0 the
// buffers', fd 1 the peer's), drained after every operation, and `gone`,
// whose peer end is closed (read gives end of file, write EPIPE).
struct Sockets {
  int live[2] = {-1, -1};
  int gone[2] = {-1, -1};
};

const Sockets& TheSockets() {
  static const Sockets s = [] {
    Sockets k;
    ::signal(SIGPIPE, SIG_IGN);  // write_fd to `gone` must fail with EPIPE
    const int type = SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC;
    if (::socketpair(AF_UNIX, type, 0, k.live) != 0 ||
        ::socketpair(AF_UNIX, type, 0, k.gone) != 0) {
      std::abort();
    }
    ::close(k.gone[1]);
    return k;
  }();
  return s;
}

std::size_t PeerSend(std::string_view data) {
  return buffer_internal::PeerSend(TheSockets().live[1], data);
}

std::string PeerReceive(std::size_t n) {
  return buffer_internal::PeerReceive(TheSockets().live[1], n);
}

class Lockstep {
 public:
  explicit Lockstep(ByteReader& in) : in_(in) {
    std::apply(
        [&](auto&... b) {
          (Construct(b, in_.in_range(0, 2) == 0 ? in_.in_range(0, 4096)
                                                : in_.in_range(0, 300)),
           ...);
        },
        impls_);
    Check("construction");
  }

  void Run() {
    for (int op = 0; op < kMaxOps && !in_.empty(); ++op) Step();
  }

 private:
  template <typename B>
  void Construct(B& b, std::size_t initial) {
    b = B(initial);
    Trace::add(Name<B>() + " = B(" + std::to_string(initial) + ")");
    SK_FUZZ_CHECK(b.writable_bytes() >= initial,
                  Name<B>() + ": B(" + std::to_string(initial) + ") has " +
                      std::to_string(b.writable_bytes()) + " writable");
  }

  // Runs `f(b, name)` on every buffer under test, then on the reference.
  template <typename F>
  void ForAll(F&& f) {
    std::apply([&](auto&... b) { (f(b), ...); }, impls_);
    f(ref_);
  }
  template <typename F>
  void ForImpls(F&& f) {
    std::apply([&](auto&... b) { (f(b), ...); }, impls_);
  }

  // Mostly small, sometimes a page or so, rarely beyond the 64 KiB extra.
  std::size_t Size() {
    const unsigned r = in_.u8() % 100;
    if (r < 70) return in_.in_range(0, 64);
    if (r < 95) return in_.in_range(0, 4096);
    return in_.in_range(0, 70'000);
  }
  // Bytes to write: the fuzzer's own when few, a pattern otherwise.
  std::string Data(std::size_t n) {
    if (n <= 64) return std::string(in_.bytes(n));
    return Pattern(n, ++tag_);
  }

  void Step() {
    const std::size_t readable = ref_.readable_bytes();
    switch (in_.in_range(0, 19)) {
      case 0: {
        const std::string d(in_.bytes(in_.in_range(0, 64)));
        if (readable > kMaxReadable) return;
        Trace::add("append(\"" + Printable(d) + "\")");
        ForAll([&](auto& b) { b.append(std::string_view(d)); });
        break;
      }
      case 1: {
        const std::string d = Data(Size());
        if (readable > kMaxReadable) return;
        Trace::add("append(p, " + std::to_string(d.size()) + ") \"" +
                   Printable(d, 40) + "\"");
        ForAll([&](auto& b) { b.append(d.data(), d.size()); });
        break;
      }
      case 2:
      case 3: {
        const bool view = in_.boolean();
        const std::size_t n = in_.in_range(0, 4) == 0 ? in_.in_range(0, 300)
                                                      : in_.in_range(0, 16);
        const std::string d = Data(n);
        Trace::add(std::string(view ? "prepend(sv) \"" : "prepend(p, n) \"") +
                   Printable(d, 40) + "\" (" + std::to_string(n) + " bytes)");
        ForAll([&](auto& b) {
          using B = std::decay_t<decltype(b)>;
          const std::size_t room = b.prependable_bytes();
          const std::uint64_t moved = b.bytes_moved();
          if (view) {
            b.prepend(std::string_view(d));
          } else {
            b.prepend(d.data(), d.size());
          }
          if (n <= room) {
            SK_FUZZ_CHECK(b.bytes_moved() == moved,
                          Name<B>() + ": a prepend of " + std::to_string(n) +
                              " bytes with " + std::to_string(room) +
                              " prependable moved bytes");
          }
        });
        break;
      }
      case 4: {
        const std::size_t n = in_.in_range(0, readable);
        Trace::add("retrieve(" + std::to_string(n) + ")");
        ForAll([&](auto& b) { b.retrieve(n); });
        break;
      }
      case 5: {
        const std::size_t n =
            in_.in_range(0, std::min<std::size_t>(readable, 32));
        Trace::add("retrieve(" + std::to_string(n) + ")");
        ForAll([&](auto& b) { b.retrieve(n); });
        break;
      }
      case 6:
        Trace::add("retrieve_all()");
        ForAll([&](auto& b) { b.retrieve_all(); });
        break;
      case 7: {
        const std::size_t n = in_.in_range(0, readable);
        Trace::add("retrieve_as_string(" + std::to_string(n) + ")");
        const std::string want = ref_.retrieve_as_string(n);
        ForImpls([&](auto& b) {
          using B = std::decay_t<decltype(b)>;
          SK_FUZZ_CHECK(b.retrieve_as_string(n) == want,
                        Name<B>() + ": retrieve_as_string differs");
        });
        break;
      }
      case 8: {
        Trace::add("retrieve_all_as_string()");
        const std::string want = ref_.retrieve_all_as_string();
        ForImpls([&](auto& b) {
          using B = std::decay_t<decltype(b)>;
          SK_FUZZ_CHECK(b.retrieve_all_as_string() == want,
                        Name<B>() + ": retrieve_all_as_string differs");
        });
        break;
      }
      case 9: {
        const std::size_t n = in_.in_range(0, readable);
        const std::size_t k = in_.in_range(0, n);
        Trace::add("peek(" + std::to_string(n) + "), peek_into(" +
                   std::to_string(k) + " bytes)");
        const std::string want(ref_.peek(n));
        ForImpls([&](auto& b) { Peek(b, n, k, want); });
        break;
      }
      case 10: {
        Trace::add("peek()");
        const std::string want(ref_.peek());
        ForImpls([&](auto& b) { Peek(b, readable, readable, want); });
        break;
      }
      case 11: {
        const std::size_t n = Size();
        const std::string d = Data(in_.in_range(0, n));
        if (readable > kMaxReadable) return;
        Trace::add("ensure_writable(" + std::to_string(n) +
                   "), write in place and has_written(" +
                   std::to_string(d.size()) + ")");
        ForImpls([&](auto& b) {
          b.ensure_writable(n);
          WriteInPlace(b, d, n);
        });
        ref_.append(d);
        break;
      }
      case 12: {
        // Into the writable space there already is, without ensure_writable:
        // as much as the smallest buffer has.
        std::size_t room = Size();
        ForImpls([&](auto& b) { room = std::min(room, b.writable_bytes()); });
        const std::string d = Data(room);
        Trace::add("write in place and has_written(" +
                   std::to_string(d.size()) + ") without ensure_writable");
        ForImpls([&](auto& b) { WriteInPlace(b, d, 0); });
        ref_.append(d);
        break;
      }
      case 13: {
        const std::size_t more = 1 + in_.in_range(0, 5000);
        Trace::add("grow: ensure_writable(writable_bytes() + " +
                   std::to_string(more) + ")");
        ForImpls([&](auto& b) {
          using B = std::decay_t<decltype(b)>;
          if (b.capacity() >= kMaxReadable) return;  // growth doubles
          const std::size_t n = b.writable_bytes() + more;
          b.ensure_writable(n);
          SK_FUZZ_CHECK(b.writable_bytes() >= n,
                        Name<B>() + ": ensure_writable(" + std::to_string(n) +
                            ") left " + std::to_string(b.writable_bytes()));
        });
        break;
      }
      case 14:
        ReadFd();
        break;
      case 15:
        ReadFdNothing();
        break;
      case 16:
        WriteFd();
        break;
      case 17:
        WriteFdFails();
        break;
      case 18: {
        const std::size_t initial = in_.in_range(0, 100);
        Trace::add("move out, B(" + std::to_string(initial) + "), move back");
        ForAll([&](auto& b) {
          using B = std::decay_t<decltype(b)>;
          B other(std::move(b));
          b = B(initial);
          b = std::move(other);
        });
        break;
      }
      default: {
        const std::size_t initial = in_.in_range(0, 512);
        Trace::add("copy into a fresh B(" + std::to_string(initial) + ")");
        ForImpls([&](auto& b) {
          using B = std::decay_t<decltype(b)>;
          B fresh(initial);
          SK_FUZZ_CHECK(fresh.writable_bytes() >= initial,
                        Name<B>() + ": B(" + std::to_string(initial) +
                            ") has too little writable");
          const ReadableSpans r = b.readable();
          fresh.append(r.first.data(), r.first.size());
          fresh.append(r.second.data(), r.second.size());
          b = std::move(fresh);
        });
        break;
      }
    }
    Check("after the operation");
  }

  template <typename B>
  void Peek(B& b, std::size_t n, std::size_t k, const std::string& want) {
    const std::uint64_t moved = b.bytes_moved();
    const std::string_view got = n == b.readable_bytes() && in_.boolean()
                                     ? b.peek().substr(0, n)
                                     : b.peek(n);
    SK_FUZZ_CHECK(got == want, Name<B>() + ": peek(" + std::to_string(n) +
                                   ") gives \"" + Printable(got) +
                                   "\", the reference \"" + Printable(want) +
                                   "\"");
    if (B::kAlwaysContiguous) {
      SK_FUZZ_CHECK(b.bytes_moved() == moved,
                    Name<B>() +
                        ": peek moved bytes in an always-contiguous "
                        "buffer");
    }
    std::string out(k, '\0');
    std::as_const(b).peek_into(std::span<char>(out));
    SK_FUZZ_CHECK(out == want.substr(0, k),
                  Name<B>() + ": peek_into(" + std::to_string(k) + ") differs");
  }

  // Writes `d` into b.writable() and commits it; `ensured` is what
  // ensure_writable was just asked for (0: nothing).
  template <typename B>
  void WriteInPlace(B& b, const std::string& d, std::size_t ensured) {
    SK_FUZZ_CHECK(b.writable_bytes() >= ensured,
                  Name<B>() + ": ensure_writable(" + std::to_string(ensured) +
                      ") left " + std::to_string(b.writable_bytes()));
    const WritableSpans w = b.writable();
    SK_FUZZ_CHECK(w.size() == b.writable_bytes(),
                  Name<B>() + ": writable() is not writable_bytes() long");
    SK_FUZZ_CHECK(
        w.first.empty() ? w.second.empty() : w.first.data() == b.begin_write(),
        Name<B>() +
            ": writable() spans are malformed, or "
            "begin_write() is not their start");
    SK_FUZZ_CHECK(d.size() <= w.size(), Name<B>() + ": too little writable");
    CopyIn(w, d);
    b.has_written(d.size());
  }

  void ReadFd() {
    const unsigned r = in_.u8() % 10;
    const std::size_t want = r < 6   ? in_.in_range(1, 2048)
                             : r < 9 ? in_.in_range(1, 70'000)
                                     : in_.in_range(60'000, 150'000);
    if (ref_.readable_bytes() > kMaxReadable) return;
    const std::string data = Pattern(want, ++tag_);
    Trace::add("read_fd of " + std::to_string(want) +
               " bytes sent by the peer");
    ForAll([&](auto& b) {
      using B = std::decay_t<decltype(b)>;
      std::size_t total = 0;
      while (total < data.size()) {
        const std::size_t sent = PeerSend(std::string_view(data).substr(total));
        SK_FUZZ_CHECK(sent > 0, "the peer could not send (a socket left full)");
        for (std::size_t got = 0; got < sent;) {
          const std::size_t writable = b.writable_bytes();
          const std::size_t before = b.readable_bytes();
          int err = 0;
          const ssize_t n = b.read_fd(TheSockets().live[0], &err);
          SK_FUZZ_CHECK(n > 0,
                        Name<B>() + ": read_fd returned " + std::to_string(n) +
                            " (errno " + std::to_string(err) + ") with " +
                            std::to_string(sent - got) + " bytes queued");
          const auto k = static_cast<std::size_t>(n);
          SK_FUZZ_CHECK(k <= writable + kReadFdExtraBytes,
                        Name<B>() + ": read_fd took " + std::to_string(k) +
                            " bytes, more than writable_bytes() " +
                            std::to_string(writable) + " + 64 KiB");
          SK_FUZZ_CHECK(b.readable_bytes() == before + k,
                        Name<B>() + ": read_fd returned " + std::to_string(k) +
                            " but the readable bytes grew by " +
                            std::to_string(b.readable_bytes() - before));
          got += k;
        }
        total += sent;
      }
    });
  }

  // read_fd at end of file (0) and with nothing queued (-1, EAGAIN): the
  // buffer is left as it was.
  void ReadFdNothing() {
    const bool eof = in_.boolean();
    Trace::add(eof ? "read_fd at end of file" : "read_fd with nothing to read");
    ForAll([&](auto& b) {
      using B = std::decay_t<decltype(b)>;
      const std::size_t before = b.readable_bytes();
      int err = 0;
      const ssize_t n =
          b.read_fd(eof ? TheSockets().gone[0] : TheSockets().live[0], &err);
      if (eof) {
        SK_FUZZ_CHECK(n == 0, Name<B>() + ": read_fd at end of file returned " +
                                  std::to_string(n));
      } else {
        SK_FUZZ_CHECK(n == -1 && (err == EAGAIN || err == EWOULDBLOCK),
                      Name<B>() + ": read_fd with nothing to read returned " +
                          std::to_string(n) + ", errno " + std::to_string(err));
      }
      SK_FUZZ_CHECK(b.readable_bytes() == before,
                    Name<B>() +
                        ": a read_fd that read nothing changed the "
                        "readable bytes");
    });
  }

  void WriteFd() {
    Trace::add("write_fd");
    const std::string before(ref_.peek());
    std::size_t most = 0;
    std::size_t written[std::tuple_size_v<Buffers> + 1];
    std::size_t i = 0;
    ForAll([&](auto& b) {
      using B = std::decay_t<decltype(b)>;
      const std::size_t readable = b.readable_bytes();
      int err = 0;
      const ssize_t n = b.write_fd(TheSockets().live[0], &err);
      if (readable == 0) {
        SK_FUZZ_CHECK(n == 0, Name<B>() + ": write_fd of nothing returned " +
                                  std::to_string(n));
      } else {
        SK_FUZZ_CHECK(n > 0, Name<B>() +
                                 ": write_fd to an empty socket "
                                 "returned " +
                                 std::to_string(n) + ", errno " +
                                 std::to_string(err));
      }
      const auto k = static_cast<std::size_t>(n);
      const std::string got = PeerReceive(k);
      SK_FUZZ_CHECK(got.size() == k && got == before.substr(0, k),
                    Name<B>() +
                        ": the peer received other bytes than the "
                        "first " +
                        std::to_string(k) + " readable");
      SK_FUZZ_CHECK(b.readable_bytes() == readable - k,
                    Name<B>() + ": write_fd did not retrieve what it wrote");
      written[i++] = k;
      most = std::max(most, k);
    });
    // A socket may take less from one writer than from another: bring the
    // others level, so the buffers stay in lock-step.
    i = 0;
    ForAll([&](auto& b) {
      if (written[i] < most) {
        Trace::add("  (" + Name<std::decay_t<decltype(b)>>() + " wrote " +
                   std::to_string(written[i]) + " of " + std::to_string(most) +
                   ": retrieve the rest)");
        b.retrieve(most - written[i]);
      }
      ++i;
    });
  }

  // write_fd that cannot write: nothing readable (0, no system call, even
  // on a bad descriptor), or a peer that has gone (-1, EPIPE); the buffer is
  // left as it was.
  void WriteFdFails() {
    Trace::add("write_fd with nothing readable to fd -1, or to a gone peer");
    ForAll([&](auto& b) {
      using B = std::decay_t<decltype(b)>;
      const std::size_t readable = b.readable_bytes();
      int err = 0;
      if (readable == 0) {
        const ssize_t n = b.write_fd(-1, &err);
        SK_FUZZ_CHECK(n == 0, Name<B>() + ": write_fd of nothing returned " +
                                  std::to_string(n));
      } else {
        const ssize_t n = b.write_fd(TheSockets().gone[0], &err);
        SK_FUZZ_CHECK(n == -1 && err == EPIPE,
                      Name<B>() + ": write_fd to a gone peer returned " +
                          std::to_string(n) + ", errno " + std::to_string(err));
      }
      SK_FUZZ_CHECK(b.readable_bytes() == readable,
                    Name<B>() +
                        ": a failed write_fd changed the readable "
                        "bytes");
    });
  }

  void Check(const char* when) {
    const std::string want = Contents(ref_);
    SK_FUZZ_CHECK(ref_.readable_bytes() == want.size(),
                  "the reference's readable_bytes() is not its content");
    ForImpls([&](auto& b) {
      using B = std::decay_t<decltype(b)>;
      const std::string at = std::string(": ") + when;
      SK_FUZZ_CHECK(b.readable_bytes() == want.size(),
                    Name<B>() + at + ": readable_bytes() " +
                        std::to_string(b.readable_bytes()) + ", reference " +
                        std::to_string(want.size()));
      const ReadableSpans r = b.readable();
      SK_FUZZ_CHECK(r.size() == b.readable_bytes() &&
                        (!r.first.empty() || r.second.empty()) &&
                        (!B::kAlwaysContiguous || r.second.empty()),
                    Name<B>() + at + ": readable() spans are malformed");
      const std::string got = Contents(b);
      SK_FUZZ_CHECK(got == want, Name<B>() + at + ": contents \"" +
                                     Printable(got) + "\", reference \"" +
                                     Printable(want) + "\"");
      switch (B::kPrependSpace) {
        case PrependSpace::kNone:
          SK_FUZZ_CHECK(b.prependable_bytes() == 0,
                        Name<B>() + at + ": kNone but prependable_bytes() " +
                            std::to_string(b.prependable_bytes()));
          break;
        case PrependSpace::kShared:
          SK_FUZZ_CHECK(
              b.prependable_bytes() == b.writable_bytes() &&
                  b.writable_bytes() == b.capacity() - b.readable_bytes(),
              Name<B>() + at +
                  ": kShared but prependable_bytes() is not "
                  "writable_bytes() and capacity() - readable");
          break;
        case PrependSpace::kFront:
          break;  // how much is the design's (reserved, or retrieved)
      }
    });
  }

  ByteReader& in_;
  Buffers impls_;
  StringBuffer ref_;
  std::uint32_t tag_ = 0;
};

void OneInput(ByteReader& in) {
  Lockstep lockstep(in);
  lockstep.Run();
}

}  // namespace
}  // namespace serverkit

SK_FUZZ_TARGET(serverkit::OneInput)
