// HttpResponseReader: a pipelined stream parses the same however it is
// split (at every byte boundary, at every pair of boundaries, a byte at a
// time); each kind of response it cannot time is an error that ends the
// stream, after the responses before it were counted.

#include "servers/loadgen/http_response.h"

#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "servers/loadgen/protocol.h"

namespace serverkit::loadgen {
namespace {

// Five responses: mixed-case names, spaces around values, an empty body, a
// body that looks like a head end, no reason phrase, repeated equal lengths.
const std::string kGood =
    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: x\r\n\r\nhello"
    "HTTP/1.1 204 No Content\r\ncontent-length:0\r\n\r\n"
    "HTTP/1.0 200 OK\r\nCONTENT-LENGTH: \t8 \r\n\r\n\r\n\r\nabcd"
    "HTTP/1.1 201\r\nX-A: b\r\nContent-Length: 3\r\nContent-Length: 3\r\n"
    "\r\nxyz"
    "HTTP/1.1 299 Fine\r\nContent-Length: 1\r\n\r\n!";
constexpr std::size_t kGoodCount = 5;

// Feeds `pieces` in order; returns (completed, error).
FeedResult FeedAll(const std::vector<std::string_view>& pieces) {
  HttpResponseReader r;
  FeedResult total;
  for (const std::string_view p : pieces) {
    FeedResult f = r.Feed(p);
    total.completed += f.completed;
    if (!f.error.empty()) {
      total.error = f.error;
      break;
    }
  }
  return total;
}

TEST(HttpResponseTest, WholeStream) {
  const FeedResult f = FeedAll({kGood});
  EXPECT_EQ(f.completed, kGoodCount);
  EXPECT_EQ(f.error, "");
}

TEST(HttpResponseTest, SplitAtEveryBoundary) {
  const std::string_view s = kGood;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    const FeedResult f = FeedAll({s.substr(0, i), s.substr(i)});
    ASSERT_EQ(f.completed, kGoodCount) << "split at " << i;
    ASSERT_EQ(f.error, "") << "split at " << i;
  }
}

TEST(HttpResponseTest, SplitAtEveryPairOfBoundaries) {
  const std::string_view s = kGood;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    for (std::size_t j = i; j <= s.size(); ++j) {
      const FeedResult f =
          FeedAll({s.substr(0, i), s.substr(i, j - i), s.substr(j)});
      ASSERT_EQ(f.completed, kGoodCount) << i << " " << j;
      ASSERT_EQ(f.error, "") << i << " " << j;
    }
  }
}

TEST(HttpResponseTest, ByteAtATimeCompletesEachResponseOnItsLastByte) {
  HttpResponseReader r;
  std::size_t completed = 0;
  for (std::size_t i = 0; i < kGood.size(); ++i) {
    const FeedResult f = r.Feed(std::string_view(kGood).substr(i, 1));
    ASSERT_EQ(f.error, "");
    completed += f.completed;
    EXPECT_EQ(r.idle(), f.completed == 1) << i;
  }
  EXPECT_EQ(completed, kGoodCount);
}

// Each bad response follows one good one: the good one counts, then the
// error, at every split.
void ExpectError(const std::string& bad, std::string_view why) {
  const std::string s = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" + bad;
  const std::string_view v = s;
  for (std::size_t i = 0; i <= v.size(); ++i) {
    const FeedResult f = FeedAll({v.substr(0, i), v.substr(i)});
    ASSERT_EQ(f.completed, 1u) << bad << " split at " << i;
    ASSERT_NE(f.error.find(why), std::string::npos)
        << "\"" << f.error << "\" lacks \"" << why << "\"";
  }
}

TEST(HttpResponseTest, Errors) {
  ExpectError("HTTP/1.1 200 OK\r\nServer: x\r\n\r\n", "without Content-Length");
  ExpectError(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
      "0\r\n\r\n",
      "Transfer-Encoding");
  ExpectError(
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\ntransfer-encoding: chunked"
      "\r\n\r\n",
      "Transfer-Encoding");
  ExpectError("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
              "HTTP status 404");
  ExpectError("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n",
              "HTTP status 500");
  ExpectError("HTTP/1.1 100 Continue\r\n\r\n", "HTTP status 100");
  ExpectError("HTTP/1.1 301 Moved\r\nContent-Length: 0\r\n\r\n",
              "HTTP status 301");
  ExpectError("HTTP/2 200 OK\r\nContent-Length: 0\r\n\r\n", "status line");
  ExpectError("HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n", "status line");
  ExpectError("HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n", "status line");
  ExpectError("garbage\r\n\r\n", "status line");
  ExpectError("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "header line");
  ExpectError("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n folded\r\n\r\n",
              "header line");
  ExpectError("HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n", "header line");
  ExpectError("HTTP/1.1 200 OK\r\nContent-Length: 12a\r\n\r\n",
              "bad Content-Length");
  ExpectError("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
              "bad Content-Length");
  ExpectError("HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n",
              "bad Content-Length");
  ExpectError("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
              "bad Content-Length");
  ExpectError(
      "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      "conflicting Content-Length");
  ExpectError("HTTP/1.1 200 OK\r\nX: " + std::string(20000, 'a') + "\r\n\r\n",
              "over 16 KiB");
}

TEST(HttpResponseTest, StaysBrokenAfterAnError) {
  HttpResponseReader r;
  EXPECT_NE(r.Feed("HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n").error, "");
  const FeedResult f = r.Feed("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(f.completed, 0u);
  EXPECT_NE(f.error, "");
}

TEST(HttpResponseTest, LargeBodiesAreSkippedAcrossPieces) {
  const std::string body(300000, 'b');
  const std::string one =
      "HTTP/1.1 200 OK\r\nContent-Length: 300000\r\n\r\n" + body;
  const std::string s = one + one;
  HttpResponseReader r;
  std::size_t completed = 0;
  for (std::size_t i = 0; i < s.size(); i += 65536) {
    const FeedResult f = r.Feed(std::string_view(s).substr(i, 65536));
    ASSERT_EQ(f.error, "");
    completed += f.completed;
  }
  EXPECT_EQ(completed, 2u);
  EXPECT_TRUE(r.idle());
}

TEST(ReplyReaderTest, EchoCountsWholeReplies) {
  ReplyReader r(Protocol::kEcho, 64);
  EXPECT_EQ(r.Feed(std::string(63, 'x')).completed, 0u);
  EXPECT_EQ(r.Feed(std::string(1, 'x')).completed, 1u);
  EXPECT_EQ(r.Feed(std::string(64 * 3 + 10, 'x')).completed, 3u);
  EXPECT_EQ(r.Feed(std::string(54, 'x')).completed, 1u);
}

TEST(ProtocolTest, Requests) {
  EXPECT_EQ(HttpRequest("/a?b=c", "example"),
            "GET /a?b=c HTTP/1.1\r\nHost: example\r\n\r\n");
  EXPECT_EQ(EchoRequest(300).size(), 300u);
}

}  // namespace
}  // namespace serverkit::loadgen
