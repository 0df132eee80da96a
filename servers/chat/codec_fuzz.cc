// Fuzz target: the chat frame codec (codec.h's EncodeFrame and Decode) over
// a reactor Buffer (LinearBuffer or RingBuffer, the server's --buffer), as
// the chat server decodes what a client sends: a 4-byte length in network
// byte order, then that many bytes. The input, the model and the oracle
// (round trip, kTooLong exactly over the limit, no allocation beyond it)
// are build/fuzz/framed_stream.h's; the limit's default is 64 KiB.
//
// Mutant (SERVERKIT_FUZZ_MUTANT): the decoder checks the limit with `>=`,
// so a message of exactly max_message bytes is refused: the off-by-one a
// hand-written length check makes.

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
#include "servers/chat/codec.h"

namespace serverkit::chat {
namespace {

struct ChatCodec {
  using Status = DecodeStatus;
  using Header = std::uint32_t;  // the length
  static constexpr Status kNeedMore = DecodeStatus::kNeedMore;
  static constexpr Status kTaken = DecodeStatus::kFrame;
  static constexpr Status kTooLong = DecodeStatus::kTooLong;
  static constexpr std::size_t kHeaderSize = kHeaderLen;
  static constexpr std::uint32_t kDefaultMax = kDefaultMaxMessage;

  static Header Read(const char* raw) { return DecodeLength(raw); }
  static std::uint32_t BodySize(Header h) { return h; }
  static bool Same(Header a, Header b) { return a == b; }
  static std::string Encode(Header h, std::string_view message) {
    SK_FUZZ_CHECK(h == message.size(), "a frame's length is its size");
    return EncodeFrame(message);
  }
  static std::pair<Header, std::string_view> Choose(fuzz::ByteReader& in) {
    const std::string_view message = in.bytes(in.in_range(0, 1024));
    return {static_cast<Header>(message.size()), message};
  }
  static std::string Describe(Header h) {
    return "length " + std::to_string(h);
  }

  template <typename B>
  static Status Decode(B* in, std::uint32_t max, std::string* frame,
                       Header* length) {
#ifdef SERVERKIT_FUZZ_MUTANT
    if (in->readable_bytes() < kHeaderLen) return DecodeStatus::kNeedMore;
    char raw[kHeaderLen];
    in->peek_into(std::span<char>(raw, kHeaderLen));
    *length = DecodeLength(raw);
    if (*length >= max) return DecodeStatus::kTooLong;  // planted bug
    const std::size_t total = kHeaderLen + *length;
    if (in->readable_bytes() < total) return DecodeStatus::kNeedMore;
    *frame = in->retrieve_as_string(total);
    return DecodeStatus::kFrame;
#else
    return chat::Decode(in, max, frame, length);
#endif
  }
  template <typename B>
  static void Before(const B&, std::uint32_t) {}
  static void After(Status, const std::string&) {}
};

void OneInput(fuzz::ByteReader& in) {
  fuzz::FuzzFramedStream<ChatCodec, LinearBuffer, RingBuffer>(in);
}

}  // namespace
}  // namespace serverkit::chat

SK_FUZZ_TARGET(serverkit::chat::OneInput)
