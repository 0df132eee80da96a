// -----------------------------------------------------------------------------
// bench/harness/run_names.cc
// -----------------------------------------------------------------------------
//
// A run's name read back into the contract's parts, and the filters by name
// (internal/run_names.h).

#include "bench/harness/internal/run_names.h"

#include <cstddef>
#include <cstring>
#include <regex>
#include <string>
#include <vector>

namespace serverkit::bench::internal {

ParsedName ParseRunName(const std::string& run_name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= run_name.size()) {
    const std::size_t slash = run_name.find('/', start);
    parts.push_back(run_name.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  ParsedName p;
  if (parts.size() >= 2) p.scenario = parts[1];
  if (parts.size() >= 3) p.impl = parts[2];
  // Google Benchmark appends its own segments after ours; `threads:` is one
  // of them only once another of them has appeared (a family may use
  // `threads:` as its own parameter).
  bool in_suffix = false;
  for (std::size_t i = 3; i < parts.size(); ++i) {
    const std::string& s = parts[i];
    const bool gb_suffix =
        s == "manual_time" || s == "real_time" || s == "process_time" ||
        s.rfind("iterations:", 0) == 0 || s.rfind("repeats:", 0) == 0 ||
        s.rfind("min_time:", 0) == 0 || s.rfind("min_warmup_time:", 0) == 0 ||
        (in_suffix && s.rfind("threads:", 0) == 0);
    if (gb_suffix) {
      in_suffix = true;
      continue;
    }
    if (!p.params.empty()) p.params += "/";
    p.params += s;
  }
  return p;
}

std::string ExactFilter(const std::string& name) {
  std::string re = "^";
  for (char c : name) {
    if (std::strchr(".[]()*+?{}|^$\\", c) != nullptr) re += '\\';
    re += c;
  }
  return re +
         "(/(manual_time|real_time|process_time|iterations:[0-9]+|"
         "repeats:[0-9]+|min_time:[^/]+|min_warmup_time:[^/]+|"
         "threads:[0-9]+))*$";
}

bool PassesFilter(const std::string& name, const std::string& filter) {
  if (filter.empty() || filter == "all") return true;
  const bool negative = filter[0] == '-';
  const std::regex re(negative ? filter.substr(1) : filter,
                      std::regex::extended);
  // Google Benchmark's names go on with its own suffixes ("/iterations:1"):
  // a filter that expects a "/" after ours matches as it would there.
  const bool found =
      std::regex_search(name, re) || std::regex_search(name + "/", re);
  return found != negative;
}

}  // namespace serverkit::bench::internal
