#!/usr/bin/env bash
# Installs the Debian packages this project needs, only those that are missing.
# Used by `make test` and `make bench`; safe to run again (does nothing when all
# are present). Needs root (or password-less sudo) only when something is missing.
set -euo pipefail

packages=(
  bazel-bootstrap          # Bazel 4.2.3, WORKSPACE mode, works offline
  g++
  libgtest-dev             # tests
  libbenchmark-dev         # sweeps
  libbenchmark-tools       # compare.py
  libboost-dev             # Boost.Lockfree, Boost.Asio
  libboost-log-dev         # Boost.Log logger adapter
  libconcurrentqueue-dev   # moodycamel::ConcurrentQueue
  libreaderwriterqueue-dev # moodycamel::ReaderWriterQueue
  libatomic-queue-dev      # atomic_queue
  libtbb-dev               # oneTBB queues and pools
  libthread-pool-dev       # rvaser's thread_pool::ThreadPool
  libfmt-dev               # logger formatting
  libspdlog-dev            # spdlog adapter
  libasio-dev              # standalone Asio <asio.hpp> (@asio; unused so far: the ping-pong peer is Boost.Asio)
  libevent-dev             # libevent ping-pong peer
  liburing-dev
  libhttp-parser-dev       # the HTTP server's parser (Node's http-parser)
  nginx-light              # HTTP peer, run by servers/http from a generated config (never its service)
  wrk                      # HTTP load generator
  linux-perf               # servers/pingpong:msgcost: syscall tracepoints, task clock, samples
  python3-matplotlib       # report charts (run with /usr/bin/python3)
  python3-scipy            # compare.py's U-test
  python3-flake8           # tools/lint_python.sh: the Python's style
  python3-mypy             # tools/lint_python.sh: the Python's types
  clang-format             # tools/check_format.sh: the C++ format (.clang-format)
  clang-14                 # tools/fuzz.sh: the fuzz targets (--config=fuzz)
  libclang-rt-14-dev       # libFuzzer and clang's sanitizer runtimes
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install_deps: missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  run=(sudo -n)
else
  echo "install_deps: cannot install them: not root and no password-less sudo." >&2
  echo "install_deps: run as root: apt-get install -y ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if ! "${run[@]}" apt-get install -y -q "${missing[@]}"; then
  echo "install_deps: apt-get install failed; refreshing the package lists and retrying" >&2
  "${run[@]}" apt-get update -q
  "${run[@]}" apt-get install -y -q "${missing[@]}" || {
    echo "install_deps: apt-get could not install: ${missing[*]}" >&2
    exit 1
  }
fi
echo "install_deps: installed ${missing[*]}"
