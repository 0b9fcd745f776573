"""Child processes that never outlive the process that started them."""

from __future__ import annotations

import contextlib
import ctypes
import signal

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """For ``preexec_fn``: if the parent is killed outright (SIGKILL), the kernel sends the
    child SIGTERM, so no server keeps running unsupervised."""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6").prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
