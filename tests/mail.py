"""A real SMTP server process (aiosmtpd) on a loopback port, storing what it receives in a
Maildir the tests read: the product's mail goes through Django's SMTP backend, for real."""

from __future__ import annotations

import mailbox
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import Message
from pathlib import Path

from tests.ports import free_port, wait_for_port


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


@contextmanager
def smtp_server(directory: Path) -> Iterator[tuple[int, MailCatcher]]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "aiosmtpd", "-n", "-l", f"127.0.0.1:{port}",
         "-c", "aiosmtpd.handlers.Mailbox", str(directory)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for_port(port, process, "aiosmtpd", timeout=15)
        yield port, MailCatcher(directory)
    finally:
        process.terminate()
        process.wait(timeout=10)


def use_smtp(settings, port: int) -> None:  # noqa: ANN001 - pytest-django's settings
    """The product's mail settings, as SMTP_HOST=127.0.0.1 SMTP_PORT=port would give them
    (no STARTTLS: a loopback test server)."""
    settings.MAIL_ENABLED = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
