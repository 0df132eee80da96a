#!/usr/bin/python3
# -----------------------------------------------------------------------------
# servers/chat/chat_uring_sq_full_test.py
# -----------------------------------------------------------------------------
#
# chat_uring_test.py with every third io_uring submission entry the server
# asks for missing (SERVERKIT_URING_TEST_SQE_FAIL_EVERY=3,
# reactor/poller/uring_poller.h), as when the kernel does not take the queue:
# every client must still get every message. Same arguments.

import os
import runpy

if __name__ == "__main__":
    os.environ["SERVERKIT_URING_TEST_SQE_FAIL_EVERY"] = "3"
    runpy.run_module("servers.chat.chat_uring_test", run_name="__main__",
                     alter_sys=True)
