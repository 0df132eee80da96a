"""serverkit_fuzz: one fuzz target, its replay test and its planted-bug mutant.

For `serverkit_fuzz(name = "x_fuzz", srcs = ["x_fuzz.cc"], deps = [...])` in
package P, with the corpus in P/fuzz/x_fuzz/ (seeds/: made by the project;
regressions/: inputs that once failed) and an optional dictionary
P/fuzz/x_fuzz.dict:
  - x_fuzz: the libFuzzer binary (tags manual, fuzz_target), built by
    tools/fuzz.sh with --config=fuzz (clang, ASan, UBSan);
  - x_fuzz_mutant: the same source with SERVERKIT_FUZZ_MUTANT defined, which
    plants one bug that the target's oracle must catch (tags manual,
    fuzz_mutant);
  - x_fuzz_replay: a cc_test that runs every corpus input once, under any
    compiler (make test, and the sanitizer configs in CI).

A target with more than one planted bug passes `mutants`, a dict from a
suffix to a define: `mutants = {"long_line": "X_LONG_LINE"}` builds
x_fuzz_mutant_long_line with SERVERKIT_FUZZ_MUTANT and X_LONG_LINE defined,
in place of the single x_fuzz_mutant (tools/fuzz.sh runs each and finds the
corpus by the name before "_mutant").
"""

load("//build:copts.bzl", "TEST_COPTS")

def serverkit_fuzz(name, srcs, deps = [], mutants = {}):
    corpus = "fuzz/" + name
    variants = [("", [])]
    if mutants:
        for suffix, define in sorted(mutants.items()):
            variants.append(("_mutant_" + suffix, ["SERVERKIT_FUZZ_MUTANT", define]))
    else:
        variants.append(("_mutant", ["SERVERKIT_FUZZ_MUTANT"]))
    for suffix, defines in variants:
        native.cc_library(
            name = name + suffix + "_lib",
            testonly = True,
            srcs = srcs,
            copts = TEST_COPTS,
            local_defines = defines,
            deps = deps + ["//build/fuzz"],
            alwayslink = 1,
        )
        native.cc_binary(
            name = name + suffix,
            testonly = True,
            tags = ["manual", "fuzz_target" if suffix == "" else "fuzz_mutant"],
            deps = [":" + name + suffix + "_lib"],
        )
    native.cc_test(
        name = name + "_replay",
        size = "small",
        args = [native.package_name() + "/" + corpus],
        data = native.glob([corpus + "/**"]),
        deps = [
            ":" + name + "_lib",
            "//build/fuzz:replay_main",
        ],
    )
