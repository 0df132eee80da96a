// Fuzz target: the chat frame codec (codec.h's EncodeFrame and Decode) over
// a reactor Buffer, as the chat server decodes what a client sends.
//
// The input chooses the buffer (LinearBuffer or RingBuffer, the server's
// --buffer=linear|ring), the limit (max_message: small, a few KiB, the
// default 64 KiB, or any 32-bit value), then a program of operations:
// append arbitrary bytes (a TCP segment), or append the frame of a chosen
// message. After every append the decoder runs as the server's does, until
// it needs more or a length is over the limit (then the server closes, so
// the stream ends there).
//
// The oracle, against a model (the stream's bytes not yet taken):
//   - each Decode says kTooLong exactly when the length field at the front
//     is over max_message (with *length that field, nothing taken),
//     kNeedMore exactly when the header or the message is not all there
//     (nothing taken), else kFrame with exactly the next 4 + length bytes;
//   - every frame re-encodes byte-exactly (EncodeFrame of its message), and
//     the frames together are the consumed prefix of the stream, every byte
//     accounted for, the rest still readable in the buffer;
//   - no length field makes Decode allocate more than the limit: during a
//     Decode that takes nothing there is no allocation at all, and during
//     one that takes a frame no single allocation is over
//     4 + max_message + 1 bytes (std::string's terminator; allocations of
//     64 bytes or less are let through, see fuzz::kSmallAllocation), counted by
//     build/fuzz/allocations.h while the decoder runs;
//   - encode-then-decode: the frame of each chosen message, decoded alone
//     from a fresh buffer, gives back that frame (or kTooLong when the
//     message is over the limit).
//
// Mutant (SERVERKIT_FUZZ_MUTANT): the decoder checks the limit with `>=`,
// so a message of exactly max_message bytes is refused: the off-by-one a
// hand-written length check makes.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "buffer/linear_buffer.h"
#include "buffer/ring_buffer.h"
#include "build/fuzz/allocations.h"
#include "build/fuzz/fuzz.h"
#include "servers/chat/codec.h"

