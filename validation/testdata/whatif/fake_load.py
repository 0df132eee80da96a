# whatif's --load in its tests: N lines to 127.0.0.1:PORT, one at a time,
# each answered before the next; prints N (the units of work completed).
#
#   python3 fake_load.py PORT N

import socket
import sys


def main() -> int:
    port, n = int(sys.argv[1]), int(sys.argv[2])
    with socket.create_connection(("127.0.0.1", port)) as s, \
            s.makefile("rb") as rf:
        for _ in range(n):
            s.sendall(b"GET\n")
            if rf.readline() != b"ok\n":
                return 1
    print("completed %d" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
