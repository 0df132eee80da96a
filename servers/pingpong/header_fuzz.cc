// Fuzz target: the ping-pong header protocol's framing (common.h's
// FrameMessage and DecodeMessage, the decision servers/pingpong/server.cc's
// OnHeader makes) over a reactor Buffer, as the server decodes what a
// client sends: an 8-byte header {uint32 body_size, uint32 packet_count} in
// network byte order, then body_size bytes.
//
// The input chooses the buffer (LinearBuffer or RingBuffer, the server's
// --buffer=linear|ring), the limit (max_body: small, a few KiB, the default
// 1 MiB, or any 32-bit value), then a program of operations: append
// arbitrary bytes (a TCP segment), or append a chosen message (packet_count
// and body). After every append the decoder runs as the server's does,
// until it needs more or a body_size is over the limit (then the server
// closes, so the stream ends there).
//
// The oracle, against a model (the stream's bytes not yet taken):
//   - each DecodeMessage says kTooLong exactly when the body_size at the
//     front is over max_body (with *header that header, nothing taken),
//     kNeedMore exactly when the header or the body is not all there
//     (nothing taken), else kMessage with exactly the next 8 + body_size
//     bytes, and FrameMessage (what the server calls) agrees with it;
//   - every message re-encodes byte-exactly (EncodeHeader of its header,
//     then its body), and the messages together are the consumed prefix of
//     the stream, every byte accounted for, the rest still readable;
//   - no length field makes the decoder allocate more than the limit: during
//     a DecodeMessage that takes nothing there is no allocation at all, and
//     during one that takes a message no single allocation is over
//     8 + max_body + 1 bytes (std::string's terminator; allocations of
//     64 bytes or less are let through, see fuzz::kSmallAllocation), counted by
//     build/fuzz/allocations.h while the decoder runs;
//   - encode-then-decode: each chosen message, decoded alone from a fresh
//     buffer, gives back its header and body (or kTooLong when its body is
//     over the limit).
//
// Mutant (SERVERKIT_FUZZ_MUTANT): the decoder compares body_size with the
// limit as signed 32-bit integers, so a body_size from 2^31 up passes the
// check and waits for a body that never comes (a peer holds the connection
// and its buffer instead of being closed).

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
#include "servers/pingpong/common.h"

