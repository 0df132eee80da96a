# -----------------------------------------------------------------------------
# validation/user_server.py
# -----------------------------------------------------------------------------
#
# The validation's workload for a server it did not build (kinds.py's
# "user" kind, run by whatif.py): the user's command line with {port} and
# {policy} filled, driven by the open-loop generator at the user's rate
# (//servers/loadgen), by wrk closed loop (--rate=max, HTTP), or by a load
# command of the user's that prints the units of work it completed as the
# last number of its output. The figure is the server's CPU per unit: the
# CPU of its whole process group over the load, from /proc.
#
# {policy} becomes the side's flags, one argument each (--logger=NAME,
# --log_slowdown_ns=N, ...: components/'s flags). The probe's pseudo-flags
# (--probe_site=NAME, --probe_ns=N) become the environment instead:
# SERVERKIT_PROBE=NAME:N and SERVERKIT_PROBE_OUT (probe/probe.h), whose
# "probe NAME passes N" line is appended to the server's log, where the
# control's operation count is read.

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import shutil
import subprocess
import time
from typing import Any, Callable, Optional

from servers.driver import procs
from servers.http import run as http_run

LOADGEN = "//servers/loadgen:loadgen"
PROBE_SITE, PROBE_NS = "--probe_site=", "--probe_ns="


@dataclasses.dataclass(frozen=True)
class Load:
    """How whatif drives the user's server."""
    protocol: str = "http"        # http or echo (the generator's)
    path: str = "/"               # http: the GET's path
    size: int = 64                # echo: bytes per message
    rate: float = 0.0             # requests/s; 0: closed loop (wrk, http)
    connections: int = 16
    threads: int = 1              # the generator's threads
    command: str = ""             # the user's load command ({port},
    #                               {seconds}, {rate})
    unit: str = "request"         # what one unit of work is, for people


@dataclasses.dataclass(frozen=True)
class UserServer:
    """The user's server: its command line template ({port}, {policy})."""
    template: str
    load: Load
    warmup_s: float = 0.5


def argv_of(template: str, port: int, policy: list[str]) -> list[str]:
    """The template split as a shell would, {port} filled in every word,
    and the word {policy} replaced by the policy's flags (none left where
    it is empty). Raises ValueError when the template lacks {port}."""
    if "{port}" not in template:
        raise ValueError("the server's command needs {port}: %r" % template)
    out: list[str] = []
    for word in shlex.split(template):
        if word == "{policy}":
            out.extend(policy)
        else:
            out.append(word.replace("{port}", str(port)).replace(
                "{policy}", " ".join(policy)))
    return out


def split_probe(flags: list[str]) -> tuple[list[str], Optional[str]]:
    """(the flags without the probe's, SERVERKIT_PROBE's value or None:
    the site off, without --probe_ns); the last --probe_ns wins, as a
    server's own flags do."""
    site, ns, rest = None, None, []
    for f in flags:
        if f.startswith(PROBE_SITE):
            site = f[len(PROBE_SITE):]
        elif f.startswith(PROBE_NS):
            ns = f[len(PROBE_NS):]
        else:
            rest.append(f)
    if site is None or ns is None:
        return rest, None
    return rest, "%s:%s" % (site, ns)


