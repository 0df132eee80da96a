#!/usr/bin/python3
# -----------------------------------------------------------------------------
# bench/pingpong/sweep.py
# -----------------------------------------------------------------------------
#
# The ping-pong sweep: every server, the same client, one table.
#
#   bazel run -c opt //bench/pingpong:sweep -- [--profile=smoke|default|full]
#       [--server 'NAME=PATH-OR-TARGET [server flags...]'] ... [--no_peers]
#       [--client_threads=N] [--pin=auto|yes|no] [--seconds=S] [--out=PATH]
#       [--validate | --no_validate] [--winners=PATH] [--validate_seconds=S]
#       [--validate_repetitions=N] [--validate_components=a,b]
#
# The side-by-side sweep runs first, then the validation (validate.py: our
# server with each component's micro winner swapped in against the baseline,
# in the mode where that component matters; one verdict per component and
# case, printed last). --validate runs the validation alone (keeping the
# sweep's records already in the JSON); --no_validate skips it. Pairs of
# baseline and winner runs per case: smoke 1 x 0.3 s, default 3 x 2 s (about
# a minute in all), full 5 x 5 s; validate.py's header says how it decides.
#
# Servers. Ours, `serverkit` (//bench/pingpong:server, the reactor with the
# baseline policy), and the peers `asio` and `libevent`
# (//bench/pingpong:asio_server, :libevent_server) run unless --no_peers. Each --server adds one more: NAME is
# the column name, PATH-OR-TARGET an executable path (absolute, or relative to
# the runfiles tree, the workspace, or the current directory) or a label such
# as //reactor:pingpong_server (found in the runfiles, else in the
# workspace's bazel-bin). Words after it are passed to that server on every
# run, so one binary can appear under several names with different --policy=
# flags. Every server is started as
#     PATH 127.0.0.1 <free port> <threads> --protocol=echo|header [flags...]
# on loopback, waited on until it accepts, driven by //bench/pingpong:client,
# and killed (its whole process group) after the point; servers and clients
# also die with the driver (PR_SET_PDEATHSIG), on Ctrl-C, on errors and on
# timeouts.
#
# Sweep. echo: sessions 1/10/100/1000 (+10000 when RLIMIT_NOFILE allows) x
# server threads 1, 2 x blocks 4 KiB, 16 KiB; header: a few session counts per
# server. The servers run back to back at each point (ratios come from
# neighbouring runs). The client gets as many threads as the server unless
# --client_threads says otherwise. --pin=auto pins the server and the client to
# disjoint cores when their threads fit the cores (taskset -c 1 / -c 0 in
# chenshuo/recipes), and says so.
#
# Output: progress lines, then one table per (protocol, threads, block) with
# MiB/s (header: messages/s and p99 session time) and ratios to asio and
# libevent; a figure marked "!" ran unclean (connect failures, errors), one
# marked "c" had the client at >= 90% of the CPU it could use, so it may be
# the client's ceiling (on 2 cores client and server get one core each). JSON
# in $BUILD_WORKSPACE_DIRECTORY/results/pingpong.json (else
# ./results/pingpong.json, or --out), with the client's and the server's CPU
# seconds per point, and the validation under "validation". Winners come from
# results/winners.json beside it (or --winners). Exit status 0 when every
# point and every validation run ran clean (a "refuted" verdict is a finding,
# not a failure).

import argparse
import ctypes
import json
import os
import platform
import resource
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import validate

REFERENCES = ("asio", "libevent")
PEERS = (
    ("serverkit", "//bench/pingpong:server"),
    ("asio", "//bench/pingpong:asio_server"),
    ("libevent", "//bench/pingpong:libevent_server"),
)
CLIENT = "//bench/pingpong:client"

