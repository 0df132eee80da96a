// -----------------------------------------------------------------------------
// servers/chat/codec.h
// -----------------------------------------------------------------------------
//
// muduo's chat codec (muduo/examples/asio/chat/codec.h): every message travels
// as a frame, a 4-byte length in network byte order followed by that many bytes
// of message. A length over the receiver's limit (kDefaultMaxMessage, 64 KiB,
// unless the server was given --max_message=N) closes that connection.
//
// What the chat servers (ours and the Asio peer) and the load test share:
//   - `EncodeFrame(message)`: the frame for a message;
//   - `Decode(buffer, max, &frame)`: the next complete frame of a reactor
//     Buffer, taken out whole (header included, so a server can broadcast
//     the very bytes it read without re-encoding them);
//   - the load test's message body (`EncodeBody` / `DecodeBody`): a kind byte
//     (join probe or measured round), the sequence number, the sender's
//     steady-clock time in nanoseconds, then filler bytes derived from the
//     sequence number so a receiver can check every byte.
//
// Thread-safety: everything here is thread-safe (no shared state).

#ifndef SERVERKIT_SERVERS_CHAT_CODEC_H_
#define SERVERKIT_SERVERS_CHAT_CODEC_H_

#include <arpa/inet.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace serverkit::chat {

inline constexpr std::size_t kHeaderLen = 4;
inline constexpr std::uint32_t kDefaultMaxMessage = 64 * 1024;

inline void EncodeLength(std::uint32_t len, char* out) {
  const std::uint32_t be = htonl(len);
  std::memcpy(out, &be, kHeaderLen);
}

inline std::uint32_t DecodeLength(const char* in) {
  std::uint32_t be;
  std::memcpy(&be, in, kHeaderLen);
  return ntohl(be);
}

// The frame of `message`: its length, then its bytes.
inline std::string EncodeFrame(std::string_view message) {
  std::string frame(kHeaderLen + message.size(), '\0');
  EncodeLength(static_cast<std::uint32_t>(message.size()), frame.data());
  std::memcpy(frame.data() + kHeaderLen, message.data(), message.size());
  return frame;
}

enum class DecodeStatus { kNeedMore, kFrame, kTooLong };

// Takes the next complete frame (header and message) out of `in` into
// *frame: kFrame. kNeedMore when it is not all there yet (nothing taken);
// kTooLong when its length is over `max_message` (nothing taken; *length is
// that length). `B` is any reactor Buffer (buffer/buffer.h).
template <typename B>
DecodeStatus Decode(B* in, std::uint32_t max_message, std::string* frame,
                    std::uint32_t* length) {
  if (in->readable_bytes() < kHeaderLen) return DecodeStatus::kNeedMore;
  char raw[kHeaderLen];
  in->peek_into(std::span<char>(raw, kHeaderLen));
  *length = DecodeLength(raw);
  if (*length > max_message) return DecodeStatus::kTooLong;
  const std::size_t total = kHeaderLen + *length;
  if (in->readable_bytes() < total) return DecodeStatus::kNeedMore;
  *frame = in->retrieve_as_string(total);
  return DecodeStatus::kFrame;
}

// ---- the load test's message body -------------------------------------------

enum class BodyKind : char { kProbe = 'P', kRound = 'R' };

// kind (1) + sequence (4, network order) + send time in ns (8, host order:
// sender and receivers are one process).
inline constexpr std::size_t kBodyHeaderLen = 13;
inline constexpr std::size_t kMinBody = 16;

struct Body {
  BodyKind kind;
  std::uint32_t seq;
  std::int64_t sent_ns;
};

// Filler byte i of the body of message `seq` (after the body header).
inline char FillerByte(std::uint32_t seq, std::size_t i) {
  return static_cast<char>((seq + i) & 0xffu);
}

// A body of `size` bytes (size >= kMinBody).
inline std::string EncodeBody(const Body& b, std::size_t size) {
  std::string body(size, '\0');
  body[0] = static_cast<char>(b.kind);
  const std::uint32_t seq = htonl(b.seq);
  std::memcpy(body.data() + 1, &seq, 4);
  std::memcpy(body.data() + 5, &b.sent_ns, 8);
  for (std::size_t i = kBodyHeaderLen; i < size; ++i) {
    body[i] = FillerByte(b.seq, i);
  }
  return body;
}

// The body's header, when it is one of ours of `size` bytes with the right
// filler; nullopt otherwise.
inline std::optional<Body> DecodeBody(std::string_view body, std::size_t size) {
  if (body.size() != size || size < kMinBody) return std::nullopt;
  Body b{};
  b.kind = static_cast<BodyKind>(body[0]);
  if (b.kind != BodyKind::kProbe && b.kind != BodyKind::kRound) {
    return std::nullopt;
  }
  std::uint32_t seq;
  std::memcpy(&seq, body.data() + 1, 4);
  b.seq = ntohl(seq);
  std::memcpy(&b.sent_ns, body.data() + 5, 8);
  for (std::size_t i = kBodyHeaderLen; i < size; ++i) {
    if (body[i] != FillerByte(b.seq, i)) return std::nullopt;
  }
  return b;
}

}  // namespace serverkit::chat

#endif  // SERVERKIT_SERVERS_CHAT_CODEC_H_
