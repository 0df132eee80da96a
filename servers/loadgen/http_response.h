// -----------------------------------------------------------------------------
// servers/loadgen/http_response.h
// -----------------------------------------------------------------------------
//
// `HttpResponseReader`: counts the complete HTTP/1.1 responses in a byte
// stream fed in pieces of any size (a response may be split at any byte).
// A response is a status line, header lines, a blank line (CRLF line ends),
// then exactly Content-Length bytes of body, which are skipped, not copied.
//
// The generator only pipelines GETs to servers it benchmarks, so anything it
// cannot time exactly is an error that ends the stream: a status outside
// 2xx, no Content-Length, Transfer-Encoding (chunked), two different
// Content-Lengths, a malformed status or header line, a head over 16 KiB.
// After an error the reader stays broken.
//
// Thread-safety: thread-compatible (one per connection).

#ifndef SERVERKIT_SERVERS_LOADGEN_HTTP_RESPONSE_H_
#define SERVERKIT_SERVERS_LOADGEN_HTTP_RESPONSE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace serverkit::loadgen {

// What one piece of input did: the responses it completed (those before an
// error included) and, when the stream broke, why.
struct FeedResult {
  std::size_t completed = 0;
  std::string error;  // empty: no error
};

class HttpResponseReader {
 public:
  static constexpr std::size_t kMaxHead = 16 * 1024;

  FeedResult Feed(std::string_view data);

  // True between responses (no partial response buffered).
  bool idle() const { return head_.empty() && !in_body_; }

 private:
  // Parses one complete head (ending in CRLF CRLF); sets body_left_. Returns
  // the error text, empty when the head is good.
  std::string ParseHead(std::string_view head);

  std::string head_;  // a head split across pieces, so far
  bool in_body_ = false;
  std::uint64_t body_left_ = 0;
  std::string broken_;  // the first error, repeated after it
};

}  // namespace serverkit::loadgen

#endif  // SERVERKIT_SERVERS_LOADGEN_HTTP_RESPONSE_H_
