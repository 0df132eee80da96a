# -----------------------------------------------------------------------------
# pick/cli.py
# -----------------------------------------------------------------------------
#
# pick's command line (__main__.py runs main()): `bazel run //bench:pick`,
# with the reporters of its two plain outputs, winners.json (WinnersFile)
# and the console summary (ConsoleSummary).
#
#   bazel run //bench:pick -- [--results=DIR] [--out=DIR]
#       [--producers=N] [--consumers=N] [--payload=BYTES] [--latency-bound]
#       [--alpha=0.05] [--margin=0.05] [--drift-threshold=0.2]
#       [--no-charts]
#   bazel run //bench:pick -- --confirm-filter FAMILY
#   bazel run //bench:pick -- --compare DIR_A DIR_B
#   bazel run //bench:pick -- --repro RUN1.json RUN2.json
#   bazel run //bench:pick -- --merge OUT.json PART1.json ... PARTN.json
#
# Reads results/<family>.json (Google Benchmark's JSON from //bench:queues,
# :threadpool, :logger, :buffer; read/sweeps.py) and results/pingpong.json, and
# for each family and workload class (decide/workloads.py) names the winner,
# its margin
# over the runner-up and over the family's baseline, and what the interval
# shows against the margin (decide/ranking.py, decide/paired_rounds.py,
# margin.py); the margins
# come from results/confirm/<family>.json when bench.sh's confirmation
# wrote it (decide/paired_rounds.py; --confirm-filter prints its sweep
# flags). All of
# that is one Analysis (analysis.py), built once from the arguments; one
# reporter per output reads it (analysis.py, Google Benchmark's
# BenchmarkReporter), in this order: results/winners.json (the reactor
# policy the ping-pong validation runs: the "reactor" object;
# WinnersFile, below), the charts (results/*.png, drawn with matplotlib:
# charts/draw.py), results/REPORT.md (report/document.py) and the console
# summary (ConsoleSummary, below).
#
# --alpha; --margin (alias --min-margin): the margin m of every answer.
# --drift-threshold: replaces every file's drift threshold (stats.drift()),
# passed down explicitly to pick_all() and repro(), never through a global.
# Workload flags (--producers, --consumers, --payload, --latency-bound):
# spec.Workload. --compare A B and --repro RUN1 RUN2: report/two_runs.py.
# --merge OUT PART...: read/sweeps.py's merge_parts(), joins the files of
# one sweep run as N processes (--part=K/N) into OUT.
#
# Exit status: 0; 2 on bad arguments, no results at all, or ranking rules
# that contradict a class; 3 when the charts could not be drawn (winners.json
# and REPORT.md are still written). --repro: 0 when the runs agree, 1 on a
# contradiction, 2 on bad or missing files (or files of two families, or
# without the vocabulary). --merge: 2 when the files are not the N parts of
# one sweep, or OUT cannot be written.

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Optional

from pick.read import sweeps
from pick.analysis import Analysis, Reporter, Settings, Written, analyse
from pick.charts.draw import ChartFiles
from pick.decide.paired_rounds import confirm_flags
from pick.read.sweeps import MergeError, merge_parts
from pick.report.document import ReportFile
from pick.analysis import run
from pick.report.two_runs import compare_dirs, repro
from pick.decide.workloads import Workload
from pick.decide.stats import MIN_MARGIN, fmt_ratio
from pick.decide.winners import winners_json
from pick.report.tables import recommendation_rows, text_table
from pick import records


def merge(out_path: str, parts: list[str]) -> int:
    """--merge: writes the joined document to out_path (through a temporary
    file); 0, or 2 with the reason on stderr."""
    try:
        doc = merge_parts(parts)
    except MergeError as e:
        print("pick --merge: %s" % e, file=sys.stderr)
        return 2
    tmp = out_path + ".tmp"
    try:
        with open(tmp, "w") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        os.replace(tmp, out_path)
    except OSError as e:
        print("pick --merge: cannot write %s: %s" % (out_path, e),
              file=sys.stderr)
        return 2
    sk = doc["context"]["serverkit"]
    print("merged %d process(es) of %s, %s repetitions, into %s" % (
        sk["processes"], sk.get("family"), sk.get("repetitions"), out_path))
    return 0


