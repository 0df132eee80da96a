#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/report/document_test.py
# -----------------------------------------------------------------------------
#
# REPORT.md and the charts from a small fixed result set
# (report/document.py, charts/draw.py, through __main__.py), without validation
# or results; and the chart script and pick when matplotlib is missing.

import json
import os
import shutil
import subprocess
import tempfile
import unittest
from typing import Any, Optional, Sequence

from pick.testutil import BASIC, HERE, PICK, PY, SMOKE

from pick.report.tables import paired_table
from pick.report.servers import pingpong_section
from pick.report.servers import chat_section, http_section
from pick.records import EchoPoint, PingpongDoc, RunContext


class ReportTest(unittest.TestCase):
    def setUp(self) -> None:
        self.out = tempfile.mkdtemp()

    def tearDown(self) -> None:
        shutil.rmtree(self.out)

    def run_pick(self, directory: str, extra: Sequence[str] = (),
                 env: Optional[dict[str, str]] = None
                 ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*PICK, "--results", directory, "--out", self.out] + list(extra),
            capture_output=True, text=True, env=env,
            cwd=os.path.dirname(HERE))

    def test_report_builds_from_fixed_results(self) -> None:
        p = self.run_pick(BASIC)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("report: " + os.path.join(self.out, "REPORT.md"),
                      p.stdout)
        with open(os.path.join(self.out, "REPORT.md")) as f:
            md = f.read()
        lines = md.splitlines()
        self.assertTrue(lines[0].startswith("# "))
        # What to put in a server opens the report, the micro table (its
        # evidence) and the charts follow.
        answer = md.index("## What to put in your server")
        self.assertLess(answer, md.index("| Component | Server workload |"))
        rec = md.index("## Micro recommendation")
        self.assertLess(answer, rec)
        table = md.index("| family | workload class | leader |")
        charts = md.index("## Charts")
        self.assertLess(rec, table)
        self.assertLess(table, charts)
        self.assertLess(charts, md.index("## Details per family"))
        for png in ("queues_throughput.png", "latency.png", "pingpong.png",
                    "validation.png", "chat.png", "http.png"):
            self.assertIn("](%s)" % png, md)
            path = os.path.join(self.out, png)
            self.assertTrue(os.path.getsize(path) > 1000, png)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertIn("end to end, 4 cases: held 2, equivalent 0, not told "
                      "apart 0, refuted 1, too weak 1, error 0, nothing to "
                      "validate 1 (no implementation but the baseline); "
                      "metric: the "
                      "server's CPU per unit of work in 4", md)
        self.assertIn("| buffer | echo-16k | micro pick | linear -> ring | "
                      "1.17x | 0.95x [0.93, 0.97] p 0.016 | 0.60x [0.55, "
                      "0.64] p 0.0079 | 2000 ns per KiB consumed, 1950 ns | "
                      "6 (target) | 4.0% | server CPU per mib | refuted |",
                      md)
        self.assertIn("| task_queue | chat | micro pick | swap-vector -> "
                      "moodycamel | 1.50x | 1.01x [0.90, 1.10] p 0.69 | "
                      "0.98x [0.90, 1.05] p 0.42 | 2000 ns per task popped, "
                      "1950 ns | 12 (budget) | 12.0% | server CPU per mib | "
                      "instrument too weak |", md)
        self.assertIn("sized to 10% of the server CPU per operation", md)
        self.assertIn("## Ping-pong", md)
        self.assertIn("serverkit/asio", md)
        # The server workloads follow the ping-pong, with their commands.
        self.assertLess(md.index("## Ping-pong"), md.index("## Chat "))
        self.assertLess(md.index("## Chat "), md.index("## HTTP under wrk"))
        self.assertIn("bazel run -c opt //bench:chat -- --profile=default", md)
        self.assertIn("bazel run -c opt //bench:http -- --profile=default", md)
        self.assertIn("## Machine", md)
        self.assertIn("Oversubscribed points", md)
        self.assertIn("bazel run -c opt //bench:queues -- --profile=default",
                      md)
        # The floor per family, and the round trip as multiples of the floor
        # beside each repetition (bounded-mpmc: medians 130 ns over 566 ns;
        # the median of the per-repetition ratios 130 / 563 = 0.23).
        self.assertIn("Floor (`queues/floor/cache-line`", md)
        self.assertIn("| before the sweep | 561 | 902 | - |", md)
        self.assertIn("| interleaved row (median of 5) | 566 |", md)
        self.assertIn("Core pair 0,1; CPU Test CPU @ 2.00GHz, cores: 2; 5 "
                      "repetitions, interleaved: yes", md)
        self.assertIn("Workload sizes: eventloop tasks 200000; latency "
                      "round_trips 100000; throughput capacity 8192, items "
                      "4000000.", md)
        self.assertIn("Round trip as a multiple of the floor measured beside "
                      "each repetition (medians over the repetitions; the "
                      "run's floor: p50 566 ns):", md)
        self.assertIn("| implementation | group | p50 ns | floor ns | "
                      "p50 / floor | p99 / floor |", md)
        self.assertIn("| bounded-mpmc | latency | 130 | 566 | 0.23x | 0.46x |",
                      md)
        self.assertIn("| mutex | latency | 1500 | 564 | 2.66x | 5.33x |", md)
        self.assertIn("Ranked by `p50_x_floor` (x floor, lower is better", md)
        # The pools ran on "one core": no floor, said so.
        self.assertIn("Floor (`threadpool/floor/cache-line`): not measured",
                      md)
        # Rules from the file: the sleep class by overhead_pct.
        self.assertIn("Ranked by `overhead_pct` (%, lower is better", md)
        self.assertIn("and 5%", md)

    def test_validation_absent(self) -> None:
        d = os.path.join(self.out, "in")
        os.makedirs(d)
        shutil.copy(os.path.join(SMOKE, "buffer.json"), d)
        p = self.run_pick(d)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("validation not run", p.stdout)
        with open(os.path.join(self.out, "REPORT.md")) as f:
            md = f.read()
        self.assertIn("validation not run", md)
        self.assertIn("Not run: results/pingpong.json is missing", md)
        self.assertIn("Not run: results/chat.json is missing", md)
        self.assertIn("Not run: results/http.json is missing", md)

    def test_no_results_is_a_clear_error(self) -> None:
        d = os.path.join(self.out, "empty")
        os.makedirs(d)
        p = self.run_pick(d)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no family results", p.stderr)


