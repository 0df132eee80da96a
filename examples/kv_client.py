# kv_client.py PORT: sends every kind of request to kv_server and checks each
# reply (a SUM reply may come after later ones: replies are matched by set).
# Exit 0 when every reply is right; 1 with the difference otherwise.

import socket
import sys


def main() -> int:
    port = int(sys.argv[1])
    requests = ["SET a 1", "SET b two words", "GET a", "GET b", "GET c",
                "SUM 10", "SUM 100000", "PING", "SET broken"]
    want = {"OK", "1", "two words", "NOT_FOUND", "SUM 10 = 55",
            "SUM 100000 = 5000050000", "ERROR unknown request",
            "ERROR SET key value"}
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall("".join(r + "\n" for r in requests).encode())
        got = b""
        while got.count(b"\n") < len(requests):
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    lines = got.decode().splitlines()
    if len(lines) != len(requests) or set(lines) != want:
        print("kv_client: got %r, want the set %r" % (lines, sorted(want)))
        return 1
    print("kv_client: %d replies right" % len(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
