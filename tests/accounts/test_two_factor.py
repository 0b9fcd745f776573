"""Two-factor sign-in (django-otp TOTP + recovery codes): with CONSOLE_REQUIRE_2FA a
password alone does not open the console nor its session API."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone
from django_otp.oath import TOTP
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import AuditEntry
from accounts.roles import role_grant

pytestmark = pytest.mark.django_db
PASSWORD = "Correct-Horse-Battery-9"


@pytest.fixture
def olga():
    get_user_model().objects.create_user("olga", password=PASSWORD)
    role_grant(username="olga", role="owner")
    return get_user_model().objects.get(username="olga")


def signed_in() -> Client:
    client = Client()
    assert (
        client.post("/accounts/login/", {"username": "olga", "password": PASSWORD}).status_code
        == 302
    )
    return client


def code_for(user) -> str:
    device = TOTPDevice.objects.get(user=user)
    return f"{TOTP(device.bin_key, device.step, device.t0, device.digits).token():06d}"


def set_up(client: Client, user) -> list[str]:
    page = client.get("/accounts/two-factor/setup/")
    assert "<svg" in page.content.decode()
    done = client.post("/accounts/two-factor/setup/", {"code": code_for(user), "next": "/"})
    return re.findall(r"^([a-z0-9]{8})$", done.content.decode(), flags=re.M)


def test_when_required_a_password_alone_opens_nothing(olga, settings):
    settings.CONSOLE_REQUIRE_2FA = True
    client = signed_in()

    page = client.get("/knowledge/")
    assert page.status_code == 302 and page["Location"].startswith("/accounts/two-factor/setup/")
    api = client.get("/api/v1/documents")
    assert api.status_code == 403 and "two-factor" in api.json()["detail"]

    wrong = client.post("/accounts/two-factor/setup/", {"code": "000000"})
    assert "not right" in wrong.content.decode()
    with time_machine.travel(timezone.now() + timedelta(seconds=5)):  # past the failure's delay
        codes = set_up(client, olga)

    assert len(codes) == 10
    assert client.get("/knowledge/").status_code == 200
    assert client.get("/api/v1/documents").status_code == 200
    assert AuditEntry.objects.filter(action="account.two_factor_enabled", actor="olga").exists()


def test_the_next_sign_in_asks_for_a_code_or_a_recovery_code(olga, settings):
    codes = set_up(signed_in(), olga)

    client = signed_in()
    page = client.get("/licenses/")
    assert page["Location"].startswith("/accounts/two-factor/verify/")
    wrong = client.post("/accounts/two-factor/verify/", {"code": "123456"})
    assert "not right" in wrong.content.decode()
    with time_machine.travel(timezone.now() + timedelta(seconds=31)):  # the next time step
        ok = client.post(
            "/accounts/two-factor/verify/", {"code": code_for(olga), "next": "/licenses/"}
        )
    assert ok["Location"] == "/licenses/"
    assert client.get("/licenses/").status_code == 200

    with time_machine.travel(timezone.now() + timedelta(seconds=90)):
        other = signed_in()
        assert other.post("/accounts/two-factor/verify/", {"code": codes[0]}).status_code == 302
        third = signed_in()
        third.post("/accounts/two-factor/verify/", {"code": codes[0]})  # used up
        assert third.get("/licenses/").status_code == 302
    assert AuditEntry.objects.filter(action="account.two_factor_failed").count() == 2


def test_a_recovery_code_typed_on_a_phone_keyboard_is_accepted(olga):
    codes = set_up(signed_in(), olga)
    client = signed_in()

    page = client.get("/accounts/two-factor/verify/").content.decode()
    field = re.search(r'<input id="id_code"[^>]*>', page).group(0)
    assert 'inputmode="numeric"' not in field  # a digit keypad could not type a recovery code
    assert 'autocapitalize="none"' in field
    typed = f"{codes[0][:4].capitalize()} {codes[0][4:]}"  # "Qn44 onii": capitalised, spaced

    assert client.post("/accounts/two-factor/verify/", {"code": typed}).status_code == 302
    assert client.get("/licenses/").status_code == 200


def test_not_required_and_not_set_up_a_password_is_enough(olga):
    assert signed_in().get("/licenses/").status_code == 200


def test_a_next_that_leaves_the_site_is_ignored(olga, settings):
    settings.CONSOLE_REQUIRE_2FA = True
    client = signed_in()
    set_up(client, olga)
    client = signed_in()
    with time_machine.travel(timezone.now() + timedelta(seconds=31)):
        response = client.post(
            "/accounts/two-factor/verify/",
            {"code": code_for(olga), "next": "https://evil.example/"},
        )
    assert response["Location"] == "/"


def test_an_owner_resets_a_lost_phone(olga):
    get_user_model().objects.create_user("kim", password=PASSWORD)
    role_grant(username="kim", role="support")
    kim = get_user_model().objects.get(username="kim")
    kim_client = Client()
    kim_client.post("/accounts/login/", {"username": "kim", "password": PASSWORD})
    set_up(kim_client, kim)
    owner = Client()
    owner.force_login(olga)

    owner.post(f"/account/members/{kim.pk}/two-factor")

    assert not TOTPDevice.objects.filter(user=kim).exists()
    assert AuditEntry.objects.filter(
        action="account.two_factor_removed", target="account:kim"
    ).exists()


def test_a_session_waiting_for_a_code_goes_on_once_an_owner_removed_the_authenticator(olga):
    set_up(signed_in(), olga)
    waiting = signed_in()
    assert waiting.get("/licenses/")["Location"].startswith("/accounts/two-factor/verify/")

    from accounts.two_factor import two_factor_remove

    two_factor_remove(user=olga)

    assert waiting.get("/accounts/two-factor/verify/?next=/licenses/")["Location"] == "/licenses/"
    assert waiting.get("/licenses/").status_code == 200
