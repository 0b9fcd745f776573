"""Single sign-on in a real Chromium against the real OpenID provider (tests/oidc): the
sign-in page's button, the provider's own login page, and back in the console with the role
the groups claim gives."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from accounts.roles import user_roles
from tests.e2e.browser import chromium_page
from tests.e2e.test_admin_journey import shot
from tests.oidc_provider import oidc_provider

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_privacy_officer_signs_in_through_the_identity_provider(live_server, settings):
    client = {
        "client_id": "portality",
        "client_secret": "portality-secret-0123456789",
        "redirect_uris": [f"{live_server.url}/oidc/callback/"],
        "token_endpoint_auth_method": "client_secret_post",
    }
    accounts = {"pia": {"email": "pia@example.org", "email_verified": True, "groups": ["privacy"]}}
    with oidc_provider([client], accounts) as provider, chromium_page("pt-BR") as page:
        provider.settings_for(settings, client_id="portality", secret=client["client_secret"])
        settings.OIDC_ROLE_MAP = "privacy=privacy_officer"
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_role("link", name="Entrar com login único").click()
        page.wait_for_url(re.compile(rf"^{re.escape(provider.issuer)}/interaction/.*"))
        page.fill("input[name=login]", "pia")
        page.fill("input[name=password]", "any")
        shot(page, "oidc-provider-login")
        page.click("button[type=submit]")
        page.wait_for_url(f"{live_server.url}/")
        expect(page.locator("header nav")).to_contain_text("Memórias")
        shot(page, "oidc-signed-in")

    user = get_user_model().objects.get(email="pia@example.org")
    assert user_roles(user) == ["privacy_officer"]
