# -----------------------------------------------------------------------------
# pick/charts/pingpong.py
# -----------------------------------------------------------------------------
#
# pingpong.png: echo MiB/s of our server, Asio and libevent by sessions, one
# panel per server thread count and block size (pingpong.json's "echo").

from __future__ import annotations

import statistics
from typing import Optional

from pick.charts.plotting import pyplot, save, style
from pick.shapes import PingpongDoc


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
