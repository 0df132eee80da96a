# -----------------------------------------------------------------------------
# pick/identity.py
# -----------------------------------------------------------------------------
#
# Which sweep run a confirmation file confirms. bench.sh's confirmation
# passes --benchmark_context=confirms=ID (confirm.py), and Google Benchmark
# writes it into the file's context; results.py attaches the confirmation
# only to the sweep file whose identity is ID. A hash of the file's bytes:
# a copy (cp -r, new file times) keeps it, a new sweep changes it.
#
# Standard library only.

from __future__ import annotations

import hashlib
import os
from typing import Any, Optional

# The context key that carries the identity.
CONFIRMS = "confirms"


def run_identity(path: str) -> str:
    """The sweep file's identity: the first 16 hex digits of the SHA-256
    of its bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def mismatch(family: str, sweep: str, confirm: str, claims: Any
             ) -> Optional[str]:
    """Why the confirmation file `confirm` (whose context says it confirms
    `claims`) does not confirm the sweep file `sweep`, or None when it
    does. A file written before the identity falls back to file times."""
    if isinstance(claims, str) and claims:
        mine = run_identity(sweep)
        if claims == mine:
            return None
        return ("confirm/%s.json confirms another sweep run (%s; %s.json is "
                "%s)" % (family, claims, family, mine))
    if os.path.getmtime(confirm) < os.path.getmtime(sweep):
        return ("confirm/%s.json names no sweep run and is older than "
                "%s.json" % (family, family))
    return None