def default_results_dir() -> str:
    base = os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd()
    return os.path.join(base, "results")


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="pick", description="Names the winner of each family and "
        "workload class from the sweeps' results; writes winners.json, "
        "REPORT.md and charts.")
    ap.add_argument("--results", default="",
                    help="directory of <family>.json (default: the "
                    "workspace's results/)")
    ap.add_argument("--out", default="",
                    help="where winners.json, REPORT.md and the charts go "
                    "(default: the results directory; with workload flags, "
                    "RESULTS/workload/<flags>/, beside the full report)")
    ap.add_argument("--replace", action="store_true",
                    help="overwrite a REPORT.md written for another "
                    "workload (make bench passes it)")
    ap.add_argument("--producers", type=int, help="producer threads "
                    "(queue producers, pool submitters, logger callers)")
    ap.add_argument("--consumers", type=int, help="consumer threads (queues)")
    ap.add_argument("--payload", type=int, help="message size in bytes "
                    "(logger lines, buffer blocks and frames)")
    ap.add_argument("--latency-bound", "--latency_bound", dest="latency_bound",
                    action="store_true",
                    help="rank by latency where a family measures it")
    ap.add_argument("--alpha", type=float, default=0.05,
                    help="significance level of the U-test (default 0.05)")
    ap.add_argument("--margin", "--min-margin", "--min_margin",
                    dest="min_margin",
                    type=float, default=MIN_MARGIN,
                    help="the margin m of every answer (ahead by more "
                    "than m, equivalent within ±m), a fraction (default %g)"
                    % MIN_MARGIN)
    ap.add_argument("--no-charts", "--no_charts", dest="no_charts",
                    action="store_true", help="write the report without "
                    "charts")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"),
                    help="compare two result directories instead")
    ap.add_argument("--repro", nargs=2, metavar=("RUN1", "RUN2"),
                    help="compare the rankings of two result files of one "
                    "family instead (exit 1 on a contradiction)")
    ap.add_argument("--drift-threshold", "--drift_threshold",
                    dest="drift_threshold", type=float, default=None,
                    help="how far the floor may move (before/after, and the "
                    "interleaved CV) before a family's winners are withheld, "
                    "a fraction (default: the file's, 0.2); a larger one "
                    "names winners on a host that moves, at your risk")
    ap.add_argument("--confirm-filter", "--confirm_filter",
                    dest="confirm_filter", metavar="FAMILY",
                    choices=records.FAMILIES,
                    help="print the sweep flags (rounds and filter) that "
                    "confirm the family's choices in a fresh process "
                    "(bench.sh), or nothing when there is none; writes no "
                    "file")
    ap.add_argument("--merge", nargs="+", metavar="FILE",
                    help="OUT PART1 ... PARTN: join the files of one sweep "
                    "run as N processes (--part=K/N) into OUT instead")
    args = ap.parse_args(argv)
    if sum(bool(x) for x in (args.compare, args.repro, args.merge)) > 1:
        ap.error("--compare, --repro and --merge: one at a time")
    if args.merge and len(args.merge) < 2:
        ap.error("--merge OUT PART1 [PART2 ...]: at least one part")
    if not 0 < args.min_margin < 1:
        ap.error("--margin must be a fraction in (0, 1)")
    if args.drift_threshold is not None and not args.drift_threshold > 0:
        ap.error("--drift-threshold must be a positive fraction")
    for k in ("producers", "consumers", "payload"):
        v = getattr(args, k)
        if v is not None and v < 1:
            ap.error("--%s must be at least 1" % k)
    return args


# Where a workload's own answer goes, under the results directory.
WORKLOAD_DIR = "workload"


def _other_report(out_dir: str, workload: Workload) -> Optional[str]:
    """The workload a REPORT.md already in out_dir answers, when it is not
    this one (None: no report there, or the same workload)."""
    try:
        with open(os.path.join(out_dir, "REPORT.md")) as f:
            head = f.read(4096)
    except OSError:
        return None
    m = re.search(r"Workload: (.*?)\.\n", head)
    if m is None or m.group(1) == workload.describe():
        return None
    return m.group(1)


def _policy_changes(out_dir: str, analysis: Analysis) -> list[str]:
    """What rewriting out_dir/winners.json changes in the reactor policy
    (the validation reads it), one line per component."""
    try:
        with open(os.path.join(out_dir, "winners.json")) as f:
            old = json.load(f).get("reactor") or {}
    except (OSError, ValueError, AttributeError):
        return []
    out = []
    for comp, e in analysis.picked["reactor"].items():
        before = (old.get(comp) or {}).get("winner") \
            if isinstance(old, dict) else None
        if before and before != e.get("winner"):
            out.append("reactor policy changed: %s %s -> %s (the ping-pong "
                       "validation reads this file)" % (
                           comp, before, e.get("winner")))
    return out


# The reporter of results/winners.json (winners.winners_json() builds the
# document): the reactor policy the ping-pong validation runs, with every
# class decided. Written first, so that the validation finds its policy even
# where the charts or the report fail.

