// -----------------------------------------------------------------------------
// build/fuzz/framed_stream.h
// -----------------------------------------------------------------------------
//
// The oracle of a length-prefixed codec over a reactor Buffer, shared by
// servers/chat/codec_fuzz.cc (4-byte length, then the message) and
// servers/pingpong/header_fuzz.cc (8-byte header with body_size, then the
// body). `FuzzFramedStream<C, B1, B2>(in)` reads from the input:
//   - the buffer: B1 or B2 (a server's --buffer choices);
//   - the limit: small, a few KiB, the codec's default, or any 32-bit value;
//   - a program of appends: arbitrary bytes (a TCP segment) or the encoding
//     of a chosen message. After every append the decoder runs as a server's
//     does, until it needs more or a length is over the limit; the server
//     then closes, so the stream ends there.
//
// The oracle, against a model (the stream's bytes not yet taken):
//   - each decode says kTooLong exactly when the length field at the front
//     is over the limit (reporting that header, nothing taken), kNeedMore
//     exactly when the header or the body is not all there (nothing taken),
//     else kTaken with exactly the next header + length bytes;
//   - whatever is taken re-encodes byte-exactly, and all of it together is
//     the consumed prefix of the stream, every byte accounted for, the rest
//     still readable in the buffer;
//   - no length field makes the decoder allocate more than the limit: a
//     decode that takes nothing allocates nothing, and one that takes a
//     message makes no single allocation over header + limit + 1 bytes
//     (std::string's terminator; kSmallAllocation or less is let through),
//     counted by build/fuzz/allocations.h (the target links it);
//   - encode-then-decode: each chosen message, decoded alone from a fresh
//     buffer, gives back its encoding (kTooLong when over the limit).
//
// A codec C describes the format (all static):
//   Status, with kNeedMore, kTaken, kTooLong; Header; kHeaderSize; kDefaultMax
//   Header Read(const char* raw)            the header at the front
//   std::uint32_t BodySize(const Header&)   its length field
//   bool Same(const Header&, const Header&)
//   std::string Encode(const Header&, std::string_view body)
//   std::pair<Header, std::string_view> Choose(ByteReader&)  a message
//   std::string Describe(const Header&)     for the trace
//   Status Decode(B* in, std::uint32_t max, std::string* taken, Header*)
//     the decoder under test (a target's mutant plants its bug there);
//   void Before(const B& in, std::uint32_t max), void After(Status, const
//     std::string& taken): hooks around each decode (a second decoder that
//     must agree, say), checked after the model.
//
// Thread-safety: one fuzzing thread.

#ifndef SERVERKIT_BUILD_FUZZ_FRAMED_STREAM_H_
#define SERVERKIT_BUILD_FUZZ_FRAMED_STREAM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "build/fuzz/allocations.h"
#include "build/fuzz/fuzz.h"

