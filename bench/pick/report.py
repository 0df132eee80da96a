# -----------------------------------------------------------------------------
# bench/pick/report.py
# -----------------------------------------------------------------------------
#
# results/REPORT.md: the recommendation table first, then the charts (PNG
# files beside it, linked by relative path), the details per family (its
# floor and drift, then each class; round-trip latencies also as multiples
# of the floor), the ping-pong table, the validation verdicts, the machine,
# and the commands that produced it. render() returns the Markdown; pick.py
# writes it.

import math
import os
import statistics

import results as R
from pick import (FAMILY_SPECS, HEADER, MIN_MARGIN, fmt_ratio,
                  recommendation_rows, scipy_available, validation_entries,
                  validation_summary)


def _md_table(head, rows):
    esc = [[str(c).replace("|", "\\|") for c in r] for r in rows]
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in esc]
    return "\n".join(out)


def _num(x, unit=""):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    a = abs(x)
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if a >= div and unit not in ("ns", "ms", "%", "us"):
            return "%.3g%s" % (x / div, suffix)
    return "%.3g" % x


def _cv(c):
    return "-" if c is None else "%.1f%%" % (100 * c)


def _profiles(loaded):
    return {f: fr.profile() for f, fr in loaded.items()}


def _cores(loaded, pingpong):
    for fr in loaded.values():
        if fr.cores():
            return fr.cores()
    if pingpong:
        return pingpong.get("context", {}).get("cores")
    return None


