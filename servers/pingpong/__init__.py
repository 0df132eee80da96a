# -----------------------------------------------------------------------------
# servers/pingpong/__init__.py
# -----------------------------------------------------------------------------
#
# The ping-pong workload's Python: the side-by-side sweep (sweep), its
# tables and paired summary (tables, summary), the cost of one echoed block
# (msgcost, perf_output) and the servers' tests. The command that runs the
# sweep and then the validation is validation/pingpong.py.
