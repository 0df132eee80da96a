#include "reactor/internal/report_errno.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace serverkit::reactor_internal {
namespace {

void Report(int err, const char* format, std::va_list args) {
  char what[512];
  std::vsnprintf(what, sizeof(what), format, args);
  std::fprintf(stderr, "%s: %s\n", what, std::strerror(err));
}

}  // namespace

void ReportErrno(const char* format, ...) {
  const int saved = errno;
  std::va_list args;
  va_start(args, format);
  Report(saved, format, args);
  va_end(args);
  errno = saved;
}

void ReportErrno(int err, const char* format, ...) {
  const int saved = errno;
  std::va_list args;
  va_start(args, format);
  Report(err, format, args);
  va_end(args);
  errno = saved;
}

}  // namespace serverkit::reactor_internal
