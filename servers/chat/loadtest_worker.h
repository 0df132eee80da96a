// -----------------------------------------------------------------------------
// servers/chat/loadtest_worker.h
// -----------------------------------------------------------------------------
//
// The load test's clients and the epoll loop threads that read them: each
// frame checked (length, order, no duplicate), the join probes counted, and
// the receiver that completes a round sending the next (loadtest.cc's header
// says what is measured).

#ifndef SERVERKIT_SERVERS_CHAT_LOADTEST_WORKER_H_
#define SERVERKIT_SERVERS_CHAT_LOADTEST_WORKER_H_

#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/cache_line.h"
#include "servers/chat/codec.h"
#include "servers/chat/loadtest_flags.h"

namespace serverkit::chat::loadtest {

using Clock = std::chrono::steady_clock;

inline constexpr std::size_t kReadSize = 64 * 1024;

// The steady clock in ns: the send time a round's message carries.
std::int64_t NowNs();

struct Client {
  int fd = -1;
  int id = 0;
  std::uint32_t expected = 0;  // the next round it must receive
  std::uint32_t last_probe = 0;
  bool saw_probe = false;
  std::string in;  // bytes of an incomplete frame
};

// State shared by the main thread and the loop threads.
// Memory ordering: `probe_state`, `remaining`, `rounds_done`, `finished`,
// `failed` and `stop` are atomics; a round's message is sent only after
// `remaining` was reset for it, so no receipt of round r + 1 can be counted
// against round r. The error text is under `mu`.
struct Shared {
  const Options* opt = nullptr;
  std::vector<Client>* clients = nullptr;
  std::string filler_frame;  // a frame of the right size, body rewritten
  // The latest probe (high 32 bits) and how many clients have seen it (low
  // 32 bits): one word, so a late receipt of an older probe can never be
  // counted for the newer one.
  alignas(kCacheLineSize) std::atomic<std::uint64_t> probe_state{~0ull << 32};
  alignas(kCacheLineSize) std::atomic<int> remaining{0};
  std::atomic<std::uint32_t> rounds_done{0};
  std::atomic<bool> finished{false};
  std::int64_t finish_ns = 0;  // written before `finished` is released
  alignas(kCacheLineSize) std::atomic<bool> failed{false};
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::string error;

  void Fail(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    std::lock_guard<std::mutex> lock(mu);
    if (error.empty()) error = buf;
    failed.store(true, std::memory_order_release);
  }
};

// Writes all of `frame` to fd (the socket's send buffer is normally empty:
// a client sends one small message per round); waits with poll() when the
// socket is full. Returns false on error.
bool SendAll(int fd, const std::string& frame, double timeout);

// A frame of opt.message_size bytes of body: `kind`, `seq` and the send time.
std::string MakeFrame(const Options& opt, BodyKind kind, std::uint32_t seq);

// Sends round r from client r mod K.
void SendRound(Shared* sh, std::uint32_t r);

class Worker {
 public:
  Worker(Shared* sh, std::vector<Client*> clients)
      : sh_(sh),
        clients_(std::move(clients)),
        scratch_(new char[kReadSize]),
        round_max_ns_(sh->opt->rounds, 0) {
    samples_us.reserve(clients_.size() * sh->opt->rounds);
  }
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Registers the clients with a new epoll set; false on error (errno).
  bool Init();
  // The thread's body: reads and checks every frame until Shared::stop.
  void Run();

  // Read after join.
  std::vector<double> samples_us;  // every receipt of every round
  const std::vector<std::int64_t>& round_max_ns() const {
    return round_max_ns_;
  }

 private:
  void HandleRead(Client& c);
  void OnMessage(Client& c, std::string_view body, std::int64_t now);

  Shared* sh_;
  std::vector<Client*> clients_;
  std::unique_ptr<char[]> scratch_;
  std::vector<std::int64_t> round_max_ns_;
  int ep_ = -1;
};

}  // namespace serverkit::chat::loadtest

#endif  // SERVERKIT_SERVERS_CHAT_LOADTEST_WORKER_H_
