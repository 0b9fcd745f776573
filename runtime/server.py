"""The web server of `make run` and of the container: granian serving portality.asgi.

    python -m runtime.server                    # WEB_BIND (127.0.0.1) and PORT (8000)
    python -m runtime.server --bind 0.0.0.0 --port 8000

Why granian (docs/architecture.md): its HTTP/1 and HTTP/2 come from Rust's hyper; it
holds each connection in its event loop for the cost of a few kilobytes and closes one whose
headers do not arrive within ``WEB_HEADER_TIMEOUT``; it bounds the requests each worker
takes at once (``WEB_MAX_REQUESTS``) and restarts a worker that dies. What it cannot know —
who may send a large body, how fast a body must arrive, how much one client may hold — is in
the edge middleware (runtime/edge.py) around Django's ASGI application.
"""

from __future__ import annotations

import argparse
import resource
import sys

from granian.constants import HTTPModes, Interfaces
from granian.http import HTTP1Settings
from granian.server.mp import MPServer

from portality.env import env_float, env_int, env_str

APPLICATION = "portality.asgi:application"
# hyper's header buffer (its minimum is 8 KB): request line and headers larger than this
# are refused (431).
HEADER_MAX_BYTES = 64 * 1024


def build(bind: str, port: int) -> MPServer:
    header_timeout = env_float("WEB_HEADER_TIMEOUT", 10.0)
    # The multi-process server: one Python interpreter (and GIL) per worker.
    return MPServer(
        APPLICATION,
        address=bind,
        port=port,
        interface=Interfaces.ASGI,
        http=HTTPModes.auto,
        websockets=False,
        workers=env_int("WEB_WORKERS", 2, minimum=1),
        # Requests a worker holds at once, including those still sending their body or
        # waiting for one of the edge's slots (a coroutine each, not a thread).
        backpressure=env_int("WEB_MAX_REQUESTS", 1000, minimum=1),
        backlog=env_int("WEB_BACKLOG", 2048, minimum=128),
        http1_settings=HTTP1Settings(
            header_read_timeout=int(header_timeout * 1000),
            keep_alive=True,
            max_buffer_size=HEADER_MAX_BYTES,
        ),
        log_access=True,
        respawn_failed_workers=True,
        respawn_interval=1.0,
        workers_kill_timeout=30,
    )


def raise_open_files_limit() -> None:
    """Every open connection is a file descriptor: use all the system allows this user."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard and hard != resource.RLIM_INFINITY:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--bind", default=env_str("WEB_BIND", "127.0.0.1"), help="address")
    parser.add_argument("--port", type=int, default=env_int("PORT", 8000, minimum=1))
    args = parser.parse_args()
    raise_open_files_limit()
    build(args.bind, args.port).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
