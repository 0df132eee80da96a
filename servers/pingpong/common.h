// -----------------------------------------------------------------------------
// servers/pingpong/common.h
// -----------------------------------------------------------------------------
//
// What the ping-pong client and every ping-pong server share:
//
//   - the two protocols, `echo` (muduo's ping-pong: echo whatever arrived) and
//     `header` (evpp's header/body benchmark: an 8-byte header
//     {uint32 body_size, uint32 packet_count} in network byte order, then
//     `body_size` bytes; the server echoes each complete message);
//   - the header protocol's framing as the server decides it
//     (`FrameMessage`, `DecodeMessage`: need more, a whole message, or a
//     body_size over the limit), shared with its fuzz target
//     (header_fuzz.cc);
//   - the body content of the header protocol, derived from packet_count, so
//     the client can check every reply;
//   - the server command line every server of the sweep accepts:
//       <addr> <port> <threads> [--protocol=echo|header] [--max_body=N]
//
// (The descriptor limit and the stop signals are servers/common/process.h.)
//
// Thread-safety: the functions are thread-safe (no shared state).

#ifndef SERVERKIT_SERVERS_PINGPONG_COMMON_H_
#define SERVERKIT_SERVERS_PINGPONG_COMMON_H_

#include <arpa/inet.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace serverkit::pingpong {

enum class Protocol { kEcho, kHeader };

std::string_view ProtocolName(Protocol p);
std::optional<Protocol> ParseProtocol(std::string_view s);

// Header protocol: 8 bytes, network byte order.
inline constexpr std::size_t kHeaderSize = 8;
// The client's first message; each reply is answered with body_size + 1 and
// packet_count + 1 (evpp's throughput_header_body).
inline constexpr std::uint32_t kFirstBodySize = 100;
// Default server limit on body_size; larger makes the server close the
// connection with one logged line.
inline constexpr std::uint32_t kDefaultMaxBody = 1u << 20;

struct Header {
  std::uint32_t body_size;
  std::uint32_t packet_count;
};

inline void EncodeHeader(const Header& h, char* out) {
  const std::uint32_t b = htonl(h.body_size);
  const std::uint32_t c = htonl(h.packet_count);
  std::memcpy(out, &b, 4);
  std::memcpy(out + 4, &c, 4);
}

inline Header DecodeHeader(const char* in) {
  std::uint32_t b;
  std::uint32_t c;
  std::memcpy(&b, in, 4);
  std::memcpy(&c, in + 4, 4);
  return Header{ntohl(b), ntohl(c)};
}

// What the next message of a header-protocol stream is.
enum class MessageStatus {
  kNeedMore,  // the header or the body is not all there yet
  kMessage,   // kHeaderSize + body_size bytes are there
  kTooLong,   // body_size is over the limit: the server closes
};

// The server's framing decision for the front of `in`, a reactor Buffer
// (buffer/buffer.h), taking nothing out of it. *header is set once the
// header is there; *total (header and body) on kMessage. kTooLong exactly
// when body_size > max_body, decided from the header alone, so no length
// field makes a caller hold or allocate more than kHeaderSize + max_body.
template <typename B>
MessageStatus FrameMessage(const B& in, std::uint32_t max_body, Header* header,
                           std::size_t* total) {
  if (in.readable_bytes() < kHeaderSize) return MessageStatus::kNeedMore;
  char raw[kHeaderSize];
  in.peek_into(std::span<char>(raw, kHeaderSize));
  *header = DecodeHeader(raw);
  if (header->body_size > max_body) return MessageStatus::kTooLong;
  const std::size_t whole = kHeaderSize + std::size_t{header->body_size};
  if (in.readable_bytes() < whole) return MessageStatus::kNeedMore;
  *total = whole;
  return MessageStatus::kMessage;
}

// FrameMessage, then on kMessage takes the message (header and body) out of
// `in` into *message.
template <typename B>
MessageStatus DecodeMessage(B* in, std::uint32_t max_body, std::string* message,
                            Header* header) {
  std::size_t total = 0;
  const MessageStatus s = FrameMessage(*in, max_body, header, &total);
  if (s == MessageStatus::kMessage) *message = in->retrieve_as_string(total);
  return s;
}

// Body byte i of the message with `packet_count` is (packet_count + i) mod 256.
// `BodyPattern(n)` returns a buffer p of 256 + n bytes with p[j] = j mod 256,
// so the body of any message with body_size <= n is
// p + (packet_count mod 256), which lets the client memcmp a reply.
std::string BodyPattern(std::size_t max_body);
inline const char* BodyOf(const std::string& pattern,
                          std::uint32_t packet_count) {
  return pattern.data() + (packet_count & 0xffu);
}

// The echo protocol's block: byte i is i mod 128 (muduo's client).
std::string EchoBlock(std::size_t blocksize);

// Server command line. Parse errors print the usage and exit(2); --help prints
// the usage and exit(0). `extra_help` is appended to the usage text.
struct ServerOptions {
  std::string addr;
  int port = 0;
  int threads = 1;
  Protocol protocol = Protocol::kEcho;
  std::uint32_t max_body = kDefaultMaxBody;
};
ServerOptions ParseServerArgs(int argc, char** argv, std::string_view name,
                              std::string_view extra_help);

// The positional arguments every server of ours and every peer takes,
// `<addr> <port> <threads>`: stores argument number `index` (0, 1 or 2);
// false when it is out of range (a port over 65535, threads outside 1..256)
// or a fourth positional argument.
bool TakeServerPositional(std::string_view arg, int index, std::string* addr,
                          int* port, int* threads);

// Parses a non-negative decimal integer; nullopt on junk or overflow.
std::optional<long> ParseLong(std::string_view s);

}  // namespace serverkit::pingpong

#endif  // SERVERKIT_SERVERS_PINGPONG_COMMON_H_