class PingpongSectionTest(unittest.TestCase):
    def test_cpu_per_mib_beside_mib_per_s(self) -> None:
        def rec(server: str, rep: int, mib: float, cpu: float,
                ok: bool = True) -> EchoPoint:
            return EchoPoint(server=server, server_threads=1,
                             blocksize=4096, sessions=100, ok=ok,
                             mib_per_s=mib, repetition=rep,
                             server_cpu_ms_per_mib=cpu)
        pp = PingpongDoc(context=RunContext(profile="test"), echo=[
            rec("serverkit", 0, 300.0, 2.0), rec("serverkit", 1, 320.0, 3.0),
            rec("asio", 0, 250.0, 4.0),
            rec("asio", 1, 100.0, 9.0, ok=False)])  # unclean: left out
        lines = pingpong_section(pp)
        self.assertIn("CPU milliseconds per MiB", lines[2])
        table = [ln for block in lines for ln in block.split("\n")
                 if ln.startswith("| ")]
        self.assertEqual(table[0], "| sessions | serverkit | asio | "
                         "serverkit CPU ms/MiB | asio CPU ms/MiB | "
                         "serverkit/asio |")
        self.assertEqual(table[1], "| 100 | 310.0 | 250.0 ! | 2.50 | 4.00 | "
                         "1.24x |")
        self.assertFalse(any("Paired" in ln for ln in lines))

    def test_paired_summary_with_and_without_an_interval(self) -> None:
        every = dict(ratio=0.9712, low=0.9401, high=1.0049, p=0.061, n=48,
                     mde=0.04)
        few = dict(ratio=0.8, low=0.0, high=None, p=0.5, n=3, mde=None)
        pp = PingpongDoc(context=RunContext(profile="test"), echo=[],
                         paired=[dict(a="serverkit", b="asio",
                                      metric="server_cpu_ms_per_mib",
                                      better="lower", margin=0.05,
                                      every=every, server_bound=few),
                                 dict(a="serverkit", b="asio",
                                      metric="mib_per_s", better="higher",
                                      margin=0.05, every=None,
                                      server_bound=every)])
        lines = pingpong_section(pp)
        self.assertTrue(any("equivalent within ±m" in ln for ln in lines))
        rows = table_rows(lines)
        self.assertEqual(rows[0], "| A/B | metric | every clean point | "
                         "standing at ±5% | server-bound points | standing "
                         "at ±5% |")
        # Less CPU is ahead: 0.94-1.005x of asio's CPU is -0.5% to +6.4%.
        self.assertEqual(rows[1], "| serverkit/asio | CPU ms/MiB | "
                         "0.97x [0.94, 1.00], p 0.061, n 48 | serverkit and "
                         "asio not told apart (-0.5% to +6.4%) | "
                         "0.80x (n 3, no interval) | no interval |")
        self.assertEqual(rows[2], "| serverkit/asio | MiB/s | - | - | "
                         "0.97x [0.94, 1.00], p 0.061, n 48 | serverkit and "
                         "asio not told apart (-6.0% to +0.5%) |")

    def test_paired_standing_words_and_an_old_file(self) -> None:
        tight = dict(ratio=0.95, low=0.93, high=0.97, p=0.001, n=20)
        equal = dict(ratio=1.0, low=0.98, high=1.03, p=0.5, n=20)
        entries: list[dict[str, Any]] = [
            dict(a="serverkit", b="asio", metric="m", better="lower",
                 margin=0.05, every=tight, server_bound=equal),
            dict(a="serverkit", b="asio", metric="m", better="higher",
                 margin=0.05, every=tight, server_bound=None),
            dict(a="serverkit", b="asio", metric="m", every=tight,
                 server_bound=None)]
        rows = table_rows([paired_table(entries, [("m", "m")]) or ""])
        self.assertEqual(rows[1].rstrip(" |").split(" | ")[3:6], [
            "serverkit ahead of asio by 3.1-7.5%", "1.00x [0.98, 1.03], p "
            "0.5, n 20", "serverkit and asio equivalent within ±5% "
            "(-2.9% to +2.0%)"])
        self.assertEqual(rows[2].split(" | ")[3], "asio ahead of serverkit "
                         "by 3.1-7.5%")
        # Written before the standings: no words.
        self.assertEqual(rows[3].split(" | ")[3], "-")
        wide = dict(entries[0], margin=0.02)
        self.assertIn("serverkit ahead of asio by more than 2% (by "
                      "3.1-7.5%)", paired_table([wide], [("m", "m")]) or "")


