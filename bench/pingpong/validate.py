# -----------------------------------------------------------------------------
# bench/pingpong/validate.py
# -----------------------------------------------------------------------------
#
# The ping-pong validation: does a component that won its microbenchmark also
# make our server faster end to end? Imported by sweep.py (`--validate`, and
# after the side-by-side sweep unless `--no_validate`).
#
# Winners. results/winners.json (written by `bazel run //bench:pick`, or
# --winners=PATH) holds, under "reactor", one entry per swappable component:
#     {"winner": NAME, "baseline": NAME, "micro_ratio": float|null,
#      "source": "<benchmark group>", "cv": float|null}
# NAMEs are those of the server's --task_queue/--buffer/--logger flags. A
# missing file, malformed JSON, or a missing or malformed entry falls back to
# DEFAULTS for that component, and the output says so.
#
# Runs. For each component, our server (//bench/pingpong:server) runs with the
# baseline and with the winner swapped in, everything else equal, in the mode
# where that component matters (CASES): the task queue with every reply posted
# through a worker loop (--reply_via_queue, two cross-thread posts per
# message), the buffer in the plain echo at 16 KiB and 4 KiB blocks, the
# logger writing one line per message to a file on disk (under the results
# directory, deleted after each run). Baseline and winner alternate (AB, BA,
# AB, ...), so each repetition gives one pair of neighbouring runs.
#
# Verdict. e2e ratio = median(winner) / median(baseline) of MiB/s (messages/s
# for the header protocol); >1 means the winner is faster. Noise = half the
# range of the per-pair ratios winner_i / baseline_i, never below NOISE_FLOOR.
# "held": e2e ratio > 1 + noise; "refuted": e2e ratio < 1 - noise; else "no
# difference". The micro ratio is printed as bench:pick reports it (the
# winner against the baseline in its own benchmark group's metric). Beside
# it, the cpu ratio: the server's CPU seconds per MiB, winner / baseline,
# which still tells the two apart where the client sets the pace.

import json
import os
import shutil
import statistics
import sys
import tempfile

COMPONENTS = ("task_queue", "buffer", "logger")

# Used when winners.json or its entry is missing or malformed.
DEFAULTS = {
    "task_queue": dict(winner="bounded-mpmc", baseline="swap-vector"),
    "buffer": dict(winner="ring", baseline="linear"),
    "logger": dict(winner="async-queue-bounded-mpmc", baseline="sync"),
}

# Where each component matters. Flags other than the component's own are the
# same for the baseline and the winner runs.
CASES = {
    "task_queue": [
        dict(name="reply-via-queue", protocol="echo", threads=2,
             client_threads=2, block=4096, sessions=100,
             flags=["--reply_via_queue"],
             mode="echo 4 KiB, 100 sessions, 2 threads, every reply posted "
                  "through a worker loop and back: --reply_via_queue"),
    ],
    "buffer": [
        dict(name="echo-16k", protocol="echo", threads=1, client_threads=1,
             block=16384, sessions=100, flags=[],
             mode="echo 16 KiB, 100 sessions, 1 thread"),
        dict(name="echo-4k", protocol="echo", threads=1, client_threads=1,
             block=4096, sessions=100, flags=[],
             mode="echo 4 KiB, 100 sessions, 1 thread"),
    ],
    "logger": [
        dict(name="log-per-message", protocol="echo", threads=1,
             client_threads=1, block=4096, sessions=100, flags=[],
             mode="echo 4 KiB, 100 sessions, 1 thread, one log line per "
                  "message to a file on disk"),
    ],
}

# Repetitions (pairs) and seconds per run, per sweep profile.
PROFILES = {
    "smoke": dict(repetitions=1, seconds=0.3),
    "default": dict(repetitions=3, seconds=2.0),
    "full": dict(repetitions=5, seconds=5.0),
}

# Run-to-run noise on 2 shared cores is never below this, however tight a few
# repetitions happen to be.
NOISE_FLOOR = 0.03

SAME = "winner is the baseline; nothing to validate"


# --- winners ---------------------------------------------------------------------

