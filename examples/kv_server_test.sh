#!/usr/bin/env bash
# kv_server on a free port, once with its default components and once with
# every family named (by flag, and one by SERVERKIT_<FLAG>): kv_client's
# requests all answered right, the access log holds one line per request,
# SIGTERM stops it with status 0, and the stop line counts the 9 requests
# and the 2 SUMs run on the named pool. A bad name exits 2 with the list.
set -euo pipefail
server=$1
client="$(dirname "$0")/kv_client.py"
dir=${TEST_TMPDIR:-$(mktemp -d)}
live=
trap '[[ -n $live ]] && kill -9 $live 2>/dev/null || true' EXIT
free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

run() {  # run NAME [flags...]: one server's life, checked
  local name=$1
  shift
  local port out log
  port=$(free_port)
  out="$dir/$name.out"
  log="$dir/$name.log"
  "$server" --port="$port" --log_file="$log" "$@" >"$out" 2>&1 &
  live=$!
  for _ in $(seq 100); do
    grep -q listening "$out" && break
    sleep 0.05
  done
  /usr/bin/python3 "$client" "$port"
  kill -TERM "$live"
  wait "$live" || { echo "$name: exit $?" >&2; cat "$out" >&2; exit 1; }
  live=
  local lines
  lines=$(wc -l <"$log")
  [[ $lines -eq 9 ]] || { echo "$name: access log $lines lines, want 9" >&2; exit 1; }
  grep -q "SUM 100000" "$log"
  grep -q "kv_server: stopped; requests 9 (set 2, get 3, sum 2, errors 2), pool .*: tasks run 2," "$out" ||
    { echo "$name: no right stop line" >&2; cat "$out" >&2; exit 1; }
  grep -q "serverkit components: tasks run [1-9][0-9]*, bytes in [1-9][0-9]*, log lines 9, pool tasks run 2$" "$out" ||
    { echo "$name: no right components line" >&2; cat "$out" >&2; exit 1; }
  cat "$out"
}

run default
grep -q "task queue bounded-mpmc, buffer linear, logger sync, pool mutex" "$dir/default.out"

SERVERKIT_BUFFER=ring run named --task_queue=moodycamel \
  --logger=async-queue-bounded-mpmc --pool=work-stealing --pool_threads=1 \
  --work_ns=1000 --task_queue_slowdown_ns=100 --log_slowdown_ns=100 \
  --pool_slowdown_ns=100 --buffer_slowdown_ns_per_kib=100
grep -q "task queue moodycamel+slowed-100ns, buffer ring, logger async-queue-bounded-mpmc, pool work-stealing" \
  "$dir/named.out"

set +e
"$server" --port=0 --pool=nope >"$dir/bad.out" 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] || { echo "--pool=nope: exit $rc, want 2" >&2; exit 1; }
grep -q "unknown --pool 'nope'; pools: none, mutex, " "$dir/bad.out"
echo "kv_server_test: passed"
