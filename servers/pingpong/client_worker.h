// -----------------------------------------------------------------------------
// servers/pingpong/client_worker.h
// -----------------------------------------------------------------------------
//
// The client's sessions and the epoll loop threads that drive them: the
// connect phase (non-blocking connects, at most kConnectWindow in flight per
// thread, one deadline for the phase), then each session's echo or header
// exchange, with the checks of every reply (client.cc's header says what is
// measured).

#ifndef SERVERKIT_SERVERS_PINGPONG_CLIENT_WORKER_H_
#define SERVERKIT_SERVERS_PINGPONG_CLIENT_WORKER_H_

#include <netinet/in.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <latch>
#include <memory>
#include <string>
#include <vector>

#include "base/cache_line.h"
#include "servers/pingpong/client_flags.h"
#include "servers/pingpong/common.h"

namespace serverkit::pingpong::client {

using Clock = std::chrono::steady_clock;

inline constexpr std::size_t kReadSize = 64 * 1024;
inline constexpr int kConnectWindow =
    256;  // non-blocking connects in flight per thread

// State shared by the main thread and the loop threads.
// Memory ordering: `go` and `stop` are release-stored by the main thread and
// acquire-loaded by the loops; `start` is written before `go` is released.
struct Shared {
  const ClientOptions* opt = nullptr;
  sockaddr_in addr{};
  Clock::time_point connect_deadline;
  std::string echo_block2;   // the echo block twice (verification window)
  std::string body_pattern;  // header bodies (see BodyPattern)
  std::latch* connected = nullptr;  // counted down once per loop thread
  std::atomic<bool> go{false};
  std::atomic<bool> stop{false};
  Clock::time_point start;
};

struct Session {
  enum class State : std::uint8_t {
    kIdle,
    kConnecting,
    kConnected,
    kDone,
    kClosed
  };
  int fd = -1;
  State state = State::kIdle;
  bool want_write = false;  // EPOLLOUT registered
  std::string out;          // bytes the socket did not take yet
  std::size_t out_off = 0;
  std::uint64_t stream_off = 0;  // echo --verify: bytes read so far
  std::string in;                // header: a reply not complete yet
  Header sent{0, 0};             // header: the message awaiting its reply
};

// One epoll loop thread and the sessions it owns. Everything but the atomics
// is touched only by the loop thread until it is joined.
class Worker {
 public:
  Worker(Shared* shared, int sessions)
      : sh_(shared), sessions_(static_cast<std::size_t>(sessions)) {
    scratch_.reset(new char[kReadSize]);
  }
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // The thread's body: connects its sessions, waits for Shared::go, then
  // runs their exchanges until Shared::stop.
  void Run();

  // Results. Written by the loop thread; `bytes` and `messages` are also read
  // by the main thread while the loop runs (relaxed: a snapshot).
  alignas(kCacheLineSize) std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> messages{0};
  std::atomic<int> connected{0};
  std::atomic<int> connect_failures{0};
  std::atomic<int> finished{0};  // header: sessions done or closed
  // Read after join.
  int errors = 0;
  int peer_closed = 0;
  int first_errno = 0;
  std::vector<double> completion_seconds;  // header: per finished session

 private:
  void ConnectAll();

  // Returns true when a connect is in flight.
  bool StartConnect(Session& s);
  void FailConnect(Session& s, int err);
  void Add(Session& s, std::uint32_t ev);
  void Watch(Session& s, std::uint32_t ev);
  void Close(Session& s, bool finished_ok);
  void Fail(Session& s);
  void Loop();
  void HandleRead(Session& s);
  void OnEchoData(Session& s, const char* data, std::size_t n);
  bool VerifyEcho(Session& s, const char* data, std::size_t n);
  void OnHeaderData(Session& s, const char* data, std::size_t n);
  void SendMessage(Session& s, Header h);
  void Send(Session& s, const char* data, std::size_t n);
  void HandleWrite(Session& s);

  Shared* sh_;
  std::vector<Session> sessions_;
  std::unique_ptr<char[]> scratch_;
  std::vector<char> msg_;
  int ep_ = -1;
  int connected_local_ = 0;
  int connect_failures_local_ = 0;
};

}  // namespace serverkit::pingpong::client

#endif  // SERVERKIT_SERVERS_PINGPONG_CLIENT_WORKER_H_
