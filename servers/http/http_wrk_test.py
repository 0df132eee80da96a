#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/http/http_wrk_test.py
# -----------------------------------------------------------------------------
#
# wrk's parser on real wrk 4.1 outputs (testdata/wrk_*.txt: a clean
# run, a run on a 404 path, a run whose server was killed mid-way) and on
# broken ones; its command line; nginx's generated config.

from __future__ import annotations

import os
import unittest

from servers.http import nginx as http_nginx
from servers.http import wrk as http_wrk

HERE = os.path.dirname(os.path.abspath(__file__))


def fixture(name: str) -> str:
    with open(os.path.join(HERE, "testdata", name)) as f:
        return f.read()


class ParseTest(unittest.TestCase):
    def test_clean_run(self) -> None:
        r = http_wrk.parse(fixture("wrk_c50.txt"))
        self.assertEqual(r.requests, 167069)
        self.assertAlmostEqual(r.duration_s, 1.0)
        self.assertAlmostEqual(r.requests_per_s, 167021.73)
        self.assertAlmostEqual(r.p50_ms, 0.225)
        self.assertAlmostEqual(r.p99_ms, 1.21)
        self.assertEqual(r.non_2xx, 0)
        self.assertEqual(r.socket_errors, 0)
        self.assertEqual(r.socket_error_detail, "")

    def test_non_2xx(self) -> None:
        r = http_wrk.parse(fixture("wrk_non2xx.txt"))
        self.assertEqual(r.requests, 162771)
        self.assertEqual(r.non_2xx, 162771)
        self.assertAlmostEqual(r.p50_ms, 0.286)
        self.assertAlmostEqual(r.p99_ms, 0.88)

    def test_socket_errors(self) -> None:
        r = http_wrk.parse(fixture("wrk_socket_errors.txt"))
        self.assertEqual(r.socket_errors, 200 + 155875)
        self.assertEqual(r.socket_error_detail,
                         "connect 0, read 200, write 155875, timeout 0")
        self.assertAlmostEqual(r.duration_s, 2.01)
        self.assertAlmostEqual(r.requests_per_s, 67504.55)

    def test_units(self) -> None:
        text = fixture("wrk_c50.txt").replace(
            "50%  225.00us", "50%    1.50s").replace(
            "99%    1.21ms", "99%    2.00m").replace("in 1.00s", "in 1.00m")
        r = http_wrk.parse(text)
        self.assertAlmostEqual(r.p50_ms, 1500.0)
        self.assertAlmostEqual(r.p99_ms, 120000.0)
        self.assertAlmostEqual(r.duration_s, 60.0)

    def test_missing_lines_raise(self) -> None:
        with self.assertRaises(http_wrk.WrkParseError) as cm:
            http_wrk.parse("unable to connect to 127.0.0.1:1 Connection "
                           "refused\n")
        self.assertIn("Requests/sec", str(cm.exception))
        no_latency = "\n".join(
            line for line in fixture("wrk_c50.txt").splitlines()
            if "%" not in line or "Stdev" in line)
        with self.assertRaises(http_wrk.WrkParseError):
            http_wrk.parse(no_latency)

    def test_argv(self) -> None:
        self.assertEqual(
            http_wrk.argv("/usr/bin/wrk", 1, 200, 4.0, "http://h/collect"),
            ["/usr/bin/wrk", "-t1", "-c200", "-d4s", "--latency",
             "http://h/collect"])
        self.assertIn("-d1s", http_wrk.argv("wrk", 1, 1, 0.2, "u"))


class NginxTest(unittest.TestCase):
    def test_config(self) -> None:
        cfg = http_nginx.NginxConfig(prefix="/tmp/p", port=8080, workers=2,
                                     body='{"ok":true}', access_log=False)
        text = http_nginx.render(cfg)
        self.assertIn("worker_processes 2;", text)
        # Two workers: each its own listening socket, as nginx is deployed.
        self.assertIn("listen 127.0.0.1:8080 reuseport;", text)
        self.assertNotIn("worker_cpu_affinity", text)  # not pinned
        self.assertIn("location = /collect {", text)
        self.assertIn("return 200 '{\"ok\":true}';", text)
        self.assertIn("access_log off;", text)
        self.assertIn("pid /tmp/p/nginx.pid;", text)
        self.assertIn("error_log /tmp/p/error.log", text)
        self.assertIn("client_body_temp_path /tmp/p/tmp-client_body;", text)
        self.assertNotIn("/etc/nginx", text)
        self.assertNotIn("/var/", text)
        on = http_nginx.render(http_nginx.NginxConfig(
            "/tmp/p", 8080, 1, "{}", True))
        self.assertIn("access_log /tmp/p/access.log combined;", on)
        with self.assertRaises(ValueError):
            http_nginx.render(http_nginx.NginxConfig("/p", 1, 1, "'", True))

    def test_one_worker_has_one_socket(self) -> None:
        text = http_nginx.render(http_nginx.NginxConfig(
            "/tmp/p", 8080, 1, "{}", False, cpus=(1,)))
        self.assertIn("listen 127.0.0.1:8080;", text)
        self.assertNotIn("reuseport", text)
        self.assertNotIn("worker_cpu_affinity", text)  # taskset pins it
        self.assertEqual(http_nginx.settings(1, (1,)),
                         dict(workers=1, reuseport=False,
                              worker_cpu_affinity="",
                              keepalive_requests=1000000))

    def test_pinned_workers_get_one_core_each(self) -> None:
        text = http_nginx.render(http_nginx.NginxConfig(
            "/tmp/p", 8080, 3, "{}", False, cpus=(3, 2)))
        # Worker i on the i-th core (rightmost bit is CPU 0), round-robin.
        self.assertIn("worker_cpu_affinity 0100 1000 0100;", text)
        self.assertIn("listen 127.0.0.1:8080 reuseport;", text)
        st = http_nginx.settings(3, [2, 3])
        self.assertTrue(st["reuseport"])
        self.assertEqual(http_nginx.describe(st),
                         "3 workers, listen reuseport, "
                         "worker_cpu_affinity 0100 1000 0100")
        self.assertEqual(http_nginx.describe(http_nginx.settings(1)),
                         "1 worker, one listening socket")

    def test_argv(self) -> None:
        cfg = http_nginx.NginxConfig("/tmp/p", 1, 1, "{}", False)
        self.assertEqual(
            http_nginx.argv("/usr/sbin/nginx", cfg, "/tmp/p/nginx.conf"),
            ["/usr/sbin/nginx", "-p", "/tmp/p", "-e", "/tmp/p/error.log",
             "-c", "/tmp/p/nginx.conf", "-g", "daemon off;"])


if __name__ == "__main__":
    unittest.main()
