// -----------------------------------------------------------------------------
// servers/pingpong/client_flags.h
// -----------------------------------------------------------------------------
//
// The ping-pong client's command line (client.cc): muduo's positional
// arguments, then the flags. A parse error prints the usage and exits with
// status 2; --help prints it and exits with 0.

#ifndef SERVERKIT_SERVERS_PINGPONG_CLIENT_FLAGS_H_
#define SERVERKIT_SERVERS_PINGPONG_CLIENT_FLAGS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "servers/pingpong/common.h"

namespace serverkit::pingpong::client {

struct ClientOptions {
  std::string ip;
  int port = 0;
  int threads = 1;
  std::size_t blocksize = 0;
  int sessions = 0;
  double seconds = 0;
  Protocol protocol = Protocol::kEcho;
  std::uint32_t count = 8192;
  std::string json;
  bool verify = false;
  double connect_timeout = -1;  // < 0: 10 s + 1 ms per session
};

// argv → options, or exit (see above).
ClientOptions ParseArgs(int argc, char** argv);

}  // namespace serverkit::pingpong::client

#endif  // SERVERKIT_SERVERS_PINGPONG_CLIENT_FLAGS_H_
