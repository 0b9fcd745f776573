"""Child processes that never outlive the process that started them.

``python -m runtime.processes COMMAND …`` runs COMMAND (exec'd, so it is the same process)
with that promise: supervisord starts the product's processes through it, so a supervisord
killed outright takes them with it instead of leaving them unsupervised."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """For ``preexec_fn``: if the parent is killed outright (SIGKILL), the kernel sends the
    child SIGTERM, so no server keeps running unsupervised. Kept across exec."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6").prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def main(command: list[str]) -> None:
    die_with_parent()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
