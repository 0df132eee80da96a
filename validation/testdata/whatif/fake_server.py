# A stand-in for a user's server in whatif's tests: a line server on
# 127.0.0.1:PORT that answers each line with "ok\n" and "logs" it through a
# logger chosen by --logger (none, sync, or slow: twice sync's work). It
# takes components/'s flags (--logger, --log_file, --log_slowdown_ns) and
# the probe's environment (SERVERKIT_PROBE=site:ns, SERVERKIT_PROBE_OUT),
# spins the stated CPU per line, and at SIGTERM prints the library's stop
# line ("serverkit components: ... log lines N") and the probe's count.
#
#   python3 fake_server.py PORT [--logger=NAME] [--log_file=PATH]
#       [--log_slowdown_ns=N]

import os
import signal
import socket
import sys
import time

WORK_NS = {"none": 0, "sync": 20_000, "slow": 40_000}


def spin(ns: int) -> None:
    end = time.thread_time_ns() + ns
    while time.thread_time_ns() < end:
        pass


def main() -> int:
    port = int(sys.argv[1])
    flags = dict(a[2:].split("=", 1) for a in sys.argv[2:] if "=" in a)
    logger = flags.get("logger", "none")
    if logger not in WORK_NS:
        print("fake_server: unknown --logger %r; loggers: %s" % (
            logger, ", ".join(WORK_NS)), file=sys.stderr)
        return 2
    slowdown = int(flags.get("log_slowdown_ns", "0"))
    site, probe_ns = None, 0
    if os.environ.get("SERVERKIT_PROBE"):
        site, ns = os.environ["SERVERKIT_PROBE"].split(":")
        probe_ns = int(ns)
    counts = {"lines": 0, "passes": 0}
    log = open(flags["log_file"], "a") if "log_file" in flags else None

    def stop(_signum: int, _frame: object) -> None:
        print("serverkit components: tasks run 0, bytes in 0, log lines %d, "
              "pool tasks run 0" % counts["lines"], flush=True)
        if site is not None:
            with open(os.environ.get("SERVERKIT_PROBE_OUT", "/dev/stderr"),
                      "w") as f:
                f.write("probe %s passes %d ns %d\n" % (
                    site, counts["passes"], probe_ns))
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    srv = socket.create_server(("127.0.0.1", port))
    while True:
        conn, _ = srv.accept()
        with conn, conn.makefile("rb") as rf:
            for _line in rf:
                spin(10_000)  # the request's own work
                if site is not None:
                    counts["passes"] += 1
                    spin(probe_ns)
                if logger != "none":
                    spin(WORK_NS[logger] + slowdown)
                    counts["lines"] += 1
                    if log:
                        log.write("GET /x 200\n")
                        log.flush()
                conn.sendall(b"ok\n")


if __name__ == "__main__":
    sys.exit(main())
