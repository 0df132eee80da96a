# -----------------------------------------------------------------------------
# validation/__init__.py
# -----------------------------------------------------------------------------
#
# The end-to-end validation: does a component's choice matter inside our
# servers? Its cases and winners (cases), workloads (kinds), rounds (rounds),
# verdict (decide), predictions and load map (model, micro, predict,
# loadmap), words (report), the whole run (run), its calibration
# (calibration), and the ping-pong command that runs the sweep then the
# validation (pingpong: //bench:pingpong). Above servers and pick.
