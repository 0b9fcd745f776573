"""The web server of `make run` and of the container: gunicorn behind a front door of ours.

gunicorn's threads read a request's headers and body with blocking calls, so a client that
sends half a request and waits holds a thread for as long as it likes: sixteen such sockets
froze every request. The front door is an asyncio server (a coroutine per connection costs
a few kilobytes, not a thread) that reads each request completely, within deadlines and
size limits, and only then hands it to gunicorn over a unix socket, one request per
connection. Responses stream back as they come (chat answers are Server-Sent Events).

    python -m portality.web --bind 127.0.0.1:8000 --socket var/run/web.sock

Limits (README, "Security"): headers within WEB_HEADER_TIMEOUT seconds and 32 KB; a body at
no less than WEB_BODY_MIN_RATE_KB per second and no larger than the upload limit plus 1 MB
(a larger one is answered 413 before it is read); at most WEB_MAX_CONNECTIONS open at once
(503 beyond).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from portality.env import env_float, env_int
from portality.processes import die_with_parent

HEADER_MAX_BYTES = 32 * 1024
_HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "expect",
    "content-length",
    # What the front door says about the client replaces anything the client claims.
    "x-forwarded-for",
    "x-forwarded-proto",
    "x-real-ip",
}
_REASONS = {
    400: "Bad Request",
    408: "Request Timeout",
    411: "Length Required",
    413: "Content Too Large",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class Limits:
    header_timeout: float = 10.0
    body_max_bytes: int = 51 * 1024 * 1024
    body_min_rate: int = 50 * 1024  # bytes per second
    body_base_timeout: float = 15.0
    max_connections: int = 1000
    response_idle_timeout: float = 600.0  # between two pieces of an answer (LLM streams pause)
    response_buffer_bytes: int = 16 * 1024 * 1024
    # Requests handed to gunicorn at once (0: no limit). The rest wait here, where waiting
    # is cheap; gunicorn keeps threads free for /healthz, which never waits (a monitor must
    # hear "up" while the product is busy, not time out behind a burst of searches).
    upstream_slots: int = 0


class ClientError(Exception):
    """A request the front door refuses; the status and sentence go back as JSON."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


@dataclass
class Request:
    head: bytes  # request line and headers, rewritten for the upstream
    body: bytes