def last_number(text: str) -> Optional[float]:
    """The last number in a load command's output: the units it
    completed."""
    found = re.findall(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", text)
    return float(found[-1]) if found else None


def cores_apart(pin: str) -> tuple[Optional[set[int]], Optional[set[int]]]:
    """(server cores, load cores): apart wherever there are two and pin is
    not "no"; the load on the first core, the server on the rest."""
    cores = sorted(os.sched_getaffinity(0))
    if pin == "no" or len(cores) < 2:
        return None, None
    return set(cores[1:]), {cores[0]}


def _on(cpus: Optional[set[int]]) -> Optional[Callable[[], None]]:
    """The load's child setup: its cores, where pinned."""
    if cpus is None:
        return None
    only = set(cpus)
    return lambda: os.sched_setaffinity(0, only)


def _generator(s: UserServer, port: int, seconds: float,
               cpus: Optional[set[int]], tmp: str) -> dict[str, Any]:
    """One run of the open-loop generator: its JSON, with ok and error."""
    out = os.path.join(tmp, "loadgen.json")
    ld = s.load
    argv = [procs.resolve(LOADGEN), "--protocol=" + ld.protocol,
            "--port=%d" % port, "--rate=%g" % ld.rate,
            "--connections=%d" % ld.connections,
            "--threads=%d" % ld.threads, "--duration=%g" % seconds,
            "--warmup=%g" % s.warmup_s, "--json=" + out]
    argv += (["--path=" + ld.path] if ld.protocol == "http" else
             ["--size=%d" % ld.size])
    p = subprocess.run(argv, capture_output=True, text=True,
                       timeout=seconds + s.warmup_s + 30,
                       preexec_fn=_on(cpus))
    try:
        with open(out) as f:
            r: dict[str, Any] = json.load(f)
    except (OSError, ValueError):
        return dict(ok=False, error="the generator wrote no result (exit "
                    "%d): %s" % (p.returncode, p.stderr.strip()[-300:]))
    # A void run (the generator fell behind its own schedule) still
    # measures the server's CPU per reply; errors or lost replies do not.
    bad = r.get("errors") or r.get("unanswered") or p.returncode not in (0, 3)
    r["ok"] = not bad and bool(r.get("completed"))
    if not r["ok"]:
        r["error"] = "the generator: exit %d, %s errors, %s unanswered %s" % (
            p.returncode, r.get("errors"), r.get("unanswered"),
            r.get("error") or p.stderr.strip()[-200:])
    r["units"] = r.get("completed") or 0
    r["measured_s"] = float(r.get("duration_s") or seconds)
    r["load_s"] = r["measured_s"] + s.warmup_s
    r["client_bound"] = True  # the generator sets the pace
    return r


def _command(s: UserServer, port: int, seconds: float,
             cpus: Optional[set[int]]) -> dict[str, Any]:
    """One run of the user's load command; its last number is the units."""
    argv = shlex.split(s.load.command.replace("{port}", str(port)).replace(
        "{seconds}", "%g" % seconds).replace("{rate}", "%g" % s.load.rate))
    t0 = time.monotonic()
    try:
        p = subprocess.run(argv, capture_output=True, text=True,
                           timeout=max(60.0, 10 * seconds),
                           preexec_fn=_on(cpus))
    except (OSError, subprocess.TimeoutExpired) as e:
        return dict(ok=False, error="the load command: %s" % e)
    took = time.monotonic() - t0
    units = last_number(p.stdout)
    ok = p.returncode == 0 and bool(units) and units is not None and units > 0
    return dict(ok=ok, units=units or 0, measured_s=took, load_s=took,
                client_bound=True,
                error="" if ok else "the load command: exit %d, output %r" % (
                    p.returncode, (p.stdout + p.stderr).strip()[-200:]))


def _wrk(s: UserServer, port: int, seconds: float,
         cpus: Optional[set[int]]) -> dict[str, Any]:
    """Closed loop (--rate=max): wrk's requests over its run."""
    wrk = shutil.which("wrk") or "/usr/bin/wrk"
    argv = [wrk, "-t%d" % s.load.threads, "-c%d" % s.load.connections,
            "-d%ds" % max(1, round(seconds)),
            "http://127.0.0.1:%d%s" % (port, s.load.path)]
    p = subprocess.run(argv, capture_output=True, text=True,
                       timeout=seconds + 30,
                       preexec_fn=_on(cpus))
    m = re.search(r"(\d+) requests in ([\d.]+)(m?s)", p.stdout)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", p.stdout)
    if p.returncode or not m or bad:
        return dict(ok=False, error="wrk: exit %d %s" % (
            p.returncode, (p.stdout + p.stderr).strip()[-200:]))
    took = float(m.group(2)) / (1000.0 if m.group(3) == "ms" else 1.0)
    return dict(ok=True, units=int(m.group(1)), measured_s=took,
                load_s=took, client_bound=False)


def run(s: UserServer, flags: list[str], pin: str, seconds: float,
        tmp: str) -> dict[str, Any]:
    """One run of the user's server with `flags` as its {policy}: a kinds
    record (ok, error, value: units/s, cpu_per_unit, client_bound, the
    cores, server_cpu_s, server_log with the stop line, raw)."""
    server_cpus, load_cpus = cores_apart(pin)
    cores = sorted(os.sched_getaffinity(0))
    policy, probe = split_probe(flags)
    log = os.path.join(tmp, "user-server.log")
    probe_out = os.path.join(tmp, "probe.out")
    rec: dict[str, Any] = dict(
        ok=False, error="", value=None, cpu_per_unit=None,
        client_bound=True, server_cpu_s=None, server_log="",
        server_cpus=procs.cpu_list(server_cpus, cores),
        client_cpus=procs.cpu_list(load_cpus, cores), raw={})
    for _attempt in range(3):  # a port taken between probe and bind
        port = procs.free_port()
        argv = argv_of(s.template, port, policy)
        if probe is not None:
            if os.path.exists(probe_out):
                os.remove(probe_out)
            argv = ["env", "SERVERKIT_PROBE=" + probe,
                    "SERVERKIT_PROBE_OUT=" + probe_out] + argv
        with open(log, "w") as lf:
            srv = procs.spawn(argv, server_cpus, lf, lf)
        if procs.wait_accepting(srv, port):
            break
        procs.stop(srv)
    else:
        rec["error"] = "the server did not start: " + procs.tail(log, 10)
        return rec
    try:
        before = http_run.group_cpu_seconds(srv.pid)
        t0 = time.monotonic()
        if s.load.command:
            r = _command(s, port, seconds, load_cpus)
        elif s.load.rate > 0:
            r = _generator(s, port, seconds, load_cpus, tmp)
        else:
            r = _wrk(s, port, seconds, load_cpus)
        wall = time.monotonic() - t0
        cpu = http_run.group_cpu_seconds(srv.pid) - before
    finally:
        procs.stop(srv)
    text = procs.tail(log, 40)
    if probe is not None:
        text += "\n" + procs.tail(probe_out, 40)
    units = float(r.get("units") or 0)
    rec.update(ok=bool(r.get("ok")) and units > 0, error=r.get("error", ""),
               client_bound=bool(r.get("client_bound")), server_log=text,
               server_cpu_s=cpu, raw=dict(r, wall_s=round(wall, 3)))
    if rec["ok"]:
        # The generator counts replies after its warm-up; the server's CPU
        # covers the warm-up too, at the same rate.
        rate = units / float(r.get("measured_s") or wall)
        rec["value"] = rate
        load_s = float(r.get("load_s") or wall)
        rec["cpu_per_unit"] = cpu / (rate * load_s) if cpu > 0 else None
        rec["ok"] = rec["cpu_per_unit"] is not None
        if not rec["ok"]:
            rec["error"] = "no CPU measured for the server's process group"
    return rec
