"""serverkit's external repositories, for its own WORKSPACE and for yours.

A workspace that uses serverkit declares it and calls one macro:

    local_repository(name = "serverkit", path = "/path/to/serverkit")
    load("@serverkit//:repositories.bzl", "serverkit_dependencies")
    serverkit_dependencies()

It declares the three stand-ins that Bazel 4 asks for even offline
(@rules_cc, @rules_java, @remote_coverage_tools, from third_party/) and
Debian's packages as repositories over /usr, with labels that resolve
from any workspace. A repository that the workspace already declares is
left as it is.
"""

# Debian's packages, wired over /usr (see third_party/*.BUILD; the package
# that provides each one is named there and in tools/install_deps.sh).
DEBIAN = [
    "asio",
    "atomic_queue",
    "benchmark",
    "boost",
    "boost_log",
    "concurrentqueue",
    "fmt",
    "gtest",
    "http_parser",
    "libevent",
    "liburing",
    "readerwriterqueue",
    "spdlog",
    "tbb",
    "thread_pool",
]

STAND_INS = ["rules_cc", "rules_java", "remote_coverage_tools"]

def _stand_in_impl(rctx):
    # third_party/<name>/ of whichever checkout holds this file.
    top = rctx.path(Label("//third_party:BUILD")).dirname
    src = top.get_child(rctx.attr.folder)
    for child in src.readdir():
        rctx.symlink(child, child.basename)

_stand_in = repository_rule(
    implementation = _stand_in_impl,
    attrs = {"folder": attr.string(mandatory = True)},
    local = True,
)

def serverkit_dependencies():
    """Declares every repository serverkit's targets need."""
    for name in STAND_INS:
        if name not in native.existing_rules():
            _stand_in(name = name, folder = name)
    for name in DEBIAN:
        if name not in native.existing_rules():
            native.new_local_repository(
                name = name,
                build_file = str(Label("//third_party:%s.BUILD" % name)),
                path = "/usr",
            )
