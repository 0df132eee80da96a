#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/driver/host_test.py
# -----------------------------------------------------------------------------
#
# What the host did to a run (host.py), from two readings of /proc/stat and
# /proc/net/netstat kept in testdata/host (the second made by hand from the
# first: cpu0's steal +1 tick, cpu1's +4, TCPTimeouts +3), and the words a
# void or failed latency run gains from them (latency_point.note_host).

import os
import tempfile
import unittest

from servers.driver import host, latency_point

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata",
                    "host")


def reading(which: str) -> host.Counters:
    return host.read(os.path.join(DATA, "stat_" + which),
                     os.path.join(DATA, "netstat_" + which))


class ReadTest(unittest.TestCase):
    def test_steal_per_cpu_in_ms_and_the_timeouts(self) -> None:
        before = reading("before")
        self.assertEqual(before.steal_ms, {0: 641160, 1: 720060})
        self.assertEqual(before.tcp_timeouts, 10297)

    def test_unreadable_files_read_as_nothing(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            gone = os.path.join(d, "gone")
            c = host.read(gone, gone)
        self.assertEqual((c.steal_ms, c.tcp_timeouts), ({}, None))
        seen = host.during(c, c, None)
        self.assertEqual((seen.steal_ms, seen.tcp_timeouts), (None, None))
        self.assertEqual(seen.words(), "")

    def test_short_or_odd_lines_are_left_out(self) -> None:
        self.assertEqual(host.steal_ms(
            "cpu  1 2 3 4 5 6 7 8 0 0\ncpu0 1 2 3\ncpu1 1 2 3 4 5 6 7 x\n"
            "cpux 1 2 3 4 5 6 7 8\ncpu2 0 0 0 0 0 0 0 3 0 0\n"), {2: 30})
        self.assertIsNone(host.tcp_timeouts("TcpExt: A TCPTimeouts\n"
                                            "TcpExt: 1\n"))


class DuringTest(unittest.TestCase):
    def test_the_most_steal_on_the_watched_cpus(self) -> None:
        before, after = reading("before"), reading("after")
        every = host.during(before, after, None)
        self.assertEqual((every.steal_ms, every.steal_cpu,
                          every.tcp_timeouts), (40, 1, 3))
        self.assertEqual(every.words(), "host steal 40 ms on cpu 1; 3 TCP "
                         "retransmission timeouts")
        cpu0 = host.during(before, after, {0})
        self.assertEqual((cpu0.steal_ms, cpu0.steal_cpu), (10, 0))
        self.assertEqual(host.during(before, before, {0, 1}).words(), "")
        one = host.During(0, 0, 1)
        self.assertEqual(one.words(), "1 TCP retransmission timeout")


class NoteHostTest(unittest.TestCase):
    def point(self, **kw: object) -> latency_point.LatencyPoint:
        pt = latency_point.LatencyPoint("evhttp", 0.9, 58000.0, 4)
        for k, v in kw.items():
            setattr(pt, k, v)
        return pt

    def test_void_and_failed_runs_say_what_the_host_did(self) -> None:
        seen = host.during(reading("before"), reading("after"), None)
        void = self.point(void=True, void_reason="send lag p99 5 ms")
        latency_point.note_host(void, seen)
        self.assertEqual(void.void_reason, "send lag p99 5 ms (during the "
                         "run: host steal 40 ms on cpu 1; 3 TCP "
                         "retransmission timeouts)")
        failed = self.point(error="29340 requests unanswered at the end")
        latency_point.note_host(failed, seen)
        self.assertTrue(failed.error.endswith("(during the run: host steal "
                                              "40 ms on cpu 1; 3 TCP "
                                              "retransmission timeouts)"))
        self.assertEqual((failed.steal_ms, failed.steal_cpu,
                          failed.tcp_timeouts), (40, 1, 3))

    def test_a_clean_run_keeps_its_words_and_records_the_figures(
            self) -> None:
        seen = host.during(reading("before"), reading("after"), {0})
        clean = self.point(ok=True)
        latency_point.note_host(clean, seen)
        self.assertEqual((clean.error, clean.void_reason), ("", ""))
        self.assertEqual(clean.to_json()["steal_ms"], 10)
        quiet = self.point(void=True, void_reason="lag")
        latency_point.note_host(quiet, host.During(0, 0, 0))
        self.assertEqual(quiet.void_reason, "lag")


if __name__ == "__main__":
    unittest.main()