PROFILES = {
    # A moment per point: checks that the sweep runs end to end.
    "smoke": dict(seconds=0.3, sessions=[10], threads=[1, 2],
                  blocks=[4096, 16384], repetitions=1,
                  header_sessions=[10], header_threads=[1], header_count=256,
                  header_limit=20.0),
    # A few minutes on 2 cores.
    "default": dict(seconds=2.0, sessions=[1, 10, 100, 1000, 10000],
                    threads=[1, 2], blocks=[4096, 16384], repetitions=1,
                    header_sessions=[1, 10, 100], header_threads=[1, 2],
                    header_count=1024, header_limit=60.0),
    # The long sweep: longer points, three repetitions (median reported).
    "full": dict(seconds=5.0, sessions=[1, 10, 100, 1000, 10000],
                 threads=[1, 2], blocks=[4096, 16384], repetitions=3,
                 header_sessions=[1, 10, 100, 1000], header_threads=[1, 2],
                 header_count=8192, header_limit=300.0),
}

LIBEVENT_NOTE = ("libevent 2.1 reads at most 4096 bytes per read call "
                 "(EVBUFFER_MAX_READ, plus a FIONREAD ioctl per read; "
                 "evbuffer_set_max_read exists only from 2.2): at 16 KiB "
                 "blocks its figure measures that cap as much as its reactor.")

HERE = os.path.dirname(os.path.abspath(__file__))
RUNFILES_ROOT = os.path.dirname(os.path.dirname(HERE))  # .../serverkit
WORKSPACE = os.environ.get("BUILD_WORKSPACE_DIRECTORY", "")

_live = []  # Popen objects still to be stopped


class SweepError(Exception):
    pass


# --- processes ----------------------------------------------------------------

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _child_setup(cpus):
    def setup():
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if cpus:
            os.sched_setaffinity(0, cpus)
    return setup


def spawn(argv, cpus, stdout, stderr):
    p = subprocess.Popen(argv, stdout=stdout, stderr=stderr,
                         stdin=subprocess.DEVNULL, start_new_session=True,
                         preexec_fn=_child_setup(cpus))
    _live.append(p)
    return p


def stop(p, grace=2.0):
    """Stops p's whole process group: SIGTERM, then SIGKILL."""
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(p.pid, signal.SIGKILL)  # stragglers in the group
    except (ProcessLookupError, PermissionError):
        pass
    try:
        p.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    if p in _live:
        _live.remove(p)


def stop_all():
    for p in list(_live):
        stop(p, grace=1.0)


def _on_signal(signum, _frame):
    raise KeyboardInterrupt("signal %d" % signum)


# --- paths ----------------------------------------------------------------------

def resolve(spec):
    """An executable for a path or a label; raises SweepError."""
    candidates = []
    if spec.startswith("//") or spec.startswith("@"):
        label = spec.split("//", 1)[1]
        pkg, _, name = label.partition(":")
        if not name:
            name = os.path.basename(pkg)
        rel = os.path.join(pkg, name)
        candidates.append(os.path.join(RUNFILES_ROOT, rel))
        if WORKSPACE:
            candidates.append(os.path.join(WORKSPACE, "bazel-bin", rel))
    elif os.path.isabs(spec):
        candidates.append(spec)
    else:
        candidates.append(os.path.join(RUNFILES_ROOT, spec))
        if WORKSPACE:
            candidates.append(os.path.join(WORKSPACE, spec))
        candidates.append(os.path.abspath(spec))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    raise SweepError("cannot find an executable for %r (looked at %s); build "
                     "it or add it to the data of //bench/pingpong:sweep"
                     % (spec, ", ".join(candidates)))


def results_dir():
    return os.path.join(WORKSPACE or os.getcwd(), "results")


def results_path(out):
    return out or os.path.join(results_dir(), "pingpong.json")


# --- one point ------------------------------------------------------------------

def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_accepting(proc, port, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.02)
    return False


def tail(path, n=5):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:]).strip()
    except OSError:
        return ""


