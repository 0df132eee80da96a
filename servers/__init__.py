# -----------------------------------------------------------------------------
# servers/__init__.py
# -----------------------------------------------------------------------------
#
# servers/ as the package `servers`: one subpackage per workload (pingpong,
# chat, http, loadgen, soak) on the shared drivers' helpers (servers.driver).
# No sibling imports another; build/python_layers.py checks the order.
