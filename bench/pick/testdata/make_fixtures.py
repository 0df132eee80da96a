#!/usr/bin/python3
# Writes the fixed result sets pick_test.py reads (Google Benchmark's JSON
# shape: repetitions, then mean/median/stddev/cv aggregates). Deterministic;
# run it again only to change the fixtures:
#   /usr/bin/python3 bench/pick/testdata/make_fixtures.py
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))


def runs(name, counters, reps, extra=None, oversub=0):
    """counters: {counter: [value per repetition]}"""
    out = []
    n = len(next(iter(counters.values())))
    base = dict(run_name=name + "/iterations:1/manual_time",
                repetitions=reps, threads=1, iterations=1, time_unit="ms")
    for i in range(n):
        b = dict(base, name=base["run_name"], run_type="iteration",
                 repetition_index=i, real_time=1.0, cpu_time=1.0,
                 oversubscribed=oversub)
        for k, v in counters.items():
            b[k] = v[i]
        b.update(extra or {})
        out.append(b)
    if n >= 2:
        for agg, f in (("mean", statistics.fmean),
                       ("median", statistics.median),
                       ("stddev", statistics.stdev),
                       ("cv", lambda xs: statistics.stdev(xs) /
                        statistics.fmean(xs))):
            b = dict(base, name=base["run_name"] + "_" + agg,
                     run_type="aggregate", aggregate_name=agg,
                     real_time=1.0, cpu_time=1.0, oversubscribed=oversub)
            for k, v in counters.items():
                b[k] = f(v)
            out.append(b)
    return out


def scale(values, k):
    return [v * k for v in values]


