# The two front-door commands:
#   make test    installs missing Debian packages, runs every test
#   make bench   installs missing Debian packages, then the whole chain with
#                -c opt: the four sweeps in paired rounds (each within its
#                time budget, bench/sweep.sh), pick, the leaders confirmed
#                in 4 fresh processes, pick again, the ping-pong and its
#                validation, chat, HTTP under wrk, latency at set rates
#                (open loop) after the ping-pong and HTTP runs, and
#                results/REPORT.md (about 28 minutes on 2 cores;
#                docs/methods.md)
# PROFILE=full make bench   the long sweeps (about two hours, not measured).
# make bench-quick          a smoke run of the whole chain (a few minutes).
# make compare A=dir B=dir  per-benchmark deltas between two result sets.
# make bench-repro FAMILY=queues  one family's sweep twice: do the runs agree?
# make lint                 flake8 and mypy on pick, servers/ and build/.
# make calibration          how often the decision rules are wrong, by
#                           seeded simulation (docs/methods.md's tables).
# make format-check         clang-format on every C++ file (make format fixes).
# make soak MINUTES=N       the three servers at once for N minutes (default
#                           10) under normal and hostile clients; fails on a
#                           leak, a crash or a lost reply (results/soak.json).
# make fuzz SECONDS=N       every fuzz target N s (clang, libFuzzer, ASan,
#                           UBSan), then each planted-bug mutant must be caught.

BAZEL ?= bazel
PROFILE ?= default
# Bazel's test summary is parsed by .ci/run; keep it on stdout.
# Extra flags for every `bazel test` below; .ci/run sets --config=ci (-Werror).
BAZEL_TEST_FLAGS ?=

.PHONY: all deps test lint calibration format format-check fuzz soak test-tsan test-asan test-ubsan bench bench-quick \
	bench-queues bench-threadpool bench-logger bench-buffer bench-pick \
	bench-pingpong bench-chat bench-http bench-repro compare clean

all: test

deps:
	@tools/install_deps.sh

test: deps
	$(BAZEL) test $(BAZEL_TEST_FLAGS) //...
	@echo "== examples/: serverkit from a workspace of its own"
	cd examples && $(BAZEL) --batch test //...

# flake8 and mypy --strict on the Python packages pick, servers,
# validation and build (tools/lint_python.sh; CI runs this too).
lint: deps
	tools/lint_python.sh

# The tables "How often the rules are wrong" of docs/methods.md: the micro
# pick's and the validation's decision code on seeded simulations.
calibration: deps
	PYTHONPATH=. /usr/bin/python3 -m pick.decide.error_rates --runs=1000
	@echo
	PYTHONPATH=. /usr/bin/python3 -m validation.calibration

# clang-format on every C++ file (tools/check_format.sh; CI runs this too);
# `make format` rewrites what differs.
format-check: deps
	tools/check_format.sh

format:
	tools/check_format.sh --fix

# The soak (servers/soak, docs/testing.md "The soak"): the three servers
# built with -c opt, then all three at once for MINUTES under normal clients
# that check every byte and hostile ones, sampled every 10 s; fails on an
# upward trend in RSS, descriptors or threads, a server that exits, or a lost
# or corrupt reply. Prints progress and the table; writes results/soak.json.
# CI runs it with MINUTES=2.
MINUTES ?= 10
SOAK_SERVERS = //servers/pingpong:server //servers/chat:server //servers/http:server
soak: deps
	$(BAZEL) build -c opt $(SOAK_SERVERS)
	PYTHONPATH=. /usr/bin/python3 -m servers.soak.soak --minutes=$(MINUTES) \
	  --bin_dir="$$($(BAZEL) info -c opt bazel-bin)"

# Every fuzz target for SECONDS each, from its corpus (<package>/fuzz/), then
# every planted-bug mutant, which its target's oracle must catch within
# MUTANT_SECONDS (tools/fuzz.sh; CI runs this with SECONDS=30). Prints each
# target's execs, execs per second and coverage; results/fuzz/ keeps logs,
# new inputs and crashes. `make test` replays each corpus (the _replay tests).
SECONDS ?= 60
MUTANT_SECONDS ?= 30
FUZZ_JOBS ?= 1
fuzz: deps
	tools/fuzz.sh --seconds=$(SECONDS) --mutant_seconds=$(MUTANT_SECONDS) --jobs=$(FUZZ_JOBS)

# The concurrent code under ThreadSanitizer (CI runs this too); //build/...
# holds the mutants, races in our code the suppressions must not hide.
TSAN_TARGETS = //base/... //build/... //queues/... //threadpool/... //logger/... \
	//reactor/... //servers/pingpong:pingpong_test //servers/pingpong:pingpong_uring_test \
	//servers/http:http_server_test //servers/chat:chat_test //servers/chat:chat_uring_test
test-tsan: deps
	$(BAZEL) test --config=tsan $(BAZEL_TEST_FLAGS) $(TSAN_TARGETS)