namespace serverkit::chat {
namespace {

using fuzz::ByteReader;
using fuzz::Printable;
using fuzz::Trace;

#ifdef SERVERKIT_FUZZ_MUTANT
template <typename B>
DecodeStatus DecodeUnderTest(B* in, std::uint32_t max_message,
                             std::string* frame, std::uint32_t* length) {
  if (in->readable_bytes() < kHeaderLen) return DecodeStatus::kNeedMore;
  char raw[kHeaderLen];
  in->peek_into(std::span<char>(raw, kHeaderLen));
  *length = DecodeLength(raw);
  if (*length >= max_message) return DecodeStatus::kTooLong;  // planted bug
  const std::size_t total = kHeaderLen + *length;
  if (in->readable_bytes() < total) return DecodeStatus::kNeedMore;
  *frame = in->retrieve_as_string(total);
  return DecodeStatus::kFrame;
}
#else
template <typename B>
DecodeStatus DecodeUnderTest(B* in, std::uint32_t max_message,
                             std::string* frame, std::uint32_t* length) {
  return Decode(in, max_message, frame, length);
}
#endif

const char* Name(DecodeStatus s) {
  switch (s) {
    case DecodeStatus::kNeedMore:
      return "need more";
    case DecodeStatus::kFrame:
      return "frame";
    case DecodeStatus::kTooLong:
      return "too long";
  }
  return "?";
}

// One Decode, measured.
template <typename B>
DecodeStatus MeasuredDecode(B* in, std::uint32_t max_message,
                            std::string* frame, std::uint32_t* length) {
  fuzz::AllocationCount count;
  const DecodeStatus s = DecodeUnderTest(in, max_message, frame, length);
  count.stop();
  if (s == DecodeStatus::kFrame) {
    SK_FUZZ_CHECK(
        count.largest() <= std::max(kHeaderLen + std::size_t{max_message} + 1,
                                    fuzz::kSmallAllocation),
        "Decode allocated more than the limit for one frame");
  } else {
    SK_FUZZ_CHECK(count.allocations() == 0,
                  "Decode allocated without taking a frame");
  }
  return s;
}

// The decoder against the model `pending` (the stream's bytes not yet
// taken): what Decode must answer for it.
template <typename B>
DecodeStatus DecodeOne(B* buf, std::uint32_t max_message, std::string* pending,
                       std::string* consumed) {
  std::string frame;
  std::uint32_t length = 0;
  const DecodeStatus s = MeasuredDecode(buf, max_message, &frame, &length);
  Trace::add(std::string("decode: ") + Name(s) + ", length " +
             std::to_string(length) + ", readable " +
             std::to_string(buf->readable_bytes()));
  SK_FUZZ_CHECK(
      buf->readable_bytes() + (s == DecodeStatus::kFrame ? frame.size() : 0) ==
          pending->size(),
      "the buffer lost or gained bytes");
  if (pending->size() < kHeaderLen) {
    SK_FUZZ_CHECK(s == DecodeStatus::kNeedMore,
                  "not kNeedMore without a whole header");
    return s;
  }
  const std::uint32_t field = DecodeLength(pending->data());
  if (field > max_message) {
    SK_FUZZ_CHECK(s == DecodeStatus::kTooLong,
                  "a length over the limit is not kTooLong");
    SK_FUZZ_CHECK(length == field, "kTooLong reports another length");
    return s;
  }
  SK_FUZZ_CHECK(s != DecodeStatus::kTooLong,
                "kTooLong for a length within the limit");
  const std::size_t total = kHeaderLen + std::size_t{field};
  if (pending->size() < total) {
    SK_FUZZ_CHECK(s == DecodeStatus::kNeedMore,
                  "a frame before all its bytes came");
    return s;
  }
  SK_FUZZ_CHECK(s == DecodeStatus::kFrame, "a whole frame is not taken");
  SK_FUZZ_CHECK(length == field, "the frame's length is not its field");
  SK_FUZZ_CHECK(frame == std::string_view(*pending).substr(0, total),
                "the frame is not the front of the stream");
  SK_FUZZ_CHECK(
      EncodeFrame(std::string_view(frame).substr(kHeaderLen)) == frame,
      "the frame does not re-encode byte-exactly");
  consumed->append(frame);
  pending->erase(0, total);
  return s;
}

// Encode-then-decode of one message, alone in a fresh buffer.
template <typename B>
void RoundTrip(std::string_view message, std::uint32_t max_message) {
  const std::string encoded = EncodeFrame(message);
  SK_FUZZ_CHECK(encoded.size() == kHeaderLen + message.size() &&
                    DecodeLength(encoded.data()) == message.size() &&
                    encoded.substr(kHeaderLen) == message,
                "EncodeFrame's layout");
  B buf;
  buf.append(encoded);
  std::string frame;
  std::uint32_t length = 0;
  const DecodeStatus s = MeasuredDecode(&buf, max_message, &frame, &length);
  SK_FUZZ_CHECK(length == message.size(), "the decoded length");
  if (message.size() > max_message) {
    SK_FUZZ_CHECK(
        s == DecodeStatus::kTooLong && buf.readable_bytes() == encoded.size(),
        "an encoded message over the limit is not kTooLong");
  } else {
    SK_FUZZ_CHECK(s == DecodeStatus::kFrame && frame == encoded &&
                      buf.readable_bytes() == 0,
                  "encode then decode does not round-trip");
  }
}

std::uint32_t ChooseMax(ByteReader& in) {
  switch (in.u8() % 4) {
    case 0:
      return static_cast<std::uint32_t>(in.in_range(0, 64));
    case 1:
      return static_cast<std::uint32_t>(in.in_range(0, 4096));
    case 2:
      return kDefaultMaxMessage;
    default:
      return in.u32();
  }
}

template <typename B>
void Run(ByteReader& in, std::uint32_t max_message) {
  B buf;
  std::string stream;    // every byte appended
  std::string pending;   // the model: appended, not yet taken
  std::string consumed;  // the frames taken, in order
  bool closed = false;   // a length over the limit: the server closes
  while (!in.empty() && !closed) {
    std::string chunk;
    if (in.u8() % 4 == 3) {
      const std::string_view message = in.bytes(in.in_range(0, 1024));
      Trace::add("frame of " + std::to_string(message.size()) + " bytes: \"" +
                 Printable(message) + "\"");
      RoundTrip<B>(message, max_message);
      chunk = EncodeFrame(message);
    } else {
      chunk = std::string(in.bytes(in.in_range(0, 255)));
      Trace::add("append \"" + Printable(chunk) + "\"");
    }
    buf.append(chunk);
    stream += chunk;
    pending += chunk;
    for (;;) {
      const DecodeStatus s = DecodeOne(&buf, max_message, &pending, &consumed);
      if (s == DecodeStatus::kFrame) continue;
      if (s == DecodeStatus::kTooLong) {
        // Nothing taken: asking again answers the same.
        DecodeOne(&buf, max_message, &pending, &consumed);
        closed = true;
      }
      break;
    }
  }
  SK_FUZZ_CHECK(
      consumed.size() + pending.size() == stream.size() &&
          std::string_view(stream).substr(0, consumed.size()) == consumed &&
          std::string_view(stream).substr(consumed.size()) == pending,
      "the frames are not the consumed prefix of the stream");
  SK_FUZZ_CHECK(buf.readable_bytes() == pending.size() &&
                    buf.retrieve_all_as_string() == pending,
                "the bytes left in the buffer are not the stream's rest");
}

void OneInput(ByteReader& in) {
  const bool ring = in.boolean();
  const std::uint32_t max_message = ChooseMax(in);
  Trace::add(std::string("buffer ") + (ring ? "ring" : "linear") +
             ", max_message " + std::to_string(max_message));
  if (ring) {
    Run<RingBuffer>(in, max_message);
  } else {
    Run<LinearBuffer>(in, max_message);
  }
}

}  // namespace
}  // namespace serverkit::chat

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  serverkit::fuzz::Trace::reset();
  serverkit::fuzz::ByteReader in(data, size);
  serverkit::chat::OneInput(in);
  return 0;
}