def write(dirname, family, benchmarks, profile="default", cores=2):
    d = os.path.join(HERE, dirname)
    os.makedirs(d, exist_ok=True)
    doc = dict(context=dict(date="2026-01-01T00:00:00+00:00", host_name="t",
                            num_cpus=cores, cores=str(cores), mhz_per_cpu=2000,
                            library_build_type="debug", profile=profile,
                            load_avg=[0.1, 0.1, 0.1], pinning="test"),
               benchmarks=benchmarks)
    with open(os.path.join(d, family + ".json"), "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


STEADY = [1.00, 1.01, 0.99, 1.02, 0.98]   # CV about 1.6%
NOISY_A = [1.00, 1.40, 0.70, 1.20, 0.80]  # overlapping, CV about 28%
NOISY_B = [0.95, 1.30, 0.75, 1.10, 0.85]

# basic/: queues with clear winners (and an SPSC queue that is fastest in the
# event loop, which the reactor must not pick), a logger noisy tie, a pool
# family with one implementation, no buffer.json, a ping-pong validation.
q = []
shapes = {(1, 1): {"bounded-mpmc": 3.0, "mutex": 1.0, "moodycamel": 2.0,
                   "spsc-ring": 2.9},
          (2, 1): {"bounded-mpmc": 2.0, "mutex": 1.0, "moodycamel": 4.0},
          (1, 2): {"bounded-mpmc": 2.5, "mutex": 1.0, "moodycamel": 2.0},
          (2, 2): {"bounded-mpmc": 2.0, "mutex": 1.0, "moodycamel": 3.0}}
for (p, c), impls in shapes.items():
    for impl, k in impls.items():
        q += runs("queues/throughput/%s/producers:%d/consumers:%d" % (impl, p, c),
                  {"items_per_second": scale(STEADY, k * 1e7)}, 5,
                  oversub=int(p + c > 2))
for impl, k in {"bounded-mpmc": 130, "mutex": 1500, "moodycamel": 370}.items():
    q += runs("queues/latency/" + impl,
              {"p50_ns": scale(STEADY, k), "p99_ns": scale(STEADY, 2 * k),
               "p999_ns": scale(STEADY, 3 * k)}, 5)
for p in (1, 2):
    for coalesce in (0, 1):
        for impl, k in {"swap-vector": 1.0, "mutex": 0.5, "moodycamel": 1.5,
                        "bounded-mpmc": 1.2, "spsc-ring": 3.0}.items():
            q += runs("queues/eventloop/%s/producers:%d/coalesce:%d" % (
                impl, p, coalesce), {"items_per_second": scale(STEADY, k * 1e7),
                                     "wakeups_per_task": [0.01] * 5}, 5,
                      oversub=int(p + 1 > 2))
write("basic", "queues", q)

lg = []
for callers in (1, 4):
    for impl, samples in (("async-queue-moodycamel", NOISY_A),
                          ("async-double-buffer", NOISY_B),
                          ("sync", STEADY)):
        k = 300 if impl == "sync" else 60
        lg += runs("logger/latency-file/%s/callers:%d/bytes:32" % (impl, callers),
                   {"p50_ns": scale(samples, k), "p99_ns": scale(samples, 9 * k),
                    "p999_ns": scale(samples, 20 * k)}, 5)
        t = 2.0 if impl == "async-double-buffer" else 1.0
        lg += runs("logger/throughput-file/%s/callers:%d/bytes:32" % (impl, callers),
                   {"items_per_second": scale(STEADY, t * 1e6)}, 5)
# A logger the server does not accept (full profile's queue loggers): fastest.
lg += runs("logger/latency-file/async-queue-tbb/callers:1/bytes:32",
           {"p50_ns": scale(STEADY, 10), "p99_ns": scale(STEADY, 90),
            "p999_ns": scale(STEADY, 200)}, 5)
lg += runs("logger/latency-file/async-queue-tbb/callers:4/bytes:32",
           {"p50_ns": scale(STEADY, 10), "p99_ns": scale(STEADY, 90),
            "p999_ns": scale(STEADY, 200)}, 5)
write("basic", "logger", lg)

tp = []
tp += runs("threadpool/tiny/asio/work_ns:0/submitters:1",
           {"items_per_second": scale(STEADY, 2e6)}, 5)
tp += runs("threadpool/fanout/asio/chunks:64",
           {"items_per_second": scale(STEADY, 2e3)}, 5)
write("basic", "threadpool", tp)

pp = dict(context=dict(profile="smoke", cores=2, seconds_per_point=0.3,
                       repetitions=1, kernel="test"),
          notes=["test note"], echo=[], header=[],
          # The shape bench/pingpong/validate.py writes (rows per case).
          validation=dict(
              repetitions=1, seconds_per_run=0.3, noise_floor=0.03, notes=[],
              rows=[
                  dict(component="task_queue", case="reply-via-queue",
                       winner="moodycamel", baseline="swap-vector",
                       micro_ratio=1.5, e2e_ratio=1.05, verdict="held"),
                  dict(component="buffer", case="echo-4k", winner="ring",
                       baseline="linear", micro_ratio=1.17, e2e_ratio=1.08,
                       verdict="held"),
                  dict(component="buffer", case="echo-16k", winner="ring",
                       baseline="linear", micro_ratio=1.17, e2e_ratio=0.95,
                       verdict="refuted"),
                  dict(component="logger", case="-", winner="sync",
                       baseline="sync", micro_ratio=None, e2e_ratio=None,
                       verdict="winner is the baseline; nothing to validate"),
              ]))
for server, k in (("serverkit", 1.1), ("asio", 1.0), ("libevent", 0.7)):
    for threads in (1, 2):
        for block in (4096, 16384):
            for sessions in (1, 10, 100):
                pp["echo"].append(dict(
                    server=server, protocol="echo", server_threads=threads,
                    client_threads=threads, blocksize=block, sessions=sessions,
                    pinned=True, ok=True, mib_per_s=k * 100 * (1 + sessions ** 0.3),
                    repetition=0))
with open(os.path.join(HERE, "basic", "pingpong.json"), "w") as f:
    json.dump(pp, f, indent=1)
    f.write("\n")

# smoke/: one repetition each (no aggregates): noise unknown; buffers only,
# with the string reference fastest in "framed".
b = []
for kept in (5, 95):
    for impl, k in {"linear": 1.0, "ring": 1.0 + kept / 100.0, "string": 0.8,
                    "mirrored": 1.0 + kept / 200.0}.items():
        b += runs("buffer/burger/%s/kept_pct:%d" % (impl, kept),
                  {"bytes_per_second": [k * 1e10]}, 1)
for size in (1024, 16384):
    for impl, k in {"linear": 1.0, "ring": 1.02, "string": 0.9,
                    "mirrored": 0.97}.items():
        b += runs("buffer/fd_echo/%s/bytes:%d" % (impl, size),
                  {"bytes_per_second": [k * size * 1e4]}, 1)
for impl, k in {"linear": 1.0, "ring": 0.8, "string": 1.5,
                "mirrored": 0.9}.items():
    b += runs("buffer/framed/%s/msg:128/read:4096" % impl,
              {"bytes_per_second": [k * 1e10], "moved_pct": [1.0]}, 1)
write("smoke", "buffer", b, profile="smoke")
print("fixtures written under", HERE)
