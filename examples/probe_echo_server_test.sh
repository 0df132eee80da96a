#!/usr/bin/env bash
# probe_echo_server with its probes off, then on: 3 connections of 40 lines
# each are echoed; at exit the stop line counts 120 requests, and each probe
# turned on prints a pass count equal to the requests through its site
# (every request passes the queue pop and the log call once). Off, no probe
# line is printed.
set -euo pipefail
server=$1
client="$(dirname "$0")/echo_client.py"
dir=${TEST_TMPDIR:-$(mktemp -d)}
live=
trap '[[ -n $live ]] && kill -9 $live 2>/dev/null || true' EXIT

run() {  # run NAME: one server's life with the environment given
  local name=$1 port
  port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$server" --port="$port" --log_file="$dir/$name.log" >"$dir/$name.out" 2>&1 &
  live=$!
  for _ in $(seq 100); do
    grep -q listening "$dir/$name.out" && break
    sleep 0.05
  done
  /usr/bin/python3 "$client" "$port" 3 40
  kill -TERM "$live"
  wait "$live" || { echo "$name: exit $?" >&2; cat "$dir/$name.out" >&2; exit 1; }
  live=
  grep -q "probe_echo_server: stopped; connections 3, requests 120" "$dir/$name.out" ||
    { echo "$name: no right stop line" >&2; cat "$dir/$name.out" >&2; exit 1; }
  [[ $(wc -l <"$dir/$name.log") -eq 120 ]]
}

run off
if grep -q "^probe " "$dir/off.out"; then
  echo "off: a probe line with no probe on" >&2
  exit 1
fi

# One site on, its counts to stderr (the default).
SERVERKIT_PROBE=queue_pop:2000 run pop
grep -qx "probe queue_pop passes 120 ns 2000" "$dir/pop.out" ||
  { echo "pop: want 120 passes" >&2; cat "$dir/pop.out" >&2; exit 1; }

# Both on, the counts to a file.
SERVERKIT_PROBE=queue_pop:500,log:1000 SERVERKIT_PROBE_OUT="$dir/both.probe" run both
grep -qx "probe queue_pop passes 120 ns 500" "$dir/both.probe"
grep -qx "probe log passes 120 ns 1000" "$dir/both.probe"
echo "probe_echo_server_test: passed"
