"""`family_sweep`: the `//bench:<family>` entry point of one sweep binary and its smoke test."""

def family_sweep(family, binary, smoke_size = "medium"):
    """Declares `//bench:<family>` and `//bench:<family>_smoke_test`.

    Args:
      family: the family name; the sweep's names start with it and its JSON is
        results/<family>.json.
      binary: the sweep's cc_binary label. The alias lets
        `bazel run -c opt //bench:<family>` reach a binary that lives next to
        its family's code.
      smoke_size: the smoke test's size.
    """
    native.alias(
        name = family,
        actual = binary,
        tags = ["benchmark"],
    )

    # Runs the whole sweep for a moment (--profile=smoke) and checks that it
    # exits cleanly, prints its rankings and writes its JSON.
    native.sh_test(
        name = family + "_smoke_test",
        size = smoke_size,
        srcs = ["smoke_test.sh"],
        args = [
            "$(location %s)" % binary,
            family,
        ],
        data = [binary],
    )
