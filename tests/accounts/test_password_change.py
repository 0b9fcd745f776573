"""Your own password from the console: the owner `make run` creates has no e-mail address to
reset it by, and the page was Django admin's, linked from nowhere."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import AuditEntry
from accounts.roles import role_grant

pytestmark = pytest.mark.django_db
OLD, NEW = "Correct-Horse-Battery-9", "Another-Staple-Battery-7"


def signed_in(username: str, password: str = OLD) -> Client:
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": password})
    assert response.status_code == 302
    return client


@pytest.fixture
def olga():
    get_user_model().objects.create_user("olga", password=OLD)
    role_grant(username="olga", role="owner")
    return get_user_model().objects.get(username="olga")


def test_a_member_changes_their_password_from_the_console(olga):
    client, elsewhere = signed_in("olga"), signed_in("olga")
    dashboard = client.get("/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert 'href="/accounts/password_change/">Contraseña</a>' in dashboard

    page = client.get("/accounts/password_change/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Tu contraseña" in page and "Django" not in page and 'class="card narrow"' in page
    wrong = client.post(
        "/accounts/password_change/",
        {"old_password": "nope", "new_password1": NEW, "new_password2": NEW},
    )
    assert wrong.status_code == 200 and 'class="error"' in wrong.content.decode()

    done = client.post(
        "/accounts/password_change/",
        {"old_password": OLD, "new_password1": NEW, "new_password2": NEW},
        follow=True,
    )

    assert "Your password is changed" in done.content.decode()
    assert get_user_model().objects.get(pk=olga.pk).check_password(NEW)
    assert client.get("/knowledge/").status_code == 200  # this session stays
    assert elsewhere.get("/knowledge/").status_code == 302  # the other one ended
    entry = AuditEntry.objects.get(action="account.password_changed")
    assert (entry.actor, entry.target) == ("olga", "account:olga")
    assert OLD not in str(entry.details) and NEW not in str(entry.details)


def test_a_single_sign_on_account_is_told_where_its_password_lives(client):
    user = get_user_model().objects.create_user("ines@example.org")  # no usable password
    role_grant(username="ines@example.org", role="support")
    client.force_login(get_user_model().objects.get(pk=user.pk))

    assert "/accounts/password_change/" not in client.get("/").content.decode()
    page = client.get("/accounts/password_change/").content.decode()
    assert "signs in with single sign-on" in page and "old_password" not in page
    refused = client.post(
        "/accounts/password_change/",
        {"old_password": "", "new_password1": NEW, "new_password2": NEW},
    )
    assert refused.status_code == 200
    assert not get_user_model().objects.get(pk=user.pk).has_usable_password()
