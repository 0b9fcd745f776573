"""panva's oidc-provider (OpenID Certified) run by node on a loopback port for the tests."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

import httpx
import pytest

from tests.ports import free_port, wait_for_port

HERE = Path(__file__).parent / "oidc"


@dataclass(frozen=True)
class RunningProvider:
    issuer: str

    def settings_for(self, settings, *, client_id: str, secret: str) -> None:  # noqa: ANN001
        settings.OIDC_ENABLED = True
        settings.OIDC_RP_CLIENT_ID, settings.OIDC_RP_CLIENT_SECRET = client_id, secret
        settings.OIDC_ISSUER = self.issuer
        settings.OIDC_OP_AUTHORIZATION_ENDPOINT = f"{self.issuer}/auth"
        settings.OIDC_OP_TOKEN_ENDPOINT = f"{self.issuer}/token"
        settings.OIDC_OP_USER_ENDPOINT = f"{self.issuer}/me"
        settings.OIDC_OP_JWKS_ENDPOINT = f"{self.issuer}/jwks"
        settings.OIDC_RP_SCOPES = "openid email profile groups"
        if "accounts.oidc.ConsoleOIDCBackend" not in settings.AUTHENTICATION_BACKENDS:
            settings.AUTHENTICATION_BACKENDS = [
                *settings.AUTHENTICATION_BACKENDS,
                "accounts.oidc.ConsoleOIDCBackend",
            ]


@contextmanager
def oidc_provider(clients: list[dict], accounts: dict[str, dict]) -> Iterator[RunningProvider]:
    if not (HERE / "node_modules" / "oidc-provider").exists():
        pytest.fail("oidc-provider is missing: `make test` runs npm ci in tests/oidc.")
    port = free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "OIDC_CLIENTS": json.dumps(clients),
        "OIDC_ACCOUNTS": json.dumps(accounts),
        "NODE_ENV": "development",
    }
    process = subprocess.Popen(
        ["node", str(HERE / "provider.mjs")], cwd=HERE, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for_port(port, process, "oidc-provider")
        yield RunningProvider(f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        process.wait(timeout=10)


def sign_in_at_provider(authorize_url: str, login: str, stop_at: str) -> str:
    """Walk the provider's own pages as a browser would (follow redirects, submit its
    login form) until it sends the browser to ``stop_at``; that URL, with code and state."""
    with httpx.Client(timeout=10) as client:
        url, form_done = authorize_url, False
        for _ in range(20):
            if url.startswith(stop_at):
                return url
            response = client.get(url) if not form_done or "interaction" not in url else None
            if response is None:
                raise AssertionError("the provider asked for its login twice")
            if response.is_redirect:
                url = urljoin(url, response.headers["location"])
                continue
            action = re.search(r'<form[^>]*action="([^"]+)"', response.text)
            if action is None:
                raise AssertionError(f"no login form at {url}: {response.text[:300]}")
            posted = client.post(
                urljoin(url, action.group(1)),
                data={"prompt": "login", "login": login, "password": "any"},
            )
            form_done = True
            url = urljoin(url, posted.headers["location"])
        raise AssertionError("too many redirects at the provider")
