# -----------------------------------------------------------------------------
# pick/charts/plotting.py
# -----------------------------------------------------------------------------
#
# matplotlib for the report's charts (draw.py and the modules beside it):
# Debian's python3-matplotlib, importable under /usr/bin/python3, with the
# Agg backend (no display). pyplot() imports it on first use and remembers
# it; without it, ChartsUnavailable says what to install. Also the shared
# look: a colour and marker per series, saving a figure as PNG, and the
# shading of oversubscribed thread counts.

from __future__ import annotations

import functools
import os
import sys
from typing import Any, Callable, TypedDict

INSTALL_HINT = ("install Debian's python3-matplotlib (`apt-get install "
                "python3-matplotlib`, or `make deps`) and run under "
                "/usr/bin/python3, which is where Debian's matplotlib imports")


class ChartsUnavailable(Exception):
    pass


@functools.lru_cache(maxsize=None)
def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend, imported once; raises
    ChartsUnavailable (each time) when it cannot be imported."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # ImportError, or a broken install
        raise ChartsUnavailable(
            "matplotlib is not importable under %s (%s: %s); %s" % (
                sys.executable, type(e).__name__, e, INSTALL_HINT))
    return plt


class Style(TypedDict):
    """A series' look: matplotlib's color (an RGB tuple) and marker."""

    color: Any
    marker: str


def style(i: int) -> Style:
    """The i-th series' colour and marker."""
    plt = pyplot()
    colors = plt.get_cmap("tab20").colors
    markers = "os^vD<>ph*"
    return Style(color=colors[i % len(colors)],
                 marker=markers[i % len(markers)])


def save(fig: Any, out_dir: str, name: str) -> str:
    path = os.path.join(out_dir, name)
    fig.savefig(path, dpi=110, bbox_inches="tight")
    pyplot().close(fig)
    return name


def oversub_shade(ax: Any, cores: int,
                  x_of_threads: Callable[[int], float]) -> None:
    """Shades the x range where threads exceed the cores."""
    if not cores:
        return
    lo, hi = ax.get_xlim()
    x0 = x_of_threads(cores)
    if x0 < hi:
        ax.axvspan(max(x0, lo), hi, color="0.9", zorder=0)
        ax.text(hi, ax.get_ylim()[1], " oversubscribed ", ha="right",
                va="top", fontsize=7, color="0.4")