def table_rows(lines: list[str]) -> list[str]:
    return [ln for block in lines for ln in block.split("\n")
            if ln.startswith("| ")]


class ServerSectionsTest(unittest.TestCase):
    """testdata/servers/: chat.json and http.json as servers/chat and
    servers/http write them."""

    def load(self, name: str) -> Any:
        """The file as read (a ChatDoc or an HttpDoc)."""
        with open(os.path.join(HERE, "testdata", "servers", name)) as f:
            return json.load(f)

    def test_chat_paired_summary(self) -> None:
        chat = self.load("chat.json")
        self.assertFalse(any("Paired" in ln for ln in chat_section(chat)))
        stats = dict(ratio=0.8214, low=0.7411, high=0.9201, p=0.00049,
                     n=12)
        chat["paired"] = [dict(a="serverkit-uring", b="asio",
                               metric="server_cpu_us_per_delivery",
                               better="lower", margin=0.05,
                               every=stats, server_bound=None)]
        rows = table_rows(chat_section(chat))
        self.assertEqual(rows[-2], "| A/B | metric | every clean point | "
                         "standing at ±5% | server-bound points | standing "
                         "at ±5% |")
        self.assertEqual(rows[-1], "| serverkit-uring/asio | CPU "
                         "us/delivery | 0.82x [0.74, 0.92], p 0.00049, n 12 "
                         "| serverkit-uring ahead of asio by more than 5% (by "
                         "8.7-34.9%) | - | - |")

    def test_http_paired_summary(self) -> None:
        http = self.load("http.json")
        self.assertFalse(any("Paired" in ln for ln in http_section(http)))
        http["paired"] = [dict(a="serverkit", b="nginx", metric="p99_ms",
                               better="lower", margin=0.05,
                               every=dict(ratio=0.9, low=None, high=None,
                                          p=0.25, n=3),
                               server_bound=None)]
        lines = http_section(http)
        self.assertTrue(any(ln.startswith("Paired over every (connections")
                            for ln in lines))
        self.assertEqual(table_rows(lines)[-1], "| serverkit/nginx | p99 "
                         "latency | 0.90x (n 3, no interval) | no interval "
                         "| - | - |")

    def test_http_pool_route_says_nginx_is_not_comparable(self) -> None:
        http = self.load("http.json")
        pt = dict(ok=True, requests_per_s=100.0, server_cpu_us_per_request=9,
                  latency_ms=dict(p50=1.0, p99=2.0))
        http["pool_route"] = dict(heading="GET /work", points=[
            dict(pt, server="serverkit-pool-mutex"),
            dict(pt, server="serverkit-pool-asio", requests_per_s=110.0)])
        lines = http_section(http)
        self.assertIn("nginx: not comparable", "\n".join(lines))
        self.assertIn("| serverkit-pool-asio | 110 | 2.000 | 9.0 | 1.10x |",
                      table_rows(lines))

    def test_nginx_settings_when_the_file_has_them(self) -> None:
        http = self.load("http.json")
        self.assertNotIn("worker(s)", "\n".join(http_section(http)))
        http["context"]["nginx_settings"] = dict(
            workers=2, reuseport=True, worker_cpu_affinity="01 10")
        self.assertIn("(2 worker(s), reuseport, worker_cpu_affinity 01 10)",
                      "\n".join(http_section(http)))

    def test_chat_medians_ratio_and_marks(self) -> None:
        lines = chat_section(self.load("chat.json"))
        rows = table_rows(lines)
        self.assertEqual(rows[0], "| K clients | serverkit round ms | "
                         "asio round ms | serverkit delivery p99 us | "
                         "asio delivery p99 us | serverkit CPU us/delivery | "
                         "asio CPU us/delivery | serverkit/asio round |")
        # Medians of the two repetitions: 4.2 / 5.2 ms.
        self.assertEqual(rows[1], "| 1000 | 4.20 | 5.20 | 4000 | 5000 | "
                         "2.10 | 2.60 | 0.81x |")
        # Client-bound ours; Asio's only repetition failed: no ratio.
        self.assertEqual(rows[2], "| 5000 | 21.00 c | - ! | 20500 | - | "
                         "2.10 | - | - |")
        self.assertIn("Note: K 20000 skipped: the descriptor limit 16384 is "
                      "below what it needs", lines)
        self.assertIn("Not run: results/chat.json is missing",
                      chat_section(None)[2])

    def test_chat_with_uring(self) -> None:
        doc = self.load("chat.json")
        uring = [dict(p, server="serverkit-uring",
                      round_ms=dict(p["round_ms"], p50=2.6))
                 for p in doc["points"] if p["server"] == "serverkit"]
        doc["points"] += uring
        rows = table_rows(chat_section(doc))
        self.assertTrue(rows[0].startswith(
            "| K clients | serverkit round ms | serverkit-uring round ms | "
            "asio round ms |"), rows[0])
        self.assertTrue(rows[0].endswith(
            "| serverkit/asio round | serverkit-uring/asio round |"),
            rows[0])
        # Asio's medians: 5.2 ms at K = 1000; ours over io_uring 2.6 ms.
        self.assertTrue(rows[1].startswith("| 1000 | 4.20 | 2.60 | 5.20 |"),
                        rows[1])
        self.assertTrue(rows[1].endswith("| 0.81x | 0.50x |"), rows[1])

    def test_http_ratio_to_nginx_with_the_same_log_setting(self) -> None:
        rows = table_rows(http_section(self.load("http.json")))
        self.assertEqual(rows[0], "| server | access log | requests/s | "
                         "p50 ms | p99 ms | CPU us/request | ratio to nginx |")
        self.assertIn("| serverkit | off | 100000 c | 0.450 | 1.200 | 9.8 | "
                      "1.25x (vs nginx) |", rows)
        self.assertIn("| nginx | off | 80000 | 0.600 | 1.500 | 12.4 | - |",
                      rows)
        self.assertIn("| serverkit-log | on | 70000 | 0.700 | 1.900 | 14.0 | "
                      "1.25x (vs nginx-log) |", rows)
        # An unclean point shows no figure and no ratio.
        self.assertIn("| beast | off | - ! | - | - | - | - |", rows)
        self.assertIn("Not run: results/http.json is missing",
                      http_section(None)[2])