class FrontDoor:
    def __init__(self, upstream: str, limits: Limits) -> None:
        self.upstream = upstream
        self.limits = limits
        self.open_connections = 0
        self.slots = asyncio.Semaphore(limits.upstream_slots) if limits.upstream_slots else None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open_connections += 1
        try:
            if self.open_connections > self.limits.max_connections:
                raise ClientError(503, "The server is busy; try again in a moment.")
            request = await self._read_request(reader, writer)
            if self.slots is None or request.head.startswith(b"GET /healthz "):
                await self._forward(request, writer)
            else:
                async with self.slots:
                    await self._forward(request, writer)
        except ClientError as error:
            await _answer(writer, error.status, error.detail)
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass  # the client left or stalled: nothing to answer to
        finally:
            self.open_connections -= 1
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _read_request(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> Request:
        try:
            raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.limits.header_timeout)
        except asyncio.LimitOverrunError:
            raise ClientError(431, "The request's headers are larger than 32 KB.") from None
        except TimeoutError:
            raise ClientError(408, "The request's headers did not arrive in time.") from None
        except asyncio.IncompleteReadError as error:
            if error.partial.strip():
                raise ClientError(400, "The request ended before its headers did.") from None
            raise
        request_line, headers = _parse_head(raw)
        peer = writer.get_extra_info("peername")
        body = await self._read_body(reader, writer, headers)
        return Request(_upstream_head(request_line, headers, peer, len(body)), body)

    async def _read_body(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        headers: list[tuple[str, str]],
    ) -> bytes:
        names = {name for name, _ in headers}
        if "transfer-encoding" in names:
            raise ClientError(411, "Send the body with a Content-Length (chunked is not accepted).")
        lengths = {value.strip() for name, value in headers if name == "content-length"}
        if not lengths:
            return b""
        if len(lengths) > 1 or not next(iter(lengths)).isdigit():
            raise ClientError(400, "The Content-Length header is not a single number.")
        length = int(next(iter(lengths)))
        if length > self.limits.body_max_bytes:
            limit_mb = self.limits.body_max_bytes // (1024 * 1024)
            raise ClientError(
                413, f"The request body is {length / 1048576:.1f} MB; the limit is {limit_mb} MB."
            )
        if any(name == "expect" and "100-continue" in v.lower() for name, v in headers):
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        deadline = self.limits.body_base_timeout + length / self.limits.body_min_rate
        try:
            return await asyncio.wait_for(reader.readexactly(length), deadline)
        except TimeoutError:
            raise ClientError(408, "The request body did not arrive in time.") from None

    async def _forward(self, request: Request, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_unix_connection(self.upstream)
        except OSError:
            raise ClientError(502, "The web server is starting or restarting; try again.") from None
        # The request goes up while the answer is read: gunicorn may answer (a 413, a 401)
        # before it has read a large body, then close, and that answer must still get out.
        sending = asyncio.create_task(_send(up_writer, request.head + request.body))
        try:
            while True:
                try:
                    chunk = await asyncio.wait_for(
                        up_reader.read(65536), self.limits.response_idle_timeout
                    )
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                # write() sends at once when the client keeps up (a streamed answer goes out
                # piece by piece); for a slow reader the answer waits here, in memory, rather
                # than in a gunicorn thread. Only a very large backlog waits for the client.
                writer.write(chunk)
                if writer.transport.get_write_buffer_size() > self.limits.response_buffer_bytes:
                    await asyncio.wait_for(writer.drain(), self.limits.response_idle_timeout)
            await asyncio.wait_for(writer.drain(), self.limits.response_idle_timeout)
        finally:
            sending.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await sending
            up_writer.close()


async def _send(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(data)
    await writer.drain()


def _parse_head(raw: bytes) -> tuple[str, list[tuple[str, str]]]:
    text = raw.decode("latin-1").lstrip("\r\n")  # HTTP headers are bytes; latin-1 maps each
    lines = text.split("\r\n")
    request_line = lines[0]
    parts = request_line.split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1.") or not parts[0].isalpha():
        raise ClientError(400, "This is not an HTTP/1.x request line.")
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip() or any(c in name for c in " \t"):
            raise ClientError(400, "A request header is malformed.")
        headers.append((name.lower(), value.strip()))
    return request_line, headers


def _upstream_head(
    request_line: str, headers: list[tuple[str, str]], peer: object, body_length: int
) -> bytes:
    kept = [f"{name}: {value}" for name, value in headers if name not in _HOP_BY_HOP]
    client = peer[0] if isinstance(peer, tuple) and peer else ""
    kept += [
        f"Content-Length: {body_length}",
        f"X-Forwarded-For: {client}",
        "Connection: close",
    ]
    return ("\r\n".join([request_line, *kept]) + "\r\n\r\n").encode("latin-1")


async def _answer(writer: asyncio.StreamWriter, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    head = (
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n"
        "Content-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    with contextlib.suppress(ConnectionError, RuntimeError):
        writer.write(head.encode() + body)
        await asyncio.wait_for(writer.drain(), 5)


async def serve(host: str, port: int, upstream: str, limits: Limits) -> None:
    door = FrontDoor(upstream, limits)
    server = await asyncio.start_server(
        door.handle, host, port, limit=HEADER_MAX_BYTES, backlog=1024, reuse_address=True
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    async with server:
        await stop.wait()


def limits_from_environment() -> Limits:
    upload_mb = env_int("KNOWLEDGE_MAX_UPLOAD_MB", 50, minimum=1)
    return Limits(
        header_timeout=env_float("WEB_HEADER_TIMEOUT", 10.0),
        body_max_bytes=(upload_mb + 1) * 1024 * 1024,  # the form fields around the file
        body_min_rate=env_int("WEB_BODY_MIN_RATE_KB", 50, minimum=1) * 1024,
        max_connections=env_int("WEB_MAX_CONNECTIONS", 1000, minimum=1),
        upstream_slots=upstream_slots(),
    )


def upstream_slots() -> int:
    """gunicorn's threads less two kept for /healthz; WEB_UPSTREAM_SLOTS overrides (0: off)."""
    threads = env_int("WEB_WORKERS", 2, minimum=1) * env_int("WEB_THREADS", 8, minimum=1)
    return env_int("WEB_UPSTREAM_SLOTS", max(1, threads - 2), minimum=0)


def gunicorn_command(socket_path: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "portality.wsgi",
        f"--bind=unix:{socket_path}",
        # The socket reaches Django past the front door's limits: the service's user only.
        "--umask=0o077",
        "--worker-class=gthread",
        f"--workers={env_int('WEB_WORKERS', 2, minimum=1)}",
        f"--threads={env_int('WEB_THREADS', 8, minimum=1)}",
        "--timeout=120",
        "--access-logfile=-",
    ]


def socket_path_for(data_dir: Path) -> Path:
    """gunicorn's socket under the data dir, or under /tmp when that path is too long for
    AF_UNIX (108 bytes)."""
    path = data_dir / "run" / "web.sock"
    if len(str(path)) <= 100:
        return path
    digest = hashlib.sha256(str(data_dir).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"portality-{digest}" / "web.sock"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bind", default="127.0.0.1:8000", help="host:port to listen on")
    parser.add_argument("--socket", type=Path, required=True, help="gunicorn's unix socket")
    args = parser.parse_args()
    host, _, port = args.bind.rpartition(":")
    args.socket.parent.mkdir(parents=True, exist_ok=True)
    args.socket.unlink(missing_ok=True)
    gunicorn = subprocess.Popen(gunicorn_command(args.socket), preexec_fn=die_with_parent)
    try:
        asyncio.run(
            serve(host or "127.0.0.1", int(port), str(args.socket), limits_from_environment())
        )
    finally:
        gunicorn.terminate()
        try:
            gunicorn.wait(30)
        except subprocess.TimeoutExpired:
            gunicorn.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
