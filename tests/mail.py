"""A real SMTP server process (aiosmtpd) on a loopback port, storing what it receives in a
Maildir the tests read: the product's mail goes through Django's SMTP backend, for real."""

from __future__ import annotations

import mailbox
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import Message
from pathlib import Path


class MailCatcher:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def messages(self) -> list[Message]:
        if not (self.directory / "new").exists():
            return []
        return list(mailbox.Maildir(self.directory, create=False))

    def wait_for(self, count: int = 1, timeout: float = 10) -> list[Message]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(found := self.messages()) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(f"{count} mail(s) expected, {len(self.messages())} arrived")


def body_of(message: Message) -> str:
    part = next(p for p in message.walk() if p.get_content_type() == "text/plain")
    return part.get_payload(decode=True).decode(part.get_content_charset() or "utf-8")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def smtp_server(directory: Path) -> Iterator[tuple[int, MailCatcher]]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{port}",
         "-c", "aiosmtpd.handlers.Mailbox", str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        _wait_for_port(port, process)
        yield port, MailCatcher(directory)
    finally:
        process.terminate()
        process.wait(timeout=10)


def _wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"aiosmtpd stopped: {process.stderr.read().decode()[-500:]}")  # type: ignore[union-attr]
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError("aiosmtpd did not start listening")


def use_smtp(settings, port: int) -> None:  # noqa: ANN001 - pytest-django's settings
    """The product's mail settings, as SMTP_HOST=127.0.0.1 SMTP_PORT=port would give them
    (no STARTTLS: a loopback test server)."""
    settings.MAIL_ENABLED = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
