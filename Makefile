# The two front-door commands:
#   make test    installs missing Debian packages, runs every test
#   make bench   installs missing Debian packages, runs the sweeps with -c opt
# PROFILE=full make bench   runs the long sweeps.

BAZEL ?= bazel
PROFILE ?= default
# Bazel's test summary is parsed by .ci/run; keep it on stdout.
BAZEL_TEST_FLAGS ?=

.PHONY: all deps test test-tsan test-asan bench bench-queues clean

all: test

deps:
	@tools/install_deps.sh

test: deps
	$(BAZEL) test $(BAZEL_TEST_FLAGS) //...

# The concurrent code under ThreadSanitizer (CI runs this too).
test-tsan: deps
	$(BAZEL) test --config=tsan $(BAZEL_TEST_FLAGS) //queues/...

test-asan: deps
	$(BAZEL) test --config=asan $(BAZEL_TEST_FLAGS) //...

bench: deps bench-queues

bench-queues: deps
	@echo "[1/1] queue sweep (profile $(PROFILE)) ..."
	$(BAZEL) run -c opt //bench:queues -- --profile=$(PROFILE)

clean:
	$(BAZEL) clean
