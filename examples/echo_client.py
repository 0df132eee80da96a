# echo_client.py PORT CONNECTIONS REQUESTS: sends REQUESTS lines over each of
# CONNECTIONS connections to a line-echo server, one at a time, and checks
# that each comes back. Exit 0 when all did; 1 with the first difference.

import socket
import sys


def main() -> int:
    port, conns, reqs = (int(a) for a in sys.argv[1:4])
    socks = [socket.create_connection(("127.0.0.1", port), timeout=10)
             for _ in range(conns)]
    for i in range(reqs):
        for c, s in enumerate(socks):
            line = "request %d on %d\n" % (i, c)
            s.sendall(line.encode())
            got = b""
            while not got.endswith(b"\n"):
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
            if got.decode() != line:
                print("echo_client: sent %r, got %r" % (line, got))
                return 1
    for s in socks:
        s.close()
    print("echo_client: %d lines echoed" % (conns * reqs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
