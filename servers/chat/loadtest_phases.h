// -----------------------------------------------------------------------------
// servers/chat/loadtest_phases.h
// -----------------------------------------------------------------------------
//
// The load test's run, phase by phase: the descriptor check, the connects,
// the join probes and the measured rounds, each failing with a reason when
// it makes no progress for --timeout seconds.

#ifndef SERVERKIT_SERVERS_CHAT_LOADTEST_PHASES_H_
#define SERVERKIT_SERVERS_CHAT_LOADTEST_PHASES_H_

#include <netinet/in.h>

#include <memory>
#include <string>
#include <vector>

#include "servers/chat/loadtest_flags.h"
#include "servers/chat/loadtest_worker.h"

namespace serverkit::chat::loadtest {

// False (after saying why) when the clients need more descriptors than the
// limit allows even raised; `*fd_limit` is the limit (negative: unknown).
bool EnoughDescriptors(const Options& opt, long* fd_limit);

// What one run measured, and the first thing that went wrong ("" if none).
struct RunResult {
  std::string error;
  double connect_seconds = 0, join_seconds = 0;
  int probes = 0;
  double client_cpu = 0, server_cpu = -1, seconds = 0;
};

// Connects, joins and runs every round, then stops the workers and closes
// the clients.
RunResult RunLoad(const Options& opt, const sockaddr_in& addr, Shared* sh,
                  std::vector<Client>& clients,
                  std::vector<std::unique_ptr<Worker>>* workers);

}  // namespace serverkit::chat::loadtest

#endif  // SERVERKIT_SERVERS_CHAT_LOADTEST_PHASES_H_
