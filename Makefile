# The two front-door commands:
#   make test    installs missing Debian packages, runs every test
#   make bench   installs missing Debian packages, runs the sweeps with -c opt
# PROFILE=full make bench   runs the long sweeps.

BAZEL ?= bazel
PROFILE ?= default
# Bazel's test summary is parsed by .ci/run; keep it on stdout.
BAZEL_TEST_FLAGS ?=

.PHONY: all deps test test-tsan test-asan test-ubsan bench bench-queues \
	bench-threadpool bench-logger bench-buffer clean

all: test

deps:
	@tools/install_deps.sh

test: deps
	$(BAZEL) test $(BAZEL_TEST_FLAGS) //...

# The concurrent code under ThreadSanitizer (CI runs this too).
TSAN_TARGETS = //queues/... //threadpool/... //logger/... //reactor/...
test-tsan: deps
	$(BAZEL) test --config=tsan $(BAZEL_TEST_FLAGS) $(TSAN_TARGETS)

test-asan: deps
	$(BAZEL) test --config=asan $(BAZEL_TEST_FLAGS) //...

test-ubsan: deps
	$(BAZEL) test --config=ubsan $(BAZEL_TEST_FLAGS) //buffer/... //reactor/...

bench: deps bench-queues bench-threadpool bench-logger bench-buffer

bench-queues: deps
	@echo "[1/4] queue sweep (profile $(PROFILE)) ..."
	$(BAZEL) run -c opt //bench:queues -- --profile=$(PROFILE)

bench-threadpool: deps
	@echo "[2/4] thread-pool sweep (profile $(PROFILE)) ..."
	$(BAZEL) run -c opt //bench:threadpool -- --profile=$(PROFILE)

bench-logger: deps
	@echo "[3/4] logger sweep (profile $(PROFILE)) ..."
	$(BAZEL) run -c opt //bench:logger -- --profile=$(PROFILE)

bench-buffer: deps
	@echo "[4/4] buffer sweep (profile $(PROFILE)) ..."
	$(BAZEL) run -c opt //bench:buffer -- --profile=$(PROFILE)

clean:
	$(BAZEL) clean