# Every folder under AddressSanitizer and UBSan together (.bazelrc's asan
# config builds with both); CI runs this, so it never needs test-ubsan, which
# is UBSan alone, for a build without ASan's memory cost.
ASAN_TARGETS ?= //...
test-asan: deps
	$(BAZEL) test --config=asan $(BAZEL_TEST_FLAGS) $(ASAN_TARGETS)

test-ubsan: deps
	$(BAZEL) test --config=ubsan $(BAZEL_TEST_FLAGS) //...

# The whole chain (bench/bench.sh): the four sweeps (paired rounds, one
# process each unless PROCESSES=N), merge, pick, ping-pong + validation, chat broadcast, HTTP under
# wrk, report (pick again, now with all of them). Prints a total estimate up
# front, each step's time, and where REPORT.md is.
# PICK_FLAGS='--producers=4 --latency-bound' narrows the recommendation.
PICK_FLAGS ?=
# SNAPSHOT=1 also writes docs/results/<date>-<cores>core-report.md.
SNAPSHOT ?=
bench: deps
	@PROFILE="$(PROFILE)" BAZEL="$(BAZEL)" PICK_FLAGS="$(PICK_FLAGS)" SNAPSHOT="$(SNAPSHOT)" bench/bench.sh

# Every step with --profile=smoke (one round): checks the chain end to end.
bench-quick: deps
	@PROFILE=smoke BAZEL="$(BAZEL)" PICK_FLAGS="$(PICK_FLAGS)" bench/bench.sh

# One step at a time. Each sweep writes results/<family>.json
# (bench/sweep.sh; PROCESSES=N splits it into N merged processes).
bench-queues: deps
	PROFILE=$(PROFILE) BAZEL="$(BAZEL)" bench/sweep.sh queues

bench-threadpool: deps
	PROFILE=$(PROFILE) BAZEL="$(BAZEL)" bench/sweep.sh threadpool

bench-logger: deps
	PROFILE=$(PROFILE) BAZEL="$(BAZEL)" bench/sweep.sh logger

bench-buffer: deps
	PROFILE=$(PROFILE) BAZEL="$(BAZEL)" bench/sweep.sh buffer

bench-pingpong: deps
	$(BAZEL) run -c opt //bench:pingpong -- --profile=$(PROFILE)

bench-chat: deps
	$(BAZEL) run -c opt //bench:chat -- --profile=$(PROFILE)

bench-http: deps
	$(BAZEL) run -c opt //bench:http -- --profile=$(PROFILE)

bench-pick:
	$(BAZEL) run -c opt //bench:pick -- $(PICK_FLAGS)

# Reproducibility: `make bench-repro FAMILY=queues` (threadpool, logger,
# buffer, all) runs the family's sweep twice and prints, per workload class,
# whether the runs agree; exits 1 on a contradiction (bench/repro.sh).
FAMILY ?=
bench-repro: deps
	@FAMILY="$(FAMILY)" PROFILE="$(PROFILE)" BAZEL="$(BAZEL)" bench/repro.sh

# Two machines or two commits: `make compare A=results-a B=results-b`.
# Google Benchmark's compare.py (Debian's libbenchmark-tools; its U-test needs
# 2+ repetitions, 9+ to be trusted) on every family file present in both,
# then pick's summary of each ranking metric with the U-test's p.
COMPARE_PY = /usr/share/benchmark/compare.py
compare: deps
	@if [ -z "$(A)" ] || [ -z "$(B)" ]; then \
	  echo "compare: usage: make compare A=results-a B=results-b" >&2; exit 2; fi
	@for d in "$(A)" "$(B)"; do if [ ! -d "$$d" ]; then \
	  echo "compare: $$d is not a directory (A=$(A) B=$(B))" >&2; exit 2; fi; done
	@if [ ! -f $(COMPARE_PY) ]; then echo "compare: $(COMPARE_PY) is missing;" \
	  "install Debian's libbenchmark-tools" >&2; exit 2; fi
	@n=0; for f in queues threadpool logger buffer; do \
	  if [ -f "$(A)/$$f.json" ] && [ -f "$(B)/$$f.json" ]; then n=$$((n + 1)); \
	    echo "== $$f: $(A)/$$f.json -> $(B)/$$f.json (compare.py: time deltas, U-test)"; \
	    agg=; if grep -q '"aggregate_name"' "$(A)/$$f.json" && \
	      grep -q '"aggregate_name"' "$(B)/$$f.json"; then agg=-a; fi; \
	    /usr/bin/python3 $(COMPARE_PY) $$agg --no-color benchmarks \
	      "$(A)/$$f.json" "$(B)/$$f.json" || exit 1; \
	  else echo "== $$f: skipped (not in both $(A) and $(B))"; fi; done; \
	if [ $$n -eq 0 ]; then echo "compare: no family file is in both $(A) and $(B)" >&2; exit 2; fi
	@echo "== ranking metrics"
	@PYTHONPATH=. /usr/bin/python3 -m pick --compare "$(A)" "$(B)"

clean:
	$(BAZEL) clean
