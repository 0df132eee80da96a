# -----------------------------------------------------------------------------
# pick/read/__init__.py
# -----------------------------------------------------------------------------
#
# pick's first stage: result files into typed records (pick/records.py).
# sweeps.py reads results/<family>.json and the end-to-end documents and
# joins a sweep's processes (--merge), validation_rows.py and
# predictions.py read pingpong.json's validation, latency_rates.py the
# latency at set rates. Importing the package loads nothing else.
