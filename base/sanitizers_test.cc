// The compile-time constants agree with the sanitizer runtime actually linked
// into this test: TSan's and ASan's runtimes define `__tsan_init` and
// `__asan_init`; without them the weak references below are null. Run under
// --config=tsan and --config=asan as well as a plain build.

#include "base/sanitizers.h"

#include "gtest/gtest.h"

extern "C" void __tsan_init() __attribute__((weak));
extern "C" void __asan_init() __attribute__((weak));

namespace serverkit {
namespace {

TEST(SanitizersTest, TsanConstantMatchesTheRuntime) {
  EXPECT_EQ(kUnderTsan, &__tsan_init != nullptr);
}

TEST(SanitizersTest, AsanConstantMatchesTheRuntime) {
  EXPECT_EQ(kUnderAsan, &__asan_init != nullptr);
}

TEST(SanitizersTest, UnderSanitizerIsEither) {
  EXPECT_EQ(kUnderSanitizer, kUnderTsan || kUnderAsan);
}

}  // namespace
}  // namespace serverkit