namespace serverkit::pingpong {
namespace {

using fuzz::ByteReader;
using fuzz::Printable;
using fuzz::Trace;

#ifdef SERVERKIT_FUZZ_MUTANT
template <typename B>
MessageStatus DecodeUnderTest(B* in, std::uint32_t max_body,
                              std::string* message, Header* header) {
  if (in->readable_bytes() < kHeaderSize) return MessageStatus::kNeedMore;
  char raw[kHeaderSize];
  in->peek_into(std::span<char>(raw, kHeaderSize));
  *header = DecodeHeader(raw);
  if (static_cast<std::int32_t>(header->body_size) >  // planted bug
      static_cast<std::int32_t>(max_body)) {
    return MessageStatus::kTooLong;
  }
  const std::size_t total = kHeaderSize + std::size_t{header->body_size};
  if (in->readable_bytes() < total) return MessageStatus::kNeedMore;
  *message = in->retrieve_as_string(total);
  return MessageStatus::kMessage;
}
#else
template <typename B>
MessageStatus DecodeUnderTest(B* in, std::uint32_t max_body,
                              std::string* message, Header* header) {
  return DecodeMessage(in, max_body, message, header);
}
#endif

// What FrameMessage said before the last MeasuredDecode.
MessageStatus g_decision = MessageStatus::kNeedMore;
std::size_t g_total = 0;

const char* Name(MessageStatus s) {
  switch (s) {
    case MessageStatus::kNeedMore:
      return "need more";
    case MessageStatus::kMessage:
      return "message";
    case MessageStatus::kTooLong:
      return "too long";
  }
  return "?";
}

std::string Encode(const Header& h, std::string_view body) {
  std::string out(kHeaderSize, '\0');
  EncodeHeader(h, out.data());
  out.append(body);
  return out;
}

// One DecodeMessage, measured, and FrameMessage's answer before it.
template <typename B>
MessageStatus MeasuredDecode(B* in, std::uint32_t max_body,
                             std::string* message, Header* header) {
  Header framed{};
  std::size_t total = 0;
  const MessageStatus decision = FrameMessage(*in, max_body, &framed, &total);
  fuzz::AllocationCount count;
  const MessageStatus s = DecodeUnderTest(in, max_body, message, header);
  count.stop();
  if (s == MessageStatus::kMessage) {
    SK_FUZZ_CHECK(
        count.largest() <= std::max(kHeaderSize + std::size_t{max_body} + 1,
                                    fuzz::kSmallAllocation),
        "the decoder allocated more than the limit for a message");
  } else {
    SK_FUZZ_CHECK(count.allocations() == 0,
                  "the decoder allocated without taking a message");
  }
  g_decision = decision;
  g_total = total;
  return s;
}

// FrameMessage's answer before the last MeasuredDecode against that
// decode's (checked after the model, so that the model speaks first).
void CheckFrameMessageAgrees(MessageStatus s, const std::string& message) {
  SK_FUZZ_CHECK(g_decision == s, "FrameMessage and DecodeMessage disagree");
  SK_FUZZ_CHECK(s != MessageStatus::kMessage || g_total == message.size(),
                "FrameMessage's total is not the message's size");
}

// The decoder against the model `pending` (the stream's bytes not yet
// taken): what DecodeMessage must answer for it.
template <typename B>
void CheckAgainstModel(MessageStatus s, const std::string& message,
                       const Header& h, const B* buf, std::uint32_t max_body,
                       std::string* pending, std::string* consumed) {
  Trace::add(std::string("decode: ") + Name(s) + ", body_size " +
             std::to_string(h.body_size) + ", packet_count " +
             std::to_string(h.packet_count) + ", readable " +
             std::to_string(buf->readable_bytes()));
  SK_FUZZ_CHECK(buf->readable_bytes() +
                        (s == MessageStatus::kMessage ? message.size() : 0) ==
                    pending->size(),
                "the buffer lost or gained bytes");
  if (pending->size() < kHeaderSize) {
    SK_FUZZ_CHECK(s == MessageStatus::kNeedMore,
                  "not kNeedMore without a whole header");
    return;
  }
  const Header field = DecodeHeader(pending->data());
  if (field.body_size > max_body) {
    SK_FUZZ_CHECK(s == MessageStatus::kTooLong,
                  "a body_size over the limit is not kTooLong");
    SK_FUZZ_CHECK(
        h.body_size == field.body_size && h.packet_count == field.packet_count,
        "kTooLong reports another header");
    return;
  }
  SK_FUZZ_CHECK(s != MessageStatus::kTooLong,
                "kTooLong for a body_size within the limit");
  const std::size_t total = kHeaderSize + std::size_t{field.body_size};
  if (pending->size() < total) {
    SK_FUZZ_CHECK(s == MessageStatus::kNeedMore,
                  "a message before all its bytes came");
    return;
  }
  SK_FUZZ_CHECK(s == MessageStatus::kMessage, "a whole message is not taken");
  SK_FUZZ_CHECK(
      h.body_size == field.body_size && h.packet_count == field.packet_count,
      "the message's header is not its field");
  SK_FUZZ_CHECK(message == std::string_view(*pending).substr(0, total),
                "the message is not the front of the stream");
  SK_FUZZ_CHECK(
      Encode(h, std::string_view(message).substr(kHeaderSize)) == message,
      "the message does not re-encode byte-exactly");
  consumed->append(message);
  pending->erase(0, total);
}

template <typename B>
MessageStatus DecodeOne(B* buf, std::uint32_t max_body, std::string* pending,
                        std::string* consumed) {
  std::string message;
  Header h{};
  const MessageStatus s = MeasuredDecode(buf, max_body, &message, &h);
  CheckAgainstModel(s, message, h, buf, max_body, pending, consumed);
  CheckFrameMessageAgrees(s, message);
  return s;
}

// Encode-then-decode of one message, alone in a fresh buffer.
template <typename B>
void RoundTrip(const Header& h, std::string_view body, std::uint32_t max_body) {
  const std::string encoded = Encode(h, body);
  B buf;
  buf.append(encoded);
  std::string message;
  Header back{};
  const MessageStatus s = MeasuredDecode(&buf, max_body, &message, &back);
  SK_FUZZ_CHECK(
      back.body_size == h.body_size && back.packet_count == h.packet_count,
      "the decoded header");
  if (body.size() > max_body) {
    SK_FUZZ_CHECK(
        s == MessageStatus::kTooLong && buf.readable_bytes() == encoded.size(),
        "an encoded message over the limit is not kTooLong");
  } else {
    SK_FUZZ_CHECK(s == MessageStatus::kMessage && message == encoded &&
                      buf.readable_bytes() == 0,
                  "encode then decode does not round-trip");
  }
  CheckFrameMessageAgrees(s, message);
}

std::uint32_t ChooseMax(ByteReader& in) {
  switch (in.u8() % 4) {
    case 0:
      return static_cast<std::uint32_t>(in.in_range(0, 64));
    case 1:
      return static_cast<std::uint32_t>(in.in_range(0, 4096));
    case 2:
      return kDefaultMaxBody;
    default:
      return in.u32();
  }
}

template <typename B>
void Run(ByteReader& in, std::uint32_t max_body) {
  B buf;
  std::string stream;    // every byte appended
  std::string pending;   // the model: appended, not yet taken
  std::string consumed;  // the messages taken, in order
  bool closed = false;   // a body_size over the limit: the server closes
  while (!in.empty() && !closed) {
    std::string chunk;
    if (in.u8() % 4 == 3) {
      Header h{};
      h.packet_count = in.u32();
      const std::string_view body = in.bytes(in.in_range(0, 1024));
      h.body_size = static_cast<std::uint32_t>(body.size());
      Trace::add("message: packet_count " + std::to_string(h.packet_count) +
                 ", body of " + std::to_string(body.size()) + " bytes \"" +
                 Printable(body) + "\"");
      RoundTrip<B>(h, body, max_body);
      chunk = Encode(h, body);
    } else {
      chunk = std::string(in.bytes(in.in_range(0, 255)));
      Trace::add("append \"" + Printable(chunk) + "\"");
    }
    buf.append(chunk);
    stream += chunk;
    pending += chunk;
    for (;;) {
      const MessageStatus s = DecodeOne(&buf, max_body, &pending, &consumed);
      if (s == MessageStatus::kMessage) continue;
      if (s == MessageStatus::kTooLong) {
        // Nothing taken: asking again answers the same.
        DecodeOne(&buf, max_body, &pending, &consumed);
        closed = true;
      }
      break;
    }
  }
  SK_FUZZ_CHECK(
      consumed.size() + pending.size() == stream.size() &&
          std::string_view(stream).substr(0, consumed.size()) == consumed &&
          std::string_view(stream).substr(consumed.size()) == pending,
      "the messages are not the consumed prefix of the stream");
  SK_FUZZ_CHECK(buf.readable_bytes() == pending.size() &&
                    buf.retrieve_all_as_string() == pending,
                "the bytes left in the buffer are not the stream's rest");
}

void OneInput(ByteReader& in) {
  const bool ring = in.boolean();
  const std::uint32_t max_body = ChooseMax(in);
  Trace::add(std::string("buffer ") + (ring ? "ring" : "linear") +
             ", max_body " + std::to_string(max_body));
  if (ring) {
    Run<RingBuffer>(in, max_body);
  } else {
    Run<LinearBuffer>(in, max_body);
  }
}

}  // namespace
}  // namespace serverkit::pingpong

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  serverkit::fuzz::Trace::reset();
  serverkit::fuzz::ByteReader in(data, size);
  serverkit::pingpong::OneInput(in);
  return 0;
}