def proc_cpu_seconds(pid):
    """utime + stime of a live process, in seconds (0 when gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class Server:
    def __init__(self, name, spec, extra):
        self.name, self.spec, self.extra = name, spec, extra
        self.path = resolve(spec)


def run_point(server, client, tmp, protocol, threads, client_threads, block,
              sessions, seconds, count, limit, pin):
    """Runs one server with one client; returns a record (dict)."""
    cores = sorted(os.sched_getaffinity(0))
    pinned = (pin == "yes" or (pin == "auto" and len(cores) >= 2 and
                               threads + client_threads <= len(cores)))
    if pinned:
        server_cpus = set(cores[len(cores) // 2:])
        client_cpus = set(cores[:len(cores) // 2])
    else:
        server_cpus = client_cpus = None
    rec = dict(server=server.name, protocol=protocol, server_threads=threads,
               client_threads=client_threads, blocksize=block,
               sessions=sessions, pinned=pinned, ok=False)
    log = os.path.join(tmp, "server-%s.log" % server.name)
    out_json = os.path.join(tmp, "client.json")
    srv = None
    for _attempt in range(3):  # a port taken between probe and bind: retry
        port = free_port()
        argv = [server.path, "127.0.0.1", str(port), str(threads),
                "--protocol=" + protocol] + server.extra
        with open(log, "w") as lf:
            srv = spawn(argv, server_cpus, lf, lf)
        if wait_accepting(srv, port):
            break
        stop(srv)
        srv = None
    if srv is None:
        rec["error"] = "server did not start: " + tail(log)
        return rec
    try:
        if os.path.exists(out_json):
            os.remove(out_json)
        cargv = [client, "127.0.0.1", str(port), str(client_threads),
                 str(block), str(sessions), str(seconds if protocol == "echo"
                                                else limit),
                 "--protocol=" + protocol, "--json=" + out_json]
        if protocol == "header":
            cargv.append("--count=%d" % count)
        connect_timeout = 10.0 + sessions / 1000.0
        budget = (seconds if protocol == "echo" else limit) + connect_timeout + 30
        server_cpu = proc_cpu_seconds(srv.pid)
        with open(os.path.join(tmp, "client.log"), "w") as cf:
            cp = spawn(cargv, client_cpus, cf, cf)
            try:
                rc = cp.wait(timeout=budget)
            except subprocess.TimeoutExpired:
                rec["error"] = "client timed out after %.0f s" % budget
                return rec
            finally:
                stop(cp)
        # Server CPU over the whole client run (connects included).
        rec["server_cpu_s"] = round(proc_cpu_seconds(srv.pid) - server_cpu, 3)
        if srv.poll() is not None:
            rec["error"] = "server exited (%s): %s" % (srv.returncode, tail(log))
        try:
            with open(out_json) as f:
                rec.update(json.load(f))
        except (OSError, ValueError):
            rec["error"] = "client wrote no JSON (rc %d): %s" % (
                rc, tail(os.path.join(tmp, "client.log")))
            return rec
        rec["client_rc"] = rc
        # The client at >= 90% of the CPU it may use: the figure may be the
        # client's limit rather than the server's (marked "c" in the tables).
        client_cores = min(client_threads,
                           len(client_cpus) if client_cpus else len(cores))
        if rec.get("seconds"):
            rec["client_cores_used"] = round(
                rec.get("client_cpu_s", 0) / rec["seconds"], 3)
            rec["client_bound"] = rec["client_cores_used"] >= 0.9 * client_cores
        rec["ok"] = rc == 0 and "error" not in rec
        if not rec["ok"] and "error" not in rec:
            rec["error"] = tail(os.path.join(tmp, "client.log"), 2)
        return rec
    finally:
        stop(srv)
        rec["server_log"] = tail(log, 10)


# --- tables ---------------------------------------------------------------------

def fmt_ratio(a, b):
    if not a or not b:
        return "-"
    return "%.2fx" % (a / b)


def median_of(records, key):
    vals = [r.get(key) for r in records if r.get("ok") and r.get(key)]
    return statistics.median(vals) if vals else None


def ratio_columns(names):
    cols = []
    for ref in REFERENCES:
        if ref not in names:
            continue
        for n in names:
            if n != ref and not (n in REFERENCES and
                                 REFERENCES.index(n) < REFERENCES.index(ref)):
                cols.append((n, ref))
    return cols


def print_table(title, rows, names, value_key, unit, extra=None):
    """rows: [(label, {name: [records]})]."""
    cols = ratio_columns(names)
    head = ["sessions"] + ["%s %s" % (n, unit) for n in names]
    if extra:
        head += ["%s %s" % (n, extra[1]) for n in names]
    head += ["%s/%s" % c for c in cols]
    table = []
    for label, per in rows:
        vals = {n: median_of(per.get(n, []), value_key) for n in names}
        line = [str(label)]
        for n in names:
            recs = per.get(n, [])
            v = vals[n]
            mark = "" if recs and all(r.get("ok") for r in recs) else " !"
            if any(r.get("client_bound") for r in recs):
                mark += " c"
            line.append(("%.1f" % v if v is not None else "fail") + mark)
        if extra:
            for n in names:
                e = median_of(per.get(n, []), extra[0])
                line.append("%.3f" % e if e is not None else "-")
        for a, b in cols:
            line.append(fmt_ratio(vals[a], vals[b]))
        table.append(line)
    widths = [max(len(r[i]) for r in [head] + table) for i in range(len(head))]
    print("\n" + title)
    print("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    for r in table:
        print("  ".join(c.rjust(w) for c, w in zip(r, widths)))


# --- main -----------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="sweep", description="Ping-pong sweep: every server, one client.")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="default")
    ap.add_argument("--server", action="append", default=[],
                    metavar="'NAME=PATH-OR-TARGET [FLAGS...]'",
                    help="add a server (repeatable); FLAGS go to that server")
    ap.add_argument("--no_peers", action="store_true",
                    help="do not run the asio and libevent peers")
    ap.add_argument("--client_threads", type=int, default=0,
                    help="client threads (default: the server's)")
    ap.add_argument("--pin", choices=["auto", "yes", "no"], default="auto")
    ap.add_argument("--seconds", type=float, default=0,
                    help="seconds per echo point (default: the profile's)")
    ap.add_argument("--no_header", action="store_true",
                    help="skip the header protocol runs")
    ap.add_argument("--out", default="", help="JSON path")
    vg = ap.add_mutually_exclusive_group()
    vg.add_argument("--validate", action="store_true",
                    help="run only the validation (no side-by-side sweep)")
    vg.add_argument("--no_validate", action="store_true",
                    help="run only the side-by-side sweep")
    ap.add_argument("--winners", default="",
                    help="winners JSON (default results/winners.json)")
    ap.add_argument("--validate_seconds", type=float, default=0,
                    help="seconds per validation run (default: the profile's)")
    ap.add_argument("--validate_repetitions", type=int, default=0,
                    help="baseline/winner pairs per case (default: the "
                         "profile's)")
    ap.add_argument("--validate_components",
                    default=",".join(validate.COMPONENTS),
                    help="comma-separated subset of %s" %
                         ",".join(validate.COMPONENTS))
    args = ap.parse_args(argv)
    comps = [c for c in args.validate_components.split(",") if c]
    bad = [c for c in comps if c not in validate.COMPONENTS]
    if bad or not comps:
        ap.error("--validate_components: unknown %s; choose from %s" % (
            ",".join(bad) or "(none)", ",".join(validate.COMPONENTS)))
    args.validate_components = comps
    return args


def run_sweep(args, prof, servers, client, soft):
    """The side-by-side sweep: runs it, prints its tables; returns
    (JSON dict, failed records, interrupted)."""
    notes = [LIBEVENT_NOTE]
    sessions = []
    for n in prof["sessions"]:
        if soft == resource.RLIM_INFINITY or n + 100 <= soft:
            sessions.append(n)
        else:
            note = ("%d sessions skipped: RLIMIT_NOFILE allows %d descriptors "
                    "per process (soft raised to the hard limit); raise the "
                    "hard limit (ulimit -Hn, as root) to run it" % (n, soft))
            notes.append(note)
            print("sweep: " + note, file=sys.stderr)

    cores = len(os.sched_getaffinity(0))
    load = os.getloadavg()[0]
    context = dict(profile=args.profile, cores=cores,
                   seconds_per_point=prof["seconds"],
                   repetitions=prof["repetitions"], fd_limit=soft,
                   loadavg_at_start=round(load, 2), pin=args.pin,
                   client_threads=args.client_threads or "server's",
                   kernel=platform.release(), header_count=prof["header_count"],
                   servers=[dict(name=s.name, path=s.path, flags=s.extra)
                            for s in servers])
    print("ping-pong sweep, profile %s: %d servers (%s), %d cores, %.1f s per "
          "echo point, %d repetition(s)" % (
              args.profile, len(servers), ", ".join(s.name for s in servers),
              cores, prof["seconds"], prof["repetitions"]))
    print("note: " + LIBEVENT_NOTE)
    if load > cores:
        note = ("load average %.1f exceeds the %d cores at start: other work "
                "shares the machine; absolute figures are noisy, read ratios" %
                (load, cores))
        notes.append(note)
        print("note: " + note)
    sys.stdout.flush()

    echo_points = [(t, b, n) for t in prof["threads"] for b in prof["blocks"]
                   for n in sessions]
    header_points = [] if args.no_header else [
        (t, n) for t in prof["header_threads"] for n in prof["header_sessions"]]
    total = (len(echo_points) + len(header_points)) * len(servers) * \
        prof["repetitions"]
    echo, header = [], []
    done = 0
    interrupted = False
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="pingpong-") as tmp:
            for rep in range(prof["repetitions"]):
                for t, b, n in echo_points:
                    for s in servers:
                        ct = args.client_threads or t
                        r = run_point(s, client, tmp, "echo", t, ct, b, n,
                                      prof["seconds"], 0, 0, args.pin)
                        r["repetition"] = rep
                        echo.append(r)
                        done += 1
                        print("[%d/%d] echo %-10s threads %d block %5d "
                              "sessions %5d: %s" % (
                                  done, total, s.name, t, b, n,
                                  "%.1f MiB/s" % r["mib_per_s"] if r["ok"]
                                  else "FAILED %s" % r.get("error", "")))
                        sys.stdout.flush()
                for t, n in header_points:
                    for s in servers:
                        ct = args.client_threads or t
                        r = run_point(s, client, tmp, "header", t, ct, 100, n,
                                      0, prof["header_count"],
                                      prof["header_limit"], args.pin)
                        r["repetition"] = rep
                        header.append(r)
                        done += 1
                        print("[%d/%d] header %-8s threads %d sessions %5d x %d:"
                              " %s" % (
                                  done, total, s.name, t, n,
                                  prof["header_count"],
                                  "%.0f messages/s, p99 session %.3f s" % (
                                      r["messages_per_s"], r["p99_session_s"])
                                  if r["ok"] else
                                  "FAILED %s" % r.get("error", "")))
                        sys.stdout.flush()
    except KeyboardInterrupt:
        interrupted = True
        print("\nsweep: interrupted; stopping servers, writing what ran",
              file=sys.stderr)
    finally:
        stop_all()

    names = [s.name for s in servers]
    for t in prof["threads"]:
        for b in prof["blocks"]:
            rows = []
            for n in sessions:
                per = {}
                for r in echo:
                    if (r["server_threads"], r["blocksize"], r["sessions"]) == \
                            (t, b, n):
                        per.setdefault(r["server"], []).append(r)
                if per:
                    rows.append((n, per))
            if rows:
                pinned = any(r["pinned"] for _, per in rows
                             for rs in per.values() for r in rs)
                print_table("echo, %d-byte blocks, server threads %d, client "
                            "threads %d%s: MiB/s" % (
                                b, t, args.client_threads or t,
                                ", pinned" if pinned else
                                ", not pinned" + (" (oversubscribed)" if
                                                  2 * t > cores else "")),
                            rows, names, "mib_per_s", "MiB/s")
    for t in prof["header_threads"]:
        rows = []
        for n in prof["header_sessions"]:
            per = {}
            for r in header:
                if (r["server_threads"], r["sessions"]) == (t, n):
                    per.setdefault(r["server"], []).append(r)
            if per:
                rows.append((n, per))
        if rows:
            print_table("header, %d messages per session, server threads %d: "
                        "messages/s, p99 session time (s)" % (
                            prof["header_count"], t),
                        rows, names, "messages_per_s", "msg/s",
                        extra=("p99_session_s", "p99 s"))
    if any(r.get("client_bound") for r in echo + header):
        print("\nc: the client used >= 90% of the CPU it had (its threads, or "
              "its pinned cores): that figure may be the client's limit rather "
              "than the server's; compare servers where neither is marked.")
    failed = [r for r in echo + header if not r.get("ok")]
    if failed:
        print("\n%d point(s) failed or ran unclean (marked !):" % len(failed))
        for r in failed[:10]:
            print("  %s %s threads %d sessions %d: %s" % (
                r["protocol"], r["server"], r["server_threads"], r["sessions"],
                r.get("error", "")))
    print("\nnote: " + LIBEVENT_NOTE)

    data = dict(context=context, notes=notes, interrupted=interrupted,
                elapsed_s=round(time.monotonic() - started, 1),
                echo=echo, header=header)
    return data, failed, interrupted


def main(argv):
    args = parse_args(argv)
    prof = dict(PROFILES[args.profile])
    if args.seconds > 0:
        prof["seconds"] = args.seconds
    # SIGINT too: a shell starts background jobs with SIGINT ignored.
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)

    try:
        client = resolve(CLIENT)
        servers = [] if args.no_peers else [Server(n, s, []) for n, s in PEERS]
        for entry in args.server:
            words = shlex.split(entry)
            if not words or "=" not in words[0]:
                raise SweepError("--server wants 'NAME=PATH-OR-TARGET [FLAGS]',"
                                 " got %r" % entry)
            name, spec = words[0].split("=", 1)
            if any(s.name == name for s in servers):
                raise SweepError("server name %r given twice" % name)
            servers.append(Server(name, spec, words[1:]))
        if not servers and not args.validate:
            raise SweepError("no servers to run")
        if not args.no_validate:
            resolve(validate_server_spec())
    except SweepError as e:
        print("sweep: %s" % e, file=sys.stderr)
        return 2

    # Descriptors: children inherit the raised soft limit.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass

    out = results_path(args.out)
    started = time.monotonic()
    interrupted = False
    failed = []
    if args.validate:
        data = previous_results(out)
    else:
        data, failed, interrupted = run_sweep(args, prof, servers, client,
                                              soft)
    vfailed = []
    if not args.no_validate and not interrupted:
        try:
            v = validate.run_validation(
                run_point, lambda name, flags: Server(
                    name, validate_server_spec(), flags),
                client, args.profile, args.pin,
                args.winners or os.path.join(results_dir(), "winners.json"),
                log_parent=os.path.dirname(os.path.abspath(out)),
                seconds=args.validate_seconds,
                repetitions=args.validate_repetitions,
                components=args.validate_components)
        finally:
            stop_all()
        validate.print_table(v)
        data["validation"] = v
        interrupted = interrupted or v.get("interrupted", False)
        vfailed = [r for r in v["rows"] if r["verdict"] == "error"]
        if vfailed:
            print("\n%d validation case(s) failed to run:" % len(vfailed))
            for r in vfailed:
                print("  %s/%s: %s" % (r["component"], r["case"], r["error"]))

    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print("results: %s (%.0f s)" % (out, time.monotonic() - started))
    if interrupted:
        return 130
    return 1 if failed or vfailed else 0


def validate_server_spec():
    return dict(PEERS)["serverkit"]


def previous_results(out):
    """The JSON already at out (the last sweep's records), so that --validate
    replaces only its "validation" key; {} when absent or unreadable."""
    try:
        with open(out) as f:
            d = json.load(f)
        return d if isinstance(d, dict) else {}
    except (OSError, ValueError):
        return {}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
