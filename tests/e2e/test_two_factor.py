"""Two-factor sign-in in a real Chromium, as an owner with CONSOLE_REQUIRE_2FA would meet
it: the password leads to the set-up page (a QR code drawn as SVG, the key to type), the
code from the "app" turns it on and shows the recovery codes once; the next sign-in asks for
a code, and a recovery code opens the console."""

from __future__ import annotations

import base64
import re
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.utils import timezone
from django_otp.oath import TOTP
from playwright.sync_api import expect

from tests.e2e.browser import chromium_page
from tests.e2e.test_admin_journey import shot
from tests.factories import as_owner

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
PASSWORD = "Correct-Horse-Battery-9"


def app_code(secret: str) -> str:
    """What an authenticator app shows for the key the page gave (base32, in groups of four
    that the app joins)."""
    joined = secret.replace(" ", "")
    assert re.fullmatch(r"([A-Z2-7]{4} )+[A-Z2-7]{1,4}", secret)
    key = base64.b32decode(joined + "=" * (-len(joined) % 8))
    return f"{TOTP(key).token():06d}"


def sign_in(page, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", "olga")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")


def test_an_owner_sets_up_two_factor_and_signs_in_with_a_code(live_server, settings):
    settings.CONSOLE_REQUIRE_2FA = True
    as_owner(get_user_model().objects.create_user("olga", password=PASSWORD))
    base = live_server.url
    with chromium_page("es-ES") as page:
        sign_in(page, base)
        page.wait_for_url(re.compile(r".*/accounts/two-factor/setup/.*"))
        expect(page.locator(".qr svg")).to_be_visible()
        secret = page.locator("#totp-secret").inner_text()
        shot(page, "two-factor-setup")
        page.fill("#id_code", app_code(secret))
        page.click("main form button[type=submit]")
        codes = page.locator("#recovery-codes").inner_text().split()
        assert len(codes) == 10
        page.get_by_role("link", name="Continuar").click()
        expect(page.locator("h1")).to_have_text("Panel")

        page.context.clear_cookies()
        sign_in(page, base)
        page.wait_for_url(re.compile(r".*/accounts/two-factor/verify/.*"))
        page.fill("#id_code", "000000")
        page.click("main form button[type=submit]")
        expect(page.locator(".error")).to_contain_text("no es correcto")
        with time_machine.travel(timezone.now() + timedelta(seconds=40)):  # past the delay
            page.fill("#id_code", codes[0])
            page.click("main form button[type=submit]")
            expect(page.locator("h1")).to_have_text("Panel")
