# -----------------------------------------------------------------------------
# servers/chat/__init__.py
# -----------------------------------------------------------------------------
#
# The chat broadcast workload's Python: its driver (bench, run, tables),
# the wire format (codec) and the test clients (clients).