class WinnersFile(Reporter):
    """Writes winners.json into the output directory."""

    def report(self, analysis: Analysis, written: Written) -> None:
        s = analysis.settings
        doc = winners_json(analysis.picked, analysis.workload, s.results_dir,
                           analysis.loaded, analysis.pingpong,
                           analysis.answers)
        path = os.path.join(s.out_dir, "winners.json")
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        written.winners = path


# The console summary, run last: the recommendation table, the reactor
# policy, the validation's headline, and where winners.json and
# REPORT.md were written (with why the charts were not drawn, on
# stderr).

class ConsoleSummary(Reporter):
    """Prints the summary to stdout."""

    def report(self, analysis: Analysis, written: Written) -> None:
        picked = analysis.picked
        print("Recommendation (workload: %s)\n" %
              analysis.workload.describe())
        print(text_table(recommendation_rows(picked)))
        print("'*': some of the class's groups ran more threads than cores "
              "(oversubscribed).")
        print("\nReactor policy: " + ", ".join(
            ["%s %s (%s vs %s)" % (k, e["winner"],
                                   fmt_ratio(e["micro_ratio"]), e["baseline"])
             if e["measured"] and e.get("adopted", True) else
             "%s %s (baseline kept: a tie or no verdict)" % (k, e["winner"])
             if e["measured"] else
             "%s %s (baseline, not measured)" % (k, e["winner"])
             for k, e in picked["reactor"].items()] +
            ["%s not chosen (%s)" % (k, why)
             for k, why in picked["reactor_missing"].items()]))
        print(analysis.validation.summary)
        print("winners: %s" % written.winners)
        if written.chart_error:
            print("pick: charts not drawn: %s" % written.chart_error,
                  file=sys.stderr)
        print("report: %s" % os.path.abspath(written.report or ""))


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.merge:
        return merge(args.merge[0], args.merge[1:])
    if args.repro:
        return repro(args.repro[0], args.repro[1], args.alpha,
                     args.min_margin, drift_threshold=args.drift_threshold)
    if args.compare:
        a, b = args.compare
        for d in (a, b):
            if not os.path.isdir(d):
                print("compare: %s is not a directory" % d, file=sys.stderr)
                return 2
        return compare_dirs(a, b, args.alpha)
    results_dir = args.results or default_results_dir()
    workload = Workload(args.producers, args.consumers, args.payload,
                        args.latency_bound)
    out_dir = args.out or (
        os.path.join(results_dir, WORKLOAD_DIR, workload.slug())
        if workload.given() and not args.replace else results_dir)
    clash = None if args.confirm_filter else _other_report(out_dir, workload)
    if clash and not args.replace:
        print("pick: %s/REPORT.md answers another workload (%s); pass "
              "--replace to overwrite it and its winners.json, or --out=DIR"
              % (out_dir, clash), file=sys.stderr)
        return 2
    if not os.path.isdir(results_dir):
        print("pick: no results directory %s; run the sweeps first (make "
              "bench, or bazel run -c opt //bench:queues ...)" % results_dir,
              file=sys.stderr)
        return 2
    loaded, problems = sweeps.load_dir(results_dir)
    for p in problems:
        print("pick: skipped " + p, file=sys.stderr)
    if not loaded:
        print("pick: no family results (queues.json, threadpool.json, "
              "logger.json, buffer.json) in %s" % results_dir, file=sys.stderr)
        return 2
    settings = Settings(results_dir=results_dir, out_dir=out_dir,
                        alpha=args.alpha, margin=args.min_margin,
                        drift_threshold=args.drift_threshold,
                        charts=not args.no_charts)
    try:
        analysis = analyse(settings, workload, loaded, tuple(problems))
    except records.VocabularyError as e:
        print("pick: %s" % e, file=sys.stderr)
        return 2
    if args.confirm_filter:
        print(confirm_flags(analysis.picked, args.confirm_filter))
        return 0
    os.makedirs(out_dir, exist_ok=True)
    if workload.given() and not args.out and not args.replace:
        print("pick: the workload's answer goes beside the full report, "
              "into %s (the full REPORT.md and the winners.json that the "
              "validation reads are left as they are)" % out_dir)
    for line in _policy_changes(out_dir, analysis):
        print("pick: winners.json " + line)
    # winners.json first (the validation's policy, whatever fails after),
    # REPORT.md after the charts it links, the console last.
    written = run([WinnersFile(), ChartFiles(), ReportFile(),
                   ConsoleSummary()], analysis)
    return 3 if written.chart_error else 0
