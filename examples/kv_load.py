# kv_load.py PORT [--rate=R] [--seconds=S] [--connections=C] [--sums=F]:
# kv_server's load at a set rate, for `bazel run //bench:whatif --load=...`.
# Sends R requests a second in all, spread over C connections on one
# schedule (a request goes out at its time whatever the replies do), for S
# seconds: GETs and SETs of 1000 keys, and a fraction F of SUMs (the pool's
# request). Waits up to 2 s for the last replies, then prints
# "completed N" (whatif reads the last number). Exit 1 when a reply is an
# error or missing, or when it fell behind its schedule by over a second.

import argparse
import random
import selectors
import socket
import sys
import time


def request(rng: random.Random, sums: float) -> bytes:
    key = "k%d" % rng.randrange(1000)
    r = rng.random()
    if r < sums:
        return b"SUM 100\n"
    if r < sums + (1 - sums) / 2:
        return ("SET %s v%d\n" % (key, rng.randrange(10**6))).encode()
    return ("GET %s\n" % key).encode()


def main() -> int:
    ap = argparse.ArgumentParser(prog="kv_load")
    ap.add_argument("port", type=int)
    ap.add_argument("--rate", type=float, default=2000.0)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--sums", type=float, default=0.1)
    args = ap.parse_args()
    if not (args.rate > 0 and args.seconds > 0 and args.connections > 0
            and 0 <= args.sums <= 1):
        ap.error("rate, seconds and connections must be positive, sums "
                 "in [0, 1]")
    rng = random.Random(1)
    sel = selectors.DefaultSelector()
    conns = []
    for _ in range(args.connections):
        s = socket.create_connection(("127.0.0.1", args.port), timeout=10)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        conns.append(s)
    pending = {s.fileno(): b"" for s in conns}
    sent = completed = errors = 0
    total = int(args.rate * args.seconds)
    start = time.monotonic()
    lag = 0.0
    deadline = start + args.seconds + 2.0
    while completed < total and time.monotonic() < deadline:
        now = time.monotonic()
        due = min(total, int((now - start) * args.rate) + 1)
        while sent < due:
            lag = max(lag, now - (start + sent / args.rate))
            conns[sent % len(conns)].sendall(request(rng, args.sums))
            sent += 1
        wait = max(0.0, start + sent / args.rate - time.monotonic())
        for key, _ in sel.select(timeout=min(wait, 0.05) if sent < total
                                 else 0.05):
            s = key.fileobj
            assert isinstance(s, socket.socket)
            data = s.recv(65536)
            if not data:
                print("kv_load: the server closed a connection")
                return 1
            buf = pending[s.fileno()] + data
            lines = buf.split(b"\n")
            pending[s.fileno()] = lines.pop()
            completed += len(lines)
            errors += sum(1 for x in lines if x.startswith(b"ERROR"))
    for s in conns:
        s.close()
    if errors or completed < total or lag > 1.0:
        print("kv_load: %d of %d replies, %d errors, %.2f s behind its "
              "schedule" % (completed, total, errors, lag))
        return 1
    print("completed %d" % completed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
