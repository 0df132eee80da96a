# -----------------------------------------------------------------------------
# servers/driver/__init__.py
# -----------------------------------------------------------------------------
#
# What every server driver shares: processes and their CPU (procs), the
# side-by-side pairing and its reading against the margin (side_by_side),
# latency at set rates through the open-loop generator (latency_point,
# latency_sweep), and the io_uring tests' skip (uring_skip). Imported as
# `from servers.driver import procs`; above pick, below every server.
