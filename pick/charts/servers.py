# -----------------------------------------------------------------------------
# pick/charts/servers.py
# -----------------------------------------------------------------------------
#
# The charts of the two server workloads beside the ping-pong (draw.py
# draws them with the others):
#
#   chat.png  the broadcast round time (until all K clients have the message,
#             median) by K, ours and Asio, one panel per server thread count
#   http.png  requests/s under wrk per server, access log off and on, one
#             group per connection count

from __future__ import annotations

import statistics
from typing import Optional, TypeVar

from pick.charts.plotting import pyplot, save, style
from pick.records import ChatDoc, ChatPoint, HttpDoc, HttpPoint
from pick.records import PingpongDoc

# A chat or HTTP point.
Record = TypeVar("Record", ChatPoint, HttpPoint)


def _ok(points: list[Record], key: str) -> list[Record]:
    return [r for r in points if r.get("ok") and r.get(key)]


def chat_chart(chat: Optional[ChatDoc], out_dir: str
               ) -> Optional[str]:
    plt = pyplot()
    points = _ok((chat or {}).get("points", []), "round_ms")
    if not points:
        return None
    threads = sorted({r["threads"] for r in points})
    servers = sorted({r["server"] for r in points},
                     key=lambda s: (s != "serverkit", s))
    fig, axes = plt.subplots(1, len(threads), figsize=(4.4 * len(threads), 4),
                             sharey=True, squeeze=False)
    for ax, t in zip(axes[0], threads):
        for i, s in enumerate(servers):
            per: dict[int, list[float]] = {}
            for r in points:
                if (r["server"], r["threads"]) == (s, t):
                    per.setdefault(r["clients"], []).append(
                        r["round_ms"]["p50"])
            xs = sorted(per)
            ax.plot(xs, [statistics.median(per[x]) for x in xs], label=s,
                    linewidth=1.6, **style(i))
        ax.set_xscale("log")
        ax.set_xlabel("clients (K)")
        ax.set_title("%d server thread%s" % (t, "" if t == 1 else "s"),
                     fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("ms until all K have it (median)")
    axes[0][-1].legend(fontsize=8)
    ctx = (chat or {}).get("context", {})
    fig.suptitle("Chat broadcast round time (%s profile, %s cores; lower is "
                 "better)" % (ctx.get("profile", "?"), ctx.get("cores", "?")),
                 fontsize=11)
    fig.tight_layout()
    return save(fig, out_dir, "chat.png")


def http_chart(http: Optional[HttpDoc], out_dir: str
               ) -> Optional[str]:
    plt = pyplot()
    import numpy as np
    points = _ok((http or {}).get("points", []), "requests_per_s")
    if not points:
        return None
    order = ["serverkit", "nginx", "beast", "evhttp", "serverkit-log",
             "nginx-log"]
    servers = sorted({r["server"] for r in points},
                     key=lambda s: (order.index(s) if s in order
                                    else len(order), s))
    groups = sorted({(r["threads"], r["connections"]) for r in points})
    x = np.arange(len(groups))
    width = 0.8 / len(servers)
    fig, ax = plt.subplots(figsize=(max(5.0, 2.6 * len(groups)), 4))
    for i, s in enumerate(servers):
        ys = []
        for g in groups:
            vals = [r["requests_per_s"] for r in points
                    if (r["server"], r["threads"], r["connections"]) ==
                    (s,) + g]
            ys.append(statistics.median(vals) if vals else 0.0)
        look = style(i)
        ax.bar(x - 0.4 + width * (i + 0.5), ys, width, label=s,
               color=look.get("color"),
               hatch="//" if s.endswith("-log") else None)
    ax.set_xticks(x)
    labels = ["%d thread%s, %d conns" % (t, "" if t == 1 else "s", c)
              for t, c in groups]
    ax.set_xticklabels(labels, fontsize=8)
    ax.set_ylabel("requests/s (median)")
    ctx = (http or {}).get("context", {})
    ax.set_title("HTTP GET under wrk (%s profile, %s cores; hatched: access "
                 "log on)" % (ctx.get("profile", "?"), ctx.get("cores", "?")),
                 fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    return save(fig, out_dir, "http.png")


# pingpong.png: echo MiB/s of our server, Asio and libevent by sessions, one
# panel per server thread count and block size (pingpong.json's "echo").

SERVER_STYLES = {
    "serverkit": dict(color="black", marker="o"),
    "asio": dict(color="#dd8452", marker="s", linestyle="--"),
    "libevent": dict(color="#55a868", marker="^", linestyle="--"),
}


def pingpong_chart(pp: Optional[PingpongDoc], out_dir: str
                   ) -> Optional[str]:
    plt = pyplot()
    echo = [r for r in (pp or {}).get("echo", []) if r.get("ok") and
            r.get("mib_per_s")]
    if not echo:
        return None
    combos = sorted({(r["server_threads"], r["blocksize"]) for r in echo})
    servers: list[str] = []
    for r in echo:
        if r["server"] not in servers:
            servers.append(r["server"])
    # Ours first, then the peers, then validation variants.
    servers.sort(key=lambda s: (s not in ("serverkit",),
                                s not in ("asio", "libevent"), s))
    fig, axes = plt.subplots(1, len(combos), figsize=(4.4 * len(combos), 4),
                             sharey=True, squeeze=False)
    for ax, (t, b) in zip(axes[0], combos):
        for i, s in enumerate(servers):
            look = dict(SERVER_STYLES.get(s) or style(i + 3))
            pts: dict[int, list[float]] = {}
            for r in echo:
                if (r["server"], r["server_threads"], r["blocksize"]) == \
                        (s, t, b):
                    pts.setdefault(r["sessions"], []).append(r["mib_per_s"])
            if not pts:
                continue
            xs = sorted(pts)
            ax.plot(xs, [statistics.median(pts[x]) for x in xs], label=s,
                    linewidth=1.6, **look)
        ax.set_xscale("log")
        ax.set_xlabel("sessions")
        ax.set_title("%d thread%s, %d KiB blocks" % (t, "" if t == 1 else "s",
                                                     b // 1024), fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("MiB/s (echo, median)")
    axes[0][-1].legend(fontsize=8)
    ctx = (pp or {}).get("context", {})
    fig.suptitle("Ping-pong echo throughput (%s profile, %s cores)" % (
        ctx.get("profile", "?"), ctx.get("cores", "?")), fontsize=11)
    fig.tight_layout()
    return save(fig, out_dir, "pingpong.png")