class NoMatplotlibTest(unittest.TestCase):
    """The chart script fails clearly when the plotting library is missing."""

    def setUp(self) -> None:
        self.tmp = tempfile.mkdtemp()
        fake = os.path.join(self.tmp, "fake", "matplotlib")
        os.makedirs(fake)
        with open(os.path.join(fake, "__init__.py"), "w") as f:
            f.write("raise ImportError('No module named matplotlib (test)')\n")
        self.env = dict(os.environ,
                        PYTHONPATH=os.path.join(self.tmp, "fake"))

    def tearDown(self) -> None:
        shutil.rmtree(self.tmp)

    def test_chart_script(self) -> None:
        # Run as the package's module, from the package's parent.
        p = subprocess.run([PY, "-m", "pick.charts", "--results", BASIC,
                            "--out", self.tmp], capture_output=True,
                           text=True, env=self.env,
                           cwd=os.path.dirname(HERE))
        self.assertEqual(p.returncode, 3)
        self.assertIn("matplotlib is not importable", p.stderr)
        self.assertIn("python3-matplotlib", p.stderr)
        self.assertFalse([f for f in os.listdir(self.tmp)
                          if f.endswith(".png")])

    def test_pick_writes_the_rest_and_says_why(self) -> None:
        # Run as the package, from the package's parent.
        p = subprocess.run([*PICK, "--results", BASIC, "--out", self.tmp],
                           capture_output=True, text=True, env=self.env,
                           cwd=os.path.dirname(HERE))
        self.assertEqual(p.returncode, 3)
        self.assertIn("charts not drawn", p.stderr)
        self.assertIn("python3-matplotlib", p.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "winners.json")))
        with open(os.path.join(self.tmp, "REPORT.md")) as f:
            md = f.read()
        self.assertIn("Charts not drawn", md)


if __name__ == "__main__":
    unittest.main()
