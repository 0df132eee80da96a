#!/usr/bin/env bash
# kv_server on a free port: kv_client's requests all answered right, the
# access log holds one line per request, and SIGTERM stops it with status 0.
set -euo pipefail
server=$1
dir=${TEST_TMPDIR:-$(mktemp -d)}
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$server" "$port" 2 "$dir/access.log" >"$dir/server.out" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
  grep -q listening "$dir/server.out" && break
  sleep 0.05
done
/usr/bin/python3 "$(dirname "$0")/kv_client.py" "$port"
kill -TERM "$pid"
wait "$pid"
lines=$(wc -l <"$dir/access.log")
[[ $lines -eq 9 ]] || { echo "access log: $lines lines, want 9" >&2; exit 1; }
grep -q "SUM 100000" "$dir/access.log"
echo "kv_server_test: passed"
