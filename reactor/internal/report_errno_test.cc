// ReportErrno: the message, ": ", strerror of the error, one line; errno is
// left as it was.

#include "reactor/internal/report_errno.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace serverkit::reactor_internal {
namespace {

TEST(ReportErrnoTest, FormatsTheMessageAndAppendsTheCurrentErrno) {
  const std::string expected =
      std::string("reactor: close(7) failed: ") + std::strerror(EBADF) + "\n";
  testing::internal::CaptureStderr();
  errno = EBADF;
  ReportErrno("reactor: close(%d) failed", 7);
  EXPECT_EQ(errno, EBADF);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), expected);
}

TEST(ReportErrnoTest, ReportsASavedErrorAndLeavesErrnoAlone) {
  const std::string expected = std::string("reactor: test#1: write failed: ") +
                               std::strerror(EPIPE) + "\n";
  testing::internal::CaptureStderr();
  errno = EAGAIN;
  ReportErrno(EPIPE, "reactor: %s: write failed", "test#1");
  EXPECT_EQ(errno, EAGAIN);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), expected);
}

}  // namespace
}  // namespace serverkit::reactor_internal