def _number(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def load_winners(path):
    """Returns ({component: entry}, [notes]); never raises.

    entry: winner, baseline, micro_ratio (float or None), source, cv, origin
    ("winners.json" or "default").
    """
    notes = []
    reactor = None
    if not os.path.exists(path):
        notes.append("%s not found: default winners for every component "
                     "(run `bazel run //bench:pick` first to validate the "
                     "measured ones)" % path)
    else:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            notes.append("cannot read %s (%s): default winners for every "
                         "component" % (path, str(e).splitlines()[0]))
            doc = None
        if doc is not None:
            if isinstance(doc, dict) and isinstance(doc.get("reactor"), dict):
                reactor = doc["reactor"]
            else:
                notes.append("%s has no \"reactor\" object: default winners "
                             "for every component" % path)
    entries = {}
    for comp in COMPONENTS:
        d = DEFAULTS[comp]
        raw = reactor.get(comp) if reactor is not None else None
        if reactor is not None and raw is None:
            notes.append("%s: no entry in winners.json: default %s vs %s" % (
                comp, d["winner"], d["baseline"]))
        elif raw is not None and not (isinstance(raw, dict) and
                                      isinstance(raw.get("winner"), str) and
                                      raw["winner"]):
            notes.append("%s: malformed entry in winners.json (%s): default "
                         "%s vs %s" % (comp, json.dumps(raw)[:80],
                                       d["winner"], d["baseline"]))
            raw = None
        if raw is None:
            entries[comp] = dict(winner=d["winner"], baseline=d["baseline"],
                                 micro_ratio=None, source=None, cv=None,
                                 origin="default")
            continue
        baseline = raw.get("baseline")
        if not (isinstance(baseline, str) and baseline):
            baseline = d["baseline"]
            notes.append("%s: no baseline in winners.json: %s" % (comp,
                                                                  baseline))
        source, metric = raw.get("source"), raw.get("metric")
        entries[comp] = dict(
            winner=raw["winner"], baseline=baseline,
            micro_ratio=_number(raw.get("micro_ratio")),
            source=source if isinstance(source, str) else None,
            cv=_number(raw.get("cv")), origin="winners.json")
        if isinstance(metric, str) and metric:  # optional, for the sentence
            entries[comp]["metric"] = metric
    return entries, notes


# --- runs --------------------------------------------------------------------------

def component_flags(comp, name, log_file):
    if comp == "task_queue":
        return ["--task_queue=" + name]
    if comp == "buffer":
        return ["--buffer=" + name]
    return ["--logger=" + name, "--log_file=" + log_file]


def metric_of(protocol):
    return ("mib_per_s", "MiB/s") if protocol == "echo" else \
        ("messages_per_s", "messages/s")


def decide(base_vals, win_vals):
    """(e2e ratio, noise, pair ratios, verdict) from paired repetitions."""
    pairs = [w / b for b, w in zip(base_vals, win_vals) if b and w]
    if not pairs:
        return None, None, [], "error"
    ratio = statistics.median(win_vals) / statistics.median(base_vals)
    noise = max(NOISE_FLOOR, (max(pairs) - min(pairs)) / 2)
    if ratio > 1 + noise:
        verdict = "held"
    elif ratio < 1 - noise:
        verdict = "refuted"
    else:
        verdict = "no difference"
    return ratio, noise, pairs, verdict


def fmt_micro(x):
    return "n/a" if x is None else "%.2fx" % x


def sentence(row):
    """One line a report can quote."""
    comp, e = row["component"], row
    if e["verdict"] == SAME:
        return "%s: %s is both winner and baseline; nothing to validate" % (
            comp, e["winner"])
    if e["e2e_ratio"] is None:
        return "%s: %s vs %s (%s) did not run: %s" % (
            comp, e["winner"], e["baseline"], e["case"], e.get("error", ""))
    if e["micro_ratio"] is not None:
        where = "; ".join(x for x in (e.get("micro_metric"),
                                      e["micro_source"]) if x)
        micro = "%s's %s over %s in the micro sweep%s" % (
            e["winner"], fmt_micro(e["micro_ratio"]), e["baseline"],
            " (%s)" % where if where else "")
    else:
        micro = "%s against %s (no micro ratio)" % (e["winner"],
                                                     e["baseline"])
    return ("%s: %s became %+.1f%% ping-pong %s, %s (noise +-%.1f%%): %s" % (
        comp, micro, (e["e2e_ratio"] - 1) * 100, e["unit"], e["mode"],
        e["noise"] * 100, e["verdict"]))


def run_validation(run_point, resolve_server, client, prof_name, pin,
                   winners_path, log_parent, seconds=0.0, repetitions=0,
                   components=COMPONENTS, out=sys.stdout):
    """Runs every component's cases; returns the "validation" dict.

    run_point(server, client, tmp, protocol, threads, client_threads, block,
    sessions, seconds, count, limit, pin) -> record, as in sweep.py;
    resolve_server(name, flags) -> a sweep.Server for our server with flags.
    On KeyboardInterrupt it returns what ran, with "interrupted": true.
    """
    vp = dict(PROFILES[prof_name])
    if seconds > 0:
        vp["seconds"] = seconds
    if repetitions > 0:
        vp["repetitions"] = repetitions
    entries, notes = load_winners(winners_path)
    origins = {entries[c]["origin"] for c in components}
    result = dict(winners_file=winners_path,
                  winners=("winners.json" if origins == {"winners.json"} else
                           "defaults" if origins == {"default"} else
                           "winners.json, defaults for the rest"),
                  notes=notes, repetitions=vp["repetitions"],
                  seconds_per_run=vp["seconds"], noise_floor=NOISE_FLOOR,
                  rows=[], complete=False)

    def say(msg):
        print(msg, file=out)
        out.flush()

    say("\nping-pong validation, profile %s: %d repetition(s) of baseline and "
        "winner alternated, %.1f s per run; winners from %s" % (
            prof_name, vp["repetitions"], vp["seconds"], result["winners"]))
    for n in notes:
        say("note: " + n)

    os.makedirs(log_parent, exist_ok=True)
    log_dir = tempfile.mkdtemp(prefix=".validate-logs-", dir=log_parent)
    total = sum(len(CASES[c]) for c in components
                if entries[c]["winner"] != entries[c]["baseline"]) \
        * 2 * vp["repetitions"]
    done = 0
    try:
        with tempfile.TemporaryDirectory(prefix="pingpong-validate-") as tmp:
            for comp in components:
                e = entries[comp]
                same = e["winner"] == e["baseline"]
                for case in CASES[comp][:1] if same else CASES[comp]:
                    key, unit = metric_of(case["protocol"])
                    row = dict(component=comp, case=case["name"],
                               mode=case["mode"], protocol=case["protocol"],
                               server_threads=case["threads"],
                               client_threads=case["client_threads"],
                               blocksize=case["block"],
                               sessions=case["sessions"],
                               flags=case["flags"],
                               baseline_flags=component_flags(
                                   comp, e["baseline"], "FILE") + case["flags"],
                               winner_flags=component_flags(
                                   comp, e["winner"], "FILE") + case["flags"],
                               winner=e["winner"],
                               baseline=e["baseline"],
                               micro_ratio=e["micro_ratio"],
                               micro_source=e["source"], micro_cv=e["cv"],
                               micro_metric=e.get("metric"),
                               origin=e["origin"], metric=key, unit=unit,
                               baseline_runs=[], winner_runs=[],
                               baseline_median=None, winner_median=None,
                               e2e_ratio=None, noise=None, pair_ratios=[],
                               baseline_cpu=[], winner_cpu=[], cpu_ratio=None,
                               client_bound=False, log_bytes=[], records=[])
                    result["rows"].append(row)
                    if same:
                        row.update(case="-", mode="-", verdict=SAME)
                        row["sentence"] = sentence(row)
                        continue
                    error = None
                    for rep in range(vp["repetitions"]):
                        order = ["baseline", "winner"]
                        if rep % 2:
                            order.reverse()
                        for side in order:
                            name = e[side]
                            log_file = os.path.join(log_dir, "%s-%s.log" % (
                                comp, side))
                            srv = resolve_server(
                                "serverkit[%s=%s]" % (comp, name),
                                component_flags(comp, name, log_file) +
                                case["flags"])
                            r = run_point(srv, client, tmp, case["protocol"],
                                          case["threads"],
                                          case["client_threads"],
                                          case["block"], case["sessions"],
                                          vp["seconds"], 1024, 60.0, pin)
                            r.update(repetition=rep, side=side,
                                     component=comp, case=case["name"])
                            if comp == "logger":
                                try:
                                    r["log_bytes"] = os.path.getsize(log_file)
                                    os.remove(log_file)
                                except OSError:
                                    r["log_bytes"] = 0
                                if r.get("ok") and not r["log_bytes"]:
                                    # Nothing logged: not the mode we meant
                                    # (an unflushed async tail included).
                                    r["ok"] = False
                                    r["error"] = ("the logger wrote nothing "
                                                  "to %s" % log_file)
                                row["log_bytes"].append(r["log_bytes"])
                            row["records"].append(r)
                            done += 1
                            v = r.get(key) if r.get("ok") else None
                            row[side + "_runs"].append(v)
                            if v and r.get("seconds") and r.get("server_cpu_s"):
                                # Server CPU seconds per unit of work (MiB or
                                # message): tells the two apart where the
                                # client, not the server, set the pace.
                                row[side + "_cpu"].append(
                                    r["server_cpu_s"] / (v * r["seconds"]))
                            row["client_bound"] |= bool(r.get("client_bound"))
                            say("[validate %d/%d] %-10s %-15s %-9s %-26s %s" % (
                                done, total, comp, case["name"], side, name,
                                "%.1f %s" % (v, unit) if v is not None else
                                "FAILED %s" % r.get("error", "")))
                            if v is None and error is None:
                                error = "%s %s: %s" % (side, name,
                                                       r.get("error", ""))
                        if error:
                            break  # one failure: the pairs mean nothing
                    if error:
                        row["verdict"] = "error"
                        row["error"] = error
                        done += (vp["repetitions"] * 2 -
                                 len(row["records"]))
                    else:
                        b, w = row["baseline_runs"], row["winner_runs"]
                        row["baseline_median"] = statistics.median(b)
                        row["winner_median"] = statistics.median(w)
                        (row["e2e_ratio"], row["noise"], row["pair_ratios"],
                         row["verdict"]) = decide(b, w)
                        if row["baseline_cpu"] and row["winner_cpu"]:
                            row["cpu_ratio"] = (
                                statistics.median(row["winner_cpu"]) /
                                statistics.median(row["baseline_cpu"]))
                    if row["micro_ratio"] is None and row["verdict"] not in (
                            SAME, "error"):
                        row["verdict"] += " (micro n/a)"
                    row["sentence"] = sentence(row)
        result["complete"] = True
    except KeyboardInterrupt:
        result["interrupted"] = True
        say("\nvalidation: interrupted; reporting what ran")
        for row in result["rows"]:
            if "verdict" not in row:
                row["verdict"] = "error"
                row["error"] = "interrupted"
                row["sentence"] = sentence(row)
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    return result


# --- table ---------------------------------------------------------------------------

def print_table(result, out=sys.stdout):
    head = ["component", "case", "baseline -> winner", "micro ratio",
            "e2e ratio (noise)", "baseline", "winner", "cpu ratio", "verdict"]
    table = []
    for r in result["rows"]:
        if r["e2e_ratio"] is not None:
            e2e = "%.3fx (+-%.1f%%)" % (r["e2e_ratio"], r["noise"] * 100)
            bm = "%.1f" % r["baseline_median"]
            wm = "%.1f" % r["winner_median"]
            if r["client_bound"]:
                e2e += " c"
        else:
            e2e = bm = wm = "-"
        cpu = "-" if r.get("cpu_ratio") is None else "%.3fx" % r["cpu_ratio"]
        table.append([r["component"], r["case"],
                      "%s -> %s" % (r["baseline"], r["winner"]),
                      fmt_micro(r["micro_ratio"]), e2e, bm, wm, cpu,
                      r["verdict"] + (" [default]" if r["origin"] == "default"
                                      else "")])
    widths = [max(len(x[i]) for x in [head] + table) for i in range(len(head))]
    print("\nvalidation verdicts (winners from %s; %d repetition(s), %.1f s "
          "per run): medians in MiB/s" % (result["winners"],
                                       result["repetitions"],
                                       result["seconds_per_run"]), file=out)
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)).rstrip(),
          file=out)
    for x in table:
        print("  ".join(c.ljust(w) for c, w in zip(x, widths)).rstrip(),
              file=out)
    for r in result["rows"]:
        if r["mode"] != "-":
            print("  %s/%s: %s" % (r["component"], r["case"], r["mode"]),
                  file=out)
    print("  micro ratio: winner/baseline as bench:pick reports it for its "
          "benchmark group (n/a: none given)\n"
          "  e2e ratio: median winner / median baseline throughput, >1 = "
          "winner faster; noise: half the range of the per-pair ratios, at "
          "least %.0f%%\n"
          "  cpu ratio: server CPU seconds per MiB (per message for the "
          "header protocol), winner / baseline medians, <1 = winner cheaper; "
          "it counts where the client sets the pace (c)\n"
          "  held / no difference / refuted: the winner faster / within noise "
          "/ slower end to end\n"
          "  [default]: the pair came from the defaults, not winners.json; "
          "c: the client used >= 90%% of its CPU in some run" % (
              NOISE_FLOOR * 100), file=out)
    if result["repetitions"] < 2:
        print("  1 repetition: the noise is the floor alone; these verdicts "
              "check the plumbing, not the components", file=out)
    for r in result["rows"]:
        print("verdict: " + r["sentence"], file=out)
    for n in result["notes"]:
        print("note: " + n, file=out)
    out.flush()
