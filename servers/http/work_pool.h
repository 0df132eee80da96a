// -----------------------------------------------------------------------------
// servers/http/work_pool.h
// -----------------------------------------------------------------------------
//
// The HTTP server's pool by name is components/by_name.h's (components::Pool,
// MakePool); the server uses it directly. These names stay for work_test:
//
//   - `WorkPool`: components::Pool;
//   - `WorkPoolNames()`: every pool's kName ("none" left out);
//   - `MakeWorkPool(name, threads)`: the pool, or null for an unknown name.
//
// Thread-safety: as components::Pool's.

#ifndef SERVERKIT_SERVERS_HTTP_WORK_POOL_H_
#define SERVERKIT_SERVERS_HTTP_WORK_POOL_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "components/by_name.h"

namespace serverkit::http {

using WorkPool = components::Pool;

inline std::vector<std::string> WorkPoolNames() {
  std::vector<std::string> names = components::PoolNames();
  names.erase(names.begin());  // "none"
  return names;
}

inline std::unique_ptr<WorkPool> MakeWorkPool(std::string_view name,
                                              std::size_t threads) {
  return components::FindPool(name, threads);
}

}  // namespace serverkit::http

#endif  // SERVERKIT_SERVERS_HTTP_WORK_POOL_H_
