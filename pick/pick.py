#!/usr/bin/python3
# -----------------------------------------------------------------------------
# pick/pick.py
# -----------------------------------------------------------------------------
#
# From sweeps to a choice: `bazel run //bench:pick`.
#
#   bazel run //bench:pick -- [--results=DIR] [--out=DIR]
#       [--producers=N] [--consumers=N] [--payload=BYTES] [--latency-bound]
#       [--alpha=0.05] [--margin=0.05] [--drift-threshold=0.2]
#       [--no-charts]
#   bazel run //bench:pick -- --confirm-filter FAMILY
#   bazel run //bench:pick -- --compare DIR_A DIR_B
#   bazel run //bench:pick -- --repro RUN1.json RUN2.json
#   bazel run //bench:pick -- --merge OUT.json PART1.json ... PARTN.json
#
# The entry point that //pick:pick (through //build:python3.sh),
# bench/sweep.sh, `make compare` and the tests run (/usr/bin/python3
# pick/pick.py ...); the flags and exit statuses are cli.py's. Nothing
# imports this file, so run as a script it is loaded once.
#
# The modules, in layers: each imports only modules of the layers below it
# (//build:python_layers_test checks the imports), bottom first:
#
#   records, outcome, margin,    Cell, Rule, FloorSummary, group names;
#   shapes, identity             the validation's outcome vocabulary; the
#                                words an interval supports against a
#                                margin (ahead, equivalent, ...); the
#                                JSON read, typed (TypedDict): a result
#                                file's context, pingpong.json and its
#                                validation rows, chat.json, http.json, and
#                                their readers; identity, the sweep run a
#                                confirmation confirms (standard library)
#   results, decisions           result files -> FamilyResults (the records
#                                read through it); what pick decides, typed:
#                                ClassPick, Picked (standard library only)
#   merge, spec, stats,          --merge; the workload classes; U-test,
#   validation, paired, confirm, noise and drift; pingpong.json's validation;
#   prediction                   paired rounds' median, interval, sign test;
#                                the confirmation's filter; the validation's
#                                predictions and load map, read tolerantly
#   rounds, latency_doc          a class decided from paired rounds, with
#                                its host states; http.json's and
#                                pingpong.json's latency at set rates,
#                                read tolerantly
#   picking, tables, markdown,   one class decided; the recommendation
#   charts.plotting,             table; Markdown and matplotlib helpers;
#   server_answer                what to put in a server, per component
#                                and workload, from the strongest evidence
#   winners, compare, repro,     pick_all, reactor policy, winners.json's
#   calibration,                 document; --compare; --repro; the
#   report.recommendation,       decision rule's error rates; REPORT.md's
#   report.answer,               sections over the files (the answer; the
#   report.families,             words under
#   report.pingpong,             the table; the details per family; the
#   report.validation,           ping-pong, validation, chat and HTTP,
#   report.servers,              predict-then-check and set-rate latency
#   report.predict,              ones); the micro-benchmark, ping-pong,
#   report.latency, charts.micro validation, server-workload, load-map and
#   charts.pingpong,             set-rate latency charts
#   charts.validation,
#   charts.servers,
#   charts.predict,
#   charts.latency
#   analysis                     the one value every output reads: the
#                                settings, workload, files and decisions
#   reporter, report.provenance  the reporters' interface; REPORT.md's
#                                machine and commands
#   winners_file,                the reporters: winners.json, REPORT.md,
#   report.document,             every chart, the console summary
#   charts.draw, console
#   cli, charts.__main__         argparse and main(); the charts alone
#   pick                         this entry point

import importlib.util
import os
import sys
import types


def package() -> types.ModuleType:
    """The package this file belongs to, `pick` (the directory it is in, as
    its path reads: in the runfiles tree under Bazel), imported. Run by its
    path, this file's directory comes first on the import path, where the
    name `pick` is this file; the package is loaded from its location
    instead (the import path is left as it is), and its modules are then
    imported as `pick.NAME`."""
    loaded = sys.modules.get("pick")
    if loaded is not None and hasattr(loaded, "__path__"):
        return loaded
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "pick", os.path.join(here, "__init__.py"),
        submodule_search_locations=[here])
    assert spec is not None and spec.loader is not None, here
    module = importlib.util.module_from_spec(spec)
    sys.modules["pick"] = module
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    package()
    from pick import cli
    sys.exit(cli.main(sys.argv[1:]))