def _ns(x):
    """Nanoseconds, whole above 100 (1500, not 1.5e+03)."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return "%.0f" % x if abs(x) >= 100 else "%.3g" % x


def _floor_section(fr, fam):
    """The family's floor: before / after / interleaved, drift, machine, and
    the workload sizes of each scenario."""
    fl = fam["floor"]
    name = fl["row"] or (R.group_name(fr.family, R.FLOOR_SCENARIO, ()) +
                         "/" + R.FLOOR_IMPL)
    measured = fl["before_p50_ns"] or fl["after_p50_ns"] or fl["row_reps"]
    if not measured:
        lines = ["Floor (`%s`): not measured in this run (no floor before or "
                 "after the sweep, no floor row; a single core has no pair "
                 "to pin)." % name, ""]
    else:
        lines = ["Floor (`%s`: two pinned threads bouncing one cache line; "
                 "the reference every latency here sits on):" % name, ""]
        rows = [["before the sweep", _ns(fl["before_p50_ns"]),
                 _ns(fl["before_p99_ns"]), "-"],
                ["after the sweep", _ns(fl["after_p50_ns"]),
                 _ns(fl["after_p99_ns"]), "-"],
                ["interleaved row (median of %d)" % fl["row_reps"],
                 _ns(fl["row_p50_ns"]), _ns(fl["row_p99_ns"]),
                 _cv(fl["row_cv"])]]
        lines.append(_md_table(["floor", "p50 ns", "p99 ns", "CV of p50"],
                               rows))
        lines.append("")
    pair = fl["core_pair"]
    lines.append("Core pair %s; CPU %s, cores: %s; %s repetitions, "
                 "interleaved: %s; drift threshold %.0f%%." % (
                     ",".join(str(c) for c in pair) if pair else "none "
                     "(no floor before/after)", fl["cpu_model"] or "?",
                     fl["cores"] or "?", fl["repetitions"] or "?",
                     {True: "yes", False: "no"}.get(fl["interleaved"], "?"),
                     100 * fl["threshold"]))
    if fam["drifted"]:
        lines.append("")
        lines.append("**%s**: no winner in this family." %
                     fam["drift_verdict"])
    else:
        lines.append("No drift (%s)." % ", ".join(
            ["before/after within the threshold"
             if fl["before_p50_ns"] and fl["after_p50_ns"]
             else "no before/after floor"] +
            ["interleaved CV within it" if fl["row_cv"] is not None
             else "no interleaved CV"]))
    sizes = fr.scenario_sizes()
    if sizes:
        lines.append("")
        lines.append("Workload sizes: %s." % "; ".join(
            "%s %s" % (sc, ", ".join("%s %s" % (k, v)
                                     for k, v in sorted(d.items())))
            if isinstance(d, dict) else "%s %s" % (sc, d)
            for sc, d in sorted(sizes.items())))
    return lines


def _vs_floor(fr, res, fam):
    """Round trips as multiples of the floor: the sweep measures the floor
    just before and after each repetition on the same two cores and records
    p50_x_floor / p99_x_floor (medians over the repetitions here), beside
    the round trip in ns and the floor it was divided by."""
    rows = []
    for g in res["group_keys"]:
        for r in res.get("ranking", []):
            c = fr.cells[g].get(r["impl"])
            if c is None or c.error:
                continue
            rows.append([r["impl"], R.params_str(g[1]) or g[0],
                         _ns(c.median("p50_ns")), _ns(c.median("floor_ns")),
                         fmt_ratio(c.median("p50_x_floor")),
                         fmt_ratio(c.median("p99_x_floor"))])
    if not rows:
        return []
    ref = fam["floor"]["reference_p50_ns"]
    return ["", "Round trip as a multiple of the floor measured beside each "
            "repetition (medians over the repetitions; the run's floor: p50 "
            "%s ns):" % _ns(ref), "",
            _md_table(["implementation", "group", "p50 ns", "floor ns",
                       "p50 / floor", "p99 / floor"], rows)]


def _class_details(fr, res, fam=None):
    lines = []
    lines.append("#### %s: %s" % (res["cls"], res["title"]))
    lines.append("")
    if res.get("metric") is None:
        lines.append(res.get("verdict", "not ranked"))
        return lines
    arrow = "higher" if res["higher"] else "lower"
    lines.append("Ranked by `%s` (%s, %s is better; the sweep's rule) over "
                 "%d group(s)%s." % (
                     res["metric"], res["unit"], arrow, len(res["groups"]),
                     "; `*` marks groups with more threads than cores"
                     if res.get("oversubscribed") else ""))
    for n in res.get("notes", []):
        lines.append("Note: %s." % n)
    if not res.get("group_keys"):
        lines.append("")
        lines.append(res.get("verdict", "not measured"))
        return lines
    groups = res["group_keys"]
    base = res.get("baseline")
    head = ["rank", "implementation", "score", "vs %s" % (base or
                                                         "baseline")]
    for s, p in groups:
        over = any(c.oversubscribed for c in fr.cells[(s, p)].values())
        head.append("%s%s%s" % (s + " " if len(res["scenarios"]) > 1 else "",
                                R.params_str(p) or "-", " *" if over else ""))
    scores = {r["impl"]: r["score"] for r in res.get("ranking", [])}
    rows = []
    for k, r in enumerate(res.get("ranking", []), 1):
        impl = r["impl"]
        name = impl + ("" if r["candidate"] else " (not a candidate)")
        if impl == res.get("winner"):
            name = "**%s**" % name
        vs_base = (fmt_ratio(scores[impl] / scores[base])
                   if base in scores else "-")
        row = [str(k), name, "%.3f" % r["score"], vs_base]
        for g in groups:
            c = fr.cells[g][impl]
            row.append("%s (%s)" % (_num(c.median(res["metric"]), res["unit"]),
                                    _cv(c.cv(res["metric"]))))
        rows.append(row)
    for impl, why in sorted(res.get("partial", {}).items()):
        rows.append(["-", impl, "-", "-"] + [
            ("%s (%s)" % (_num(fr.cells[g][impl].median(res["metric"]),
                               res["unit"]),
                          _cv(fr.cells[g][impl].cv(res["metric"])))
             if impl in fr.cells[g] and not fr.cells[g][impl].error else
             ("error" if impl in fr.cells[g] else "-"))
            for g in groups])
    lines.append("")
    lines.append(_md_table(head, rows))
    lines.append("")
    lines.append("Score: geometric mean over the groups of median / the "
                 "group's best (1.000 = best everywhere); cells: median "
                 "(CV).%s" % (" Partial rows ran only some groups, or failed "
                              "in one, and are not ranked."
                              if res.get("partial") else ""))
    if res.get("noise") == "drifted":
        lines.append("")
        lines.append("Verdict: **%s**." % res["verdict"])
    if res.get("vs_floor") and fam is not None:
        lines.extend(_vs_floor(fr, res, fam))
    if res.get("winner"):
        lines.append("")
        lines.append("Verdict: **%s** %s; %s." % (
            res["winner"],
            ("by %s over %s" % (fmt_ratio(res["margin_over_runner_up"]),
                                res["runner_up"])) if res.get("runner_up")
            else "(no runner-up)", res["verdict"]))
        gn = res.get("group_noise") or []
        if gn and any(n["state"] != "unknown" for n in gn):
            lines.append("")
            lines.append(_md_table(
                ["group", "%s vs %s" % (res["winner"], res["runner_up"]),
                 "U-test p", "larger CV", "repetitions", "above noise"],
                [[n["group"], fmt_ratio(n["ratio"]),
                  "-" if n["p"] is None else "%.3f" % n["p"],
                  _cv(n["cv"]), str(n["reps"]),
                  n["state"] + (" (%s)" % n["split"] if n.get("split")
                                else "")] for n in gn]))
    if res.get("show") and res.get("winner"):
        extras = []
        for g in groups:
            c = fr.cells[g].get(res["winner"])
            if c is None:
                continue
            vals = ["%s %s" % (k, _num(c.median(k))) for k in res["show"]
                    if not math.isnan(c.median(k))]
            if vals:
                label = R.params_str(g[1]) or g[0]
                if len(res["scenarios"]) > 1:
                    label = g[0] + " " + label
                extras.append("%s: %s" % (label, ", ".join(vals)))
        if extras:
            lines.append("")
            lines.append("%s, other counters (median): %s." % (
                res["winner"], "; ".join(extras)))
    return lines


def _pingpong_section(pp):
    lines = ["## Ping-pong", ""]
    if not pp:
        lines.append("Not run: results/pingpong.json is missing (`bazel run "
                     "-c opt //bench:pingpong`).")
        return lines
    ctx = pp.get("context", {})
    lines.append("Profile %s, %s cores, %s s per echo point, %s "
                 "repetition(s), load average %s at start; pin: %s. MiB/s "
                 "(echo); `!` a point that ran unclean, `c` the client at its "
                 "CPU ceiling." % (
                     ctx.get("profile"), ctx.get("cores"),
                     ctx.get("seconds_per_point"), ctx.get("repetitions"),
                     ctx.get("loadavg_at_start"), ctx.get("pin")))
    echo = pp.get("echo", [])
    servers = []
    for r in echo:
        if r["server"] not in servers:
            servers.append(r["server"])
    servers.sort(key=lambda s: (s != "serverkit", s not in ("asio",
                                                            "libevent"), s))
    refs = [s for s in ("asio", "libevent") if s in servers]
    for t, b in sorted({(r["server_threads"], r["blocksize"]) for r in echo}):
        rows = []
        for n in sorted({r["sessions"] for r in echo}):
            per = {s: [r for r in echo if (r["server"], r["server_threads"],
                                           r["blocksize"], r["sessions"]) ==
                       (s, t, b, n)] for s in servers}
            if not any(per.values()):
                continue
            med = {}
            row = [str(n)]
            for s in servers:
                vals = [r["mib_per_s"] for r in per[s]
                        if r.get("ok") and r.get("mib_per_s")]
                med[s] = statistics.median(vals) if vals else None
                mark = "" if per[s] and all(r.get("ok") for r in per[s]) \
                    else " !"
                if any(r.get("client_bound") for r in per[s]):
                    mark += " c"
                row.append(("%.1f" % med[s] if med[s] else "-") + mark)
            for ref in refs:
                for s in servers:
                    if s in refs:
                        continue
                    row.append(fmt_ratio(med[s] / med[ref])
                               if med[s] and med[ref] else "-")
            rows.append(row)
        head = ["sessions"] + servers + ["%s/%s" % (s, ref) for ref in refs
                                          for s in servers if s not in refs]
        lines.append("")
        lines.append("Echo, %d threads, %d-byte blocks:" % (t, b))
        lines.append("")
        lines.append(_md_table(head, rows))
    for note in pp.get("notes", []):
        lines.append("")
        lines.append("Note: " + note)
    return lines


def _validation_section(pp):
    summary, entries = validation_summary(pp)
    lines = ["## Validation: did the micro winners hold end to end?", ""]
    if not entries:
        lines.append("Validation not run: results/pingpong.json has no "
                     "\"validation\" key. `bazel run -c opt //bench:pingpong` "
                     "runs our server with the policy in results/winners.json "
                     "(\"reactor\") against the baseline policy.")
        return lines
    lines.append("**%s.**" % (summary[0].upper() + summary[1:]))
    lines.append("")
    cols = [("component", "component"), ("case", "case"), ("mode", "mode"),
            ("winner", "winner"), ("baseline", "baseline"),
            ("micro_ratio", "micro ratio"), ("micro_source", "micro source"),
            ("e2e_ratio", "end-to-end ratio"), ("noise", "noise"),
            ("verdict", "verdict")]
    cols = [(k, h) for k, h in cols if any(k in e for e in entries)]
    rows = []
    for e in entries:
        row = []
        for k, _ in cols:
            v = e.get(k)
            if isinstance(v, float):
                if k.endswith("ratio"):
                    v = fmt_ratio(v)
                elif k == "noise":
                    v = "+-%.1f%%" % (100 * v)
                else:
                    v = "%.4g" % v
            row.append("-" if v is None else str(v))
        rows.append(row)
    lines.append(_md_table([h for _, h in cols], rows))
    v = pp.get("validation", {}) if isinstance(pp.get("validation"),
                                                 dict) else {}
    if v.get("noise_floor") is not None:
        lines.append("")
        lines.append("End-to-end ratio: the winner's median ping-pong MiB/s "
                     "over the baseline's, %s alternating repetition(s) of "
                     "%s s each. Noise: half the spread of the per-pair "
                     "ratios, at least +-%.0f%%; a ratio within 1 +- noise is "
                     "\"no difference\", above it \"held\", below it "
                     "\"refuted\"." % (
                         v.get("repetitions", "?"),
                         v.get("seconds_per_run", "?"),
                         100 * v["noise_floor"]))
    for n in v.get("notes", []) or []:
        lines.append("")
        lines.append("Note: %s" % n)
    return lines


def _machine_section(loaded, pp):
    lines = ["## Machine", ""]
    ctx = next((fr.context for fr in loaded.values()), {})
    cores = _cores(loaded, pp)
    cpus = sorted({fr.cpu_model() for fr in loaded.values()
                   if fr.cpu_model()})
    if cpus:
        lines.append("- CPU: %s." % "; ".join(cpus))
    lines.append("- Cores: %s (host %s, %s MHz); kernel %s." % (
        cores, ctx.get("host_name", "?"), ctx.get("mhz_per_cpu", "?"),
        (pp or {}).get("context", {}).get("kernel", "?")))
    over = []
    for f, fr in loaded.items():
        n = len(fr.oversubscribed_groups())
        if n:
            over.append("%s %d of %d" % (f, n, len(fr.cells)))
    lines.append("- Oversubscribed points (more threads than cores): %s." % (
        "yes: " + ", ".join(over) + " groups" if over else "none"))
    for f, fr in loaded.items():
        c = fr.context
        lines.append("- %s: profile %s, %s, load average %s at start, "
                     "pinning: %s." % (
                         f, fr.profile(), c.get("date", "?"),
                         ", ".join("%.2f" % x for x in c.get("load_avg", []))
                         or "?", c.get("pinning", "?")))
    if ctx.get("library_build_type") == "debug":
        lines.append("- Debian's libbenchmark is built without NDEBUG "
                     "(\"Library was built as DEBUG\"); our code is built "
                     "with -c opt, the timings are valid.")
    return lines


def _commands(loaded, pp, args):
    cmds = []
    for f in R.FAMILIES:
        if f in loaded:
            cmds.append("bazel run -c opt //bench:%s -- --profile=%s" % (
                f, loaded[f].profile()))
    if pp:
        cmds.append("bazel run -c opt //bench:pingpong -- --profile=%s" %
                    pp.get("context", {}).get("profile", "default"))
    flags = []
    if args is not None:
        for k in ("producers", "consumers", "payload"):
            if getattr(args, k, None) is not None:
                flags.append("--%s=%s" % (k, getattr(args, k)))
        if getattr(args, "latency_bound", False):
            flags.append("--latency-bound")
        if getattr(args, "min_margin", MIN_MARGIN) != MIN_MARGIN:
            flags.append("--min-margin=%g" % args.min_margin)
    cmds.append("bazel run //bench:pick" + (" -- " + " ".join(flags)
                                            if flags else ""))
    return cmds


def render(picked, loaded, pingpong, workload, charts, chart_error,
           results_dir, args=None, problems=()):
    profiles = _profiles(loaded)
    cores = _cores(loaded, pingpong)
    L = ["# serverkit: what to put in your server", ""]
    L.append("From the sweeps in `%s` (%s), on %s cores. Workload: %s." % (
        os.path.basename(os.path.abspath(results_dir)) + "/",
        ", ".join("%s: %s profile" % (f, p) for f, p in profiles.items()),
        cores, workload.describe()))
    L.append("")
    L.append("## Recommendation")
    L.append("")
    L.append(_md_table(HEADER, recommendation_rows(picked)))
    L.append("")
    rx = picked["reactor"]
    parts = []
    for key, label in (("task_queue", "task queue"), ("buffer", "buffer"),
                       ("logger", "logger")):
        e = rx.get(key)
        if not e:
            why = picked.get("reactor_missing", {}).get(key)
            if why:
                parts.append("%s not chosen (%s; the validation uses its "
                             "default)" % (label, why))
            continue
        if e.get("measured") is False:
            parts.append("%s `%s` (not measured: %s)" % (
                label, e["winner"], e.get("note", "")))
        else:
            parts.append("%s `%s` (%s %s, %s)" % (
                label, e["winner"], fmt_ratio(e.get("micro_ratio")),
                e["baseline"], e.get("source")))
    L.append("**Reactor policy** (`winners.json`, \"reactor\"): " +
             "; ".join(parts) + ".")
    L.append("")
    L.append("**End to end:** %s." % validation_summary(pingpong)[0])
    L.append("")
    alpha = picked.get("alpha", 0.05)
    min_margin = picked.get("min_margin", MIN_MARGIN)
    rule = ("the two-sided Mann-Whitney U test over the repetitions (as "
            "Google Benchmark's compare.py runs it) gives p < %.2f and the "
            "margin exceeds both the larger coefficient of variation and "
            "%.0f%%" % (alpha, 100 * min_margin)
            if scipy_available() else
            "the margin exceeds twice the larger coefficient of variation "
            "and %.0f%% (scipy is missing, so no U-test)" % (
                100 * min_margin))
    L.append("How to read it: a class is one or more benchmark groups, "
             "ranked by the metric the sweep's own rules name; "
             "margins are geometric means over them of the winner's median "
             "against the runner-up's and the baseline's, oriented so that "
             "> 1 is better (for latency: baseline / winner). \"Above noise\""
             " means, in every group, %s. With 5 repetitions the smallest "
             "possible p is 0.008; compare.py asks for 9 or more for a U-test "
             "it trusts. Smoke results have one repetition: no verdict. "
             "\"Host drifted: rerun\": the family's floor (a cache-line "
             "round trip) moved by more than its threshold during the sweep, "
             "so no winner is named." % rule)
    drifted = [f for f in R.FAMILIES
               if picked["families"][f].get("drifted")]
    if drifted:
        L.append("")
        L.append("**Host drifted: rerun** %s (see each family's floor "
                 "below)." % ", ".join(drifted))
    if workload.given():
        L.append("")
        L.append("Narrowed to the workload (%s): classes that do not fit it "
                 "are left out and parameters are the nearest measured." %
                 workload.describe())
    for p in problems:
        L.append("")
        L.append("Skipped: " + p)

    L.append("")
    L.append("## Charts")
    L.append("")
    if chart_error:
        L.append("> Charts not drawn: %s" % chart_error)
        L.append("")
    elif not charts:
        L.append("No data to chart.")
        L.append("")
    for title, name in charts:
        L.append("### " + title)
        L.append("")
        L.append("![%s](%s)" % (title, name))
        L.append("")
    if not chart_error and not validation_entries(pingpong):
        L.append("(No validation chart: validation not run.)")
        L.append("")

    L.append("## Details per family")
    for family in R.FAMILIES:
        fam = picked["families"][family]
        L.append("")
        L.append("### %s" % FAMILY_SPECS[family]["title"])
        L.append("")
        if fam["missing"]:
            L.append("Not measured: results/%s.json is missing. Run `bazel "
                     "run -c opt //bench:%s`." % (family, family))
            continue
        fr = loaded[family]
        L.append("`%s`, profile %s, baseline%s %s (from the sweep's "
                 "rules)." % (
                     os.path.basename(fr.path), fr.profile(),
                     "s" if len(fam["baselines"]) > 1 else "",
                     ", ".join("`%s`" % b for b in fam["baselines"]) or
                     "none"))
        L.append("")
        L.extend(_floor_section(fr, fam))
        for res in fam["classes"]:
            L.append("")
            L.extend(_class_details(fr, res, fam))

    L.append("")
    L.extend(_pingpong_section(pingpong))
    L.append("")
    L.extend(_validation_section(pingpong))
    L.append("")
    L.extend(_machine_section(loaded, pingpong))
    L.append("")
    L.append("## Commands that produced this report")
    L.append("")
    L.append("```")
    L.extend(_commands(loaded, pingpong, args))
    L.append("```")
    L.append("")
    L.append("`make bench` runs them all (`PROFILE=full make bench` for the "
             "long sweep, `make bench-quick` for a smoke run); `make compare "
             "A=dir B=dir` compares two result sets.")
    L.append("")
    return "\n".join(L)
