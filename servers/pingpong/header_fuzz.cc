// Fuzz target: the ping-pong header protocol's framing (common.h's
// FrameMessage and DecodeMessage, the decision servers/pingpong/server.cc's
// OnHeader makes) over a reactor Buffer (LinearBuffer or RingBuffer, the
// server's --buffer), as the server decodes what a client sends: an 8-byte
// header {uint32 body_size, uint32 packet_count} in network byte order, then
// body_size bytes. The input, the model and the oracle (round trip,
// kTooLong exactly over the limit, no allocation beyond it) are
// build/fuzz/framed_stream.h's; the limit's default is 1 MiB. Around each
// decode, FrameMessage (what the server calls) must agree with
// DecodeMessage, and its total must be the message's size.
//
// Mutant (SERVERKIT_FUZZ_MUTANT): the decoder compares body_size with the
// limit as signed 32-bit integers, so a body_size from 2^31 up passes the
// check and waits for a body that never comes (a peer holds the connection
// and its buffer instead of being closed).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "buffer/linear_buffer.h"
#include "buffer/ring_buffer.h"
#include "build/fuzz/framed_stream.h"
#include "build/fuzz/fuzz.h"
#include "servers/pingpong/common.h"

namespace serverkit::pingpong {
namespace {

// What FrameMessage said before the last decode.
MessageStatus g_decision = MessageStatus::kNeedMore;
std::size_t g_total = 0;

struct PingpongCodec {
  using Status = MessageStatus;
  using Header = pingpong::Header;
  static constexpr Status kNeedMore = MessageStatus::kNeedMore;
  static constexpr Status kTaken = MessageStatus::kMessage;
  static constexpr Status kTooLong = MessageStatus::kTooLong;
  static constexpr std::size_t kHeaderSize = pingpong::kHeaderSize;
  static constexpr std::uint32_t kDefaultMax = kDefaultMaxBody;

  static Header Read(const char* raw) { return DecodeHeader(raw); }
  static std::uint32_t BodySize(const Header& h) { return h.body_size; }
  static bool Same(const Header& a, const Header& b) {
    return a.body_size == b.body_size && a.packet_count == b.packet_count;
  }
  static std::string Encode(const Header& h, std::string_view body) {
    std::string out(kHeaderSize, '\0');
    EncodeHeader(h, out.data());
    out.append(body);
    return out;
  }
  static std::pair<Header, std::string_view> Choose(fuzz::ByteReader& in) {
    Header h{};
    h.packet_count = in.u32();
    const std::string_view body = in.bytes(in.in_range(0, 1024));
    h.body_size = static_cast<std::uint32_t>(body.size());
    return {h, body};
  }
  static std::string Describe(const Header& h) {
    return "body_size " + std::to_string(h.body_size) + ", packet_count " +
           std::to_string(h.packet_count);
  }

  template <typename B>
  static Status Decode(B* in, std::uint32_t max, std::string* message,
                       Header* header) {
#ifdef SERVERKIT_FUZZ_MUTANT
    if (in->readable_bytes() < kHeaderSize) return MessageStatus::kNeedMore;
    char raw[kHeaderSize];
    in->peek_into(std::span<char>(raw, kHeaderSize));
    *header = DecodeHeader(raw);
    if (static_cast<std::int32_t>(header->body_size) >  // planted bug
        static_cast<std::int32_t>(max)) {
      return MessageStatus::kTooLong;
    }
    const std::size_t total = kHeaderSize + std::size_t{header->body_size};
    if (in->readable_bytes() < total) return MessageStatus::kNeedMore;
    *message = in->retrieve_as_string(total);
    return MessageStatus::kMessage;
#else
    return DecodeMessage(in, max, message, header);
#endif
  }
  template <typename B>
  static void Before(const B& in, std::uint32_t max) {
    Header framed{};
    g_total = 0;
    g_decision = FrameMessage(in, max, &framed, &g_total);
  }
  static void After(Status s, const std::string& message) {
    SK_FUZZ_CHECK(g_decision == s, "FrameMessage and DecodeMessage disagree");
    SK_FUZZ_CHECK(s != MessageStatus::kMessage || g_total == message.size(),
                  "FrameMessage's total is not the message's size");
  }
};

void OneInput(fuzz::ByteReader& in) {
  fuzz::FuzzFramedStream<PingpongCodec, LinearBuffer, RingBuffer>(in);
}

}  // namespace
}  // namespace serverkit::pingpong

SK_FUZZ_TARGET(serverkit::pingpong::OneInput)
