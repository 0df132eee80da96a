// -----------------------------------------------------------------------------
// servers/chat/args.h
// -----------------------------------------------------------------------------
//
// The command line every chat server (ours and the Asio peer) accepts:
//
//   <server> <addr> <port> <threads> [--max_message=N] [--max_queued=N]
//
//   threads 1: one loop accepts and serves; N > 1: an accepting loop plus N
//       I/O loops, connections handed round-robin (muduo's model).
//   --max_message  the codec's limit (default 64 KiB): a frame whose length
//       is over it closes that connection, with one line on stderr.
//   --max_queued   the slow-receiver limit (default 1 MiB): a receiver with
//       more than N bytes of output still queued in the server when a
//       broadcast reaches it is closed, with one line on stderr; the frame
//       being delivered does not count, so a receiver with nothing queued
//       always gets it. A client that never reads costs at most about
//       N + --max_message bytes of server memory (plus what the kernel's
//       socket buffers hold).
//
// Parse errors print the usage and exit(2); --help prints it and exit(0).
//
// Thread-safety: call from main().

#ifndef SERVERKIT_SERVERS_CHAT_ARGS_H_
#define SERVERKIT_SERVERS_CHAT_ARGS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "servers/chat/codec.h"

namespace serverkit::chat {

inline constexpr std::size_t kDefaultMaxQueued = std::size_t{1} << 20;

struct ServerArgs {
  std::string addr;
  int port = 0;
  int threads = 1;
  std::uint32_t max_message = kDefaultMaxMessage;
  std::size_t max_queued = kDefaultMaxQueued;
};

// argv[0] is the program; `extra_help` is appended to the usage text.
ServerArgs ParseServerArgs(int argc, char* const* argv, std::string_view name,
                           std::string_view extra_help);

}  // namespace serverkit::chat

#endif  // SERVERKIT_SERVERS_CHAT_ARGS_H_
