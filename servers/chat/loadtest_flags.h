// -----------------------------------------------------------------------------
// servers/chat/loadtest_flags.h
// -----------------------------------------------------------------------------
//
// The chat load test's command line (loadtest.cc): muduo's arguments, then
// the flags. A parse error prints the usage and exits with status 2; --help
// prints it and exits with 0.

#ifndef SERVERKIT_SERVERS_CHAT_LOADTEST_FLAGS_H_
#define SERVERKIT_SERVERS_CHAT_LOADTEST_FLAGS_H_

#include <cstddef>
#include <cstdint>
#include <string>

namespace serverkit::chat::loadtest {

struct Options {
  std::string host;
  int port = 0;
  int clients = 0;
  int threads = 1;
  std::uint32_t rounds = 100;
  std::size_t message_size = 64;
  std::string json;
  double timeout = 30;
  long server_pid = 0;
};

// argv → options, or exit (see above).
Options ParseArgs(int argc, char** argv);

}  // namespace serverkit::chat::loadtest

#endif  // SERVERKIT_SERVERS_CHAT_LOADTEST_FLAGS_H_
