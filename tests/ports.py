"""Loopback ports for the servers the tests start (SMTP, OpenID provider, the product)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def silent_server() -> Iterator[int]:
    """A loopback port that accepts connections and never answers: a frozen server, or one
    behind a network that drops packets."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield listener.getsockname()[1]


def wait_for_port(
    port: int, process: subprocess.Popen[bytes], what: str, timeout: float = 30
) -> None:
    """Until ``process`` listens on ``port``; its last words if it stops first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            error = process.stderr.read().decode()[-800:] if process.stderr else ""
            raise RuntimeError(f"{what} stopped: {error}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"{what} did not start listening on {port}")
