"""The one place for compiler flags. Every rule in the project uses LIB_COPTS or TEST_COPTS."""

LIB_COPTS = [
    # The standard comes with the targets, so that a workspace without
    # serverkit's .bazelrc (a user's, examples/) builds them too.
    "-std=c++20",
    "-Wall",
    "-Wextra",
    "-Wcast-qual",
    "-Wnon-virtual-dtor",
    "-Wvla",
    "-Werror=return-type",
]

# Tests and benchmarks: the library flags, minus what gtest/benchmark macros trip over.
TEST_COPTS = LIB_COPTS + [
    "-Wno-sign-compare",
    "-Wno-unused-parameter",
]
