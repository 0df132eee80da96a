// -----------------------------------------------------------------------------
// reactor/internal/report_errno.h
// -----------------------------------------------------------------------------
//
// ReportErrno: how the reactor reports a failed system call, in one line on
// stderr:
//
//   ReportErrno("reactor: close(%d) failed", fd);
//     -> "reactor: close(7) failed: Bad file descriptor"
//
// The message is formatted like printf, then ": " and strerror of the error
// are appended. The first form reports the current `errno`; the second an
// error number saved earlier. Both leave `errno` as it was.
//
// Thread-safe (one write to stderr per line).

#ifndef SERVERKIT_REACTOR_INTERNAL_REPORT_ERRNO_H_
#define SERVERKIT_REACTOR_INTERNAL_REPORT_ERRNO_H_

namespace serverkit::reactor_internal {

void ReportErrno(const char* format, ...) __attribute__((format(printf, 1, 2)));
void ReportErrno(int err, const char* format, ...)
    __attribute__((format(printf, 2, 3)));

}  // namespace serverkit::reactor_internal

#endif  // SERVERKIT_REACTOR_INTERNAL_REPORT_ERRNO_H_
