# -----------------------------------------------------------------------------
# servers/soak/__init__.py
# -----------------------------------------------------------------------------
#
# The soak: every server under normal and hostile clients for minutes
# (soak), its clients (normal, hostile, wire), processes
# (servers.driver.procs), trends (trend) and report (report).
