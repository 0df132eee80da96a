#!/usr/bin/env bash
# -----------------------------------------------------------------------------
# tools/pack_lent.sh
# -----------------------------------------------------------------------------
#
# What validation/tails.py runs on a lent machine that reaches no package
# archive: the -c opt servers, client and generator, Debian's nginx, and the
# shared libraries they load (all but glibc's own, which the machine has),
# in DIR (default results/lent, ignored by git), then DIR.tgz for the device
# tool's carry (64 MiB at most; about 23 MiB on 2026-11-28).
#
#   tools/pack_lent.sh [DIR]
#   # on the lent machine, from the tree's root:
#   tar xzf results/lent.tgz -C results && python3 -m validation.tails \
#       --bin=results/lent --out=$OUT/runs.jsonl --budget=420
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-results/lent}
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x "$nginx" ]] || { echo "pack_lent: no nginx (tools/install_deps.sh)" >&2; exit 2; }

bazel build -c opt //servers/pingpong:server //servers/pingpong:asio_server \
  //servers/pingpong:client //servers/loadgen //servers/loadgen:stall_echo_server \
  //servers/http:server
b=bazel-out/k8-opt/bin
rm -rf "$dir"
mkdir -p "$dir/lib"
cp "$b/servers/pingpong/server" "$b/servers/pingpong/asio_server" \
  "$b/servers/pingpong/client" "$b/servers/loadgen/loadgen" \
  "$b/servers/loadgen/stall_echo_server" "$dir/"
cp "$b/servers/http/server" "$dir/http_server"
cp "$nginx" "$dir/nginx"
for f in "$dir"/*; do
  if [[ -f "$f" ]]; then ldd "$f" | awk '$3 ~ /^\// {print $3}'; fi
done | sort -u | grep -v -E '/(libc|libm|libpthread|libdl|librt)\.so' |
  xargs -r cp -L -t "$dir/lib/"
tar czf "$dir.tgz" -C "$(dirname "$dir")" "$(basename "$dir")"
echo "pack_lent: $dir.tgz ($(du -h "$dir.tgz" | cut -f1)); carry it, then" \
  "tar xzf it in $(dirname "$dir")"
