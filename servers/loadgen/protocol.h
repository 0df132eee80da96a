// -----------------------------------------------------------------------------
// servers/loadgen/protocol.h
// -----------------------------------------------------------------------------
//
// The two protocols the generator speaks, as what it writes per request and
// how it counts replies:
//
//   - http: `GET <path> HTTP/1.1\r\nHost: <host>\r\n\r\n`, pipelined on a
//     keep-alive connection; replies read by HttpResponseReader.
//   - echo: `size` bytes per request (byte i = i mod 251); a reply is
//     complete when `size` more bytes came back (replies in order).
//
// Thread-safety: thread-compatible (a ReplyReader per connection).

#ifndef SERVERKIT_SERVERS_LOADGEN_PROTOCOL_H_
#define SERVERKIT_SERVERS_LOADGEN_PROTOCOL_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "servers/loadgen/http_response.h"

namespace serverkit::loadgen {

enum class Protocol { kHttp, kEcho };

std::string_view ProtocolName(Protocol p);
std::optional<Protocol> ParseProtocol(std::string_view s);

// The bytes of one request (the same for every request).
std::string HttpRequest(std::string_view path, std::string_view host_header);
std::string EchoRequest(std::size_t size);

// Counts complete replies on one connection, whichever the protocol.
class ReplyReader {
 public:
  // `echo_size`: bytes per echo reply (unused for http).
  ReplyReader(Protocol protocol, std::size_t echo_size)
      : protocol_(protocol), echo_size_(echo_size) {}

  FeedResult Feed(std::string_view data) {
    if (protocol_ == Protocol::kHttp) return http_.Feed(data);
    FeedResult r;
    echo_partial_ += data.size();
    r.completed = echo_partial_ / echo_size_;
    echo_partial_ %= echo_size_;
    return r;
  }

 private:
  Protocol protocol_;
  std::size_t echo_size_;
  std::size_t echo_partial_ = 0;  // bytes of the echo reply under way
  HttpResponseReader http_;
};

}  // namespace serverkit::loadgen

#endif  // SERVERKIT_SERVERS_LOADGEN_PROTOCOL_H_