namespace serverkit::fuzz {
namespace framed_internal {

template <typename C>
const char* Name(typename C::Status s) {
  if (s == C::kNeedMore) return "need more";
  if (s == C::kTaken) return "taken";
  if (s == C::kTooLong) return "too long";
  return "?";
}

// One decode, its allocations measured, between the codec's hooks.
template <typename C, typename B>
typename C::Status MeasuredDecode(B* in, std::uint32_t max, std::string* taken,
                                  typename C::Header* header) {
  C::Before(*in, max);
  AllocationCount count;
  const typename C::Status s = C::Decode(in, max, taken, header);
  count.stop();
  if (s == C::kTaken) {
    SK_FUZZ_CHECK(
        count.largest() <=
            std::max(C::kHeaderSize + std::size_t{max} + 1, kSmallAllocation),
        "the decoder allocated more than the limit for a message");
  } else {
    SK_FUZZ_CHECK(count.allocations() == 0,
                  "the decoder allocated without taking a message");
  }
  return s;
}

// The decoder's answer `s` against the model `pending` (the stream's bytes
// not yet taken); moves what was taken from `pending` to `consumed`.
template <typename C, typename B>
void CheckAgainstModel(typename C::Status s, const std::string& taken,
                       const typename C::Header& h, const B* buf,
                       std::uint32_t max, std::string* pending,
                       std::string* consumed) {
  Trace::add(std::string("decode: ") + Name<C>(s) + ", " + C::Describe(h) +
             ", readable " + std::to_string(buf->readable_bytes()));
  SK_FUZZ_CHECK(buf->readable_bytes() + (s == C::kTaken ? taken.size() : 0) ==
                    pending->size(),
                "the buffer lost or gained bytes");
  if (pending->size() < C::kHeaderSize) {
    SK_FUZZ_CHECK(s == C::kNeedMore, "not kNeedMore without a whole header");
    return;
  }
  const typename C::Header field = C::Read(pending->data());
  if (C::BodySize(field) > max) {
    SK_FUZZ_CHECK(s == C::kTooLong,
                  "a length field over the limit is not kTooLong");
    SK_FUZZ_CHECK(C::Same(h, field), "kTooLong reports another header");
    return;
  }
  SK_FUZZ_CHECK(s != C::kTooLong, "kTooLong for a length within the limit");
  const std::size_t total = C::kHeaderSize + std::size_t{C::BodySize(field)};
  if (pending->size() < total) {
    SK_FUZZ_CHECK(s == C::kNeedMore, "a message before all its bytes came");
    return;
  }
  SK_FUZZ_CHECK(s == C::kTaken, "a whole message is not taken");
  SK_FUZZ_CHECK(C::Same(h, field), "the message's header is not its field");
  SK_FUZZ_CHECK(taken == std::string_view(*pending).substr(0, total),
                "the message is not the front of the stream");
  SK_FUZZ_CHECK(
      C::Encode(h, std::string_view(taken).substr(C::kHeaderSize)) == taken,
      "the message does not re-encode byte-exactly");
  consumed->append(taken);
  pending->erase(0, total);
}

template <typename C, typename B>
typename C::Status DecodeOne(B* buf, std::uint32_t max, std::string* pending,
                             std::string* consumed) {
  std::string taken;
  typename C::Header h{};
  const typename C::Status s = MeasuredDecode<C>(buf, max, &taken, &h);
  CheckAgainstModel<C>(s, taken, h, buf, max, pending, consumed);
  C::After(s, taken);
  return s;
}

// Encode-then-decode of one message, alone in a fresh buffer.
template <typename C, typename B>
void RoundTrip(const typename C::Header& h, std::string_view body,
               std::uint32_t max) {
  const std::string encoded = C::Encode(h, body);
  SK_FUZZ_CHECK(encoded.size() == C::kHeaderSize + body.size() &&
                    C::Same(C::Read(encoded.data()), h) &&
                    encoded.substr(C::kHeaderSize) == body,
                "the encoding's layout");
  B buf;
  buf.append(encoded);
  std::string taken;
  typename C::Header back{};
  const typename C::Status s = MeasuredDecode<C>(&buf, max, &taken, &back);
  SK_FUZZ_CHECK(C::Same(back, h), "the decoded header");
  if (body.size() > max) {
    SK_FUZZ_CHECK(s == C::kTooLong && buf.readable_bytes() == encoded.size(),
                  "an encoded message over the limit is not kTooLong");
  } else {
    SK_FUZZ_CHECK(
        s == C::kTaken && taken == encoded && buf.readable_bytes() == 0,
        "encode then decode does not round-trip");
  }
  C::After(s, taken);
}

inline std::uint32_t ChooseMax(ByteReader& in, std::uint32_t default_max) {
  switch (in.u8() % 4) {
    case 0:
      return static_cast<std::uint32_t>(in.in_range(0, 64));
    case 1:
      return static_cast<std::uint32_t>(in.in_range(0, 4096));
    case 2:
      return default_max;
    default:
      return in.u32();
  }
}

template <typename C, typename B>
void Run(ByteReader& in, std::uint32_t max) {
  B buf;
  std::string stream;    // every byte appended
  std::string pending;   // the model: appended, not yet taken
  std::string consumed;  // the messages taken, in order
  bool closed = false;   // a length over the limit: the server closes
  while (!in.empty() && !closed) {
    std::string chunk;
    if (in.u8() % 4 == 3) {
      const auto [h, body] = C::Choose(in);
      Trace::add("message: " + C::Describe(h) + ", body \"" + Printable(body) +
                 "\"");
      RoundTrip<C, B>(h, body, max);
      chunk = C::Encode(h, body);
    } else {
      chunk = std::string(in.bytes(in.in_range(0, 255)));
      Trace::add("append \"" + Printable(chunk) + "\"");
    }
    buf.append(chunk);
    stream += chunk;
    pending += chunk;
    for (;;) {
      const typename C::Status s = DecodeOne<C>(&buf, max, &pending, &consumed);
      if (s == C::kTaken) continue;
      if (s == C::kTooLong) {
        // Nothing taken: asking again answers the same.
        DecodeOne<C>(&buf, max, &pending, &consumed);
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

}  // namespace framed_internal

// One fuzz input through codec C over buffer B1 or B2 (see the top).
template <typename C, typename B1, typename B2>
void FuzzFramedStream(ByteReader& in) {
  const bool second = in.boolean();
  const std::uint32_t max = framed_internal::ChooseMax(in, C::kDefaultMax);
  Trace::add("buffer " + std::string(second ? B2::kName : B1::kName) +
             ", max " + std::to_string(max));
  if (second) {
    framed_internal::Run<C, B2>(in, max);
  } else {
    framed_internal::Run<C, B1>(in, max);
  }
}

}  // namespace serverkit::fuzz

#endif  // SERVERKIT_BUILD_FUZZ_FRAMED_STREAM_H_
