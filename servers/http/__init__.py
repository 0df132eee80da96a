# -----------------------------------------------------------------------------
# servers/http/__init__.py
# -----------------------------------------------------------------------------
#
# The HTTP workload's Python: its driver under wrk (bench, run,
# context, tables, latency) with nginx's setup (nginx), wrk's output (wrk)
# and the server's per-loop connection counts (loops).
