# -----------------------------------------------------------------------------
# pick/ranks.py
# -----------------------------------------------------------------------------
#
# Mid-ranks for the rank tests: pick's U-test (stats.utest) and the
# validation's signed-rank test (pick/paired/signed_rank.py), which
# imports it as pick.ranks. At pick's bottom layer, standard library only.

from __future__ import annotations

from typing import Sequence


def doubled_midranks(values: Sequence[float]) -> list[int]:
    """Twice the 1-based mid-ranks of values, in their order: integers, so
    that ties need no fractions (a tie of ranks 2 and 3 gets 5 each)."""
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == \
                values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = i + j + 2
        i = j + 1
    return out
