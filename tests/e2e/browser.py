"""Debian's Chromium driven by Playwright; never a downloaded browser."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator

import pytest
from django.db import connections

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# The flags the workplace's probe uses: headless, no sandbox as root, and no background
# networking (this machine's closed network refuses those connections).
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def log_in(page, url: str, username: str, password: str) -> None:  # noqa: ANN001
    """Open ``url``, meet the login form, sign in and land back on ``url``."""
    page.goto(url)
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_url(url)


@contextlib.contextmanager
def chromium_page(
    locale: str = "en-US", time_zone: str | None = None, color_scheme: str = "light"
) -> Iterator[object]:
    """A page of a fresh browser whose language (Accept-Language, navigator.language) is
    ``locale``, whose clock is in ``time_zone`` (the machine's when None) and whose system
    theme is ``color_scheme``."""
    if not os.path.exists(CHROMIUM):
        pytest.fail("Chromium is missing: apt-get install -y chromium (.ci/run installs it).")
    # pytest-django's live server runs in this process; Playwright's sync API must not
    # think it is inside an event loop, and Django must allow sync DB access from here.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    # launch() gives every browser a fresh, temporary profile of its own.
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        context = browser.new_context(
            viewport={"width": 1280, "height": 900},
            locale=locale,
            timezone_id=time_zone,
            color_scheme=color_scheme,
        )
        context.set_default_timeout(30_000)
        try:
            yield context.new_page()
        finally:
            context.close()
            browser.close()
            # Inside Playwright's event loop Django keeps connections per async context:
            # one the test body opened would outlive the test and keep the test database
            # from being dropped at the end of the session.
            connections.close_all()
