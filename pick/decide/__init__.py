# -----------------------------------------------------------------------------
# pick/decide/__init__.py
# -----------------------------------------------------------------------------
#
# pick's second stage, over what read/ gives: the workload classes
# (workloads.py), the statistics (stats.py, paired.py), a class decided
# (ranking.py; paired_rounds.py, with the confirmation plan), every family
# and the reactor policy (winners.py), what to put in a server
# (server_answer.py), and the rules' error rates (error_rates.py).
# Importing the package loads nothing else.
