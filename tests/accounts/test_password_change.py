"""Your own password from the console: the owner `make run` creates has no e-mail address to
reset it by, and the page was Django admin's, linked from nowhere."""

from __future__ import annotations

import re

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


def test_an_owner_gives_a_member_who_forgot_a_link_to_choose_a_new_password(olga, settings):
    # Without mail, a forgotten password needed `manage.py changepassword` on the server.
    settings.SMTP_HOST = ""
    settings.MAIL_ENABLED = False
    kim = get_user_model().objects.create_user("kim", password=OLD)
    role_grant(username="kim", role="support")
    owner = signed_in("olga")
    members = owner.get("/account/members/").content.decode()
    assert f'action="/account/members/{kim.pk}/password-link"' in members
    assert f'action="/account/members/{olga.pk}/password-link"' not in members  # theirs: Password

    page = owner.post(f"/account/members/{kim.pk}/password-link").content.decode()

    url = re.search(r'id="password-link-url" readonly value="([^"]+)"', page).group(1)
    assert "Pass them this link yourself." in page
    kim_client = Client()
    form_page = kim_client.get(re.sub(r"^https?://[^/]+", "", url), follow=True)
    set_path = form_page.redirect_chain[-1][0]
    done = kim_client.post(set_path, {"new_password1": NEW, "new_password2": NEW})
    assert done.status_code == 302
    assert get_user_model().objects.get(pk=kim.pk).check_password(NEW)
    used = Client().get(re.sub(r"^https?://[^/]+", "", url), follow=True)
    assert "expired" in used.content.decode()  # once
    entry = AuditEntry.objects.get(action="member.password_link")
    assert (entry.actor, entry.target, entry.details) == ("olga", "account:kim", {"mailed": False})


def test_the_password_link_is_mailed_when_the_deployment_sends_mail(olga, settings, tmp_path):
    from tests.mail import body_of, smtp_server, use_smtp

    kim = get_user_model().objects.create_user("kim@example.org", password=OLD)
    role_grant(username="kim@example.org", role="support")
    owner = signed_in("olga")
    with smtp_server(tmp_path / "mail") as (port, mail):
        use_smtp(settings, port)
        page = owner.post(
            f"/account/members/{kim.pk}/password-link", HTTP_ACCEPT_LANGUAGE="es"
        ).content.decode()
        (message,) = mail.wait_for(1)

    assert "Le enviamos este enlace por correo" in page
    assert message["To"] == "kim@example.org"
    assert "olga te da un enlace para elegir una contraseña nueva" in body_of(message)
    assert "/accounts/reset/" in body_of(message)


def test_no_password_link_for_a_single_sign_on_or_deactivated_account(olga):
    get_user_model().objects.create_user("sso@example.org")  # no usable password
    gone = get_user_model().objects.create_user("gone", password=OLD, is_active=False)
    for user in get_user_model().objects.exclude(username="olga"):
        user.is_staff = True
        user.save()
    owner = signed_in("olga")
    sso = get_user_model().objects.get(username="sso@example.org")

    members = owner.get("/account/members/").content.decode()
    assert "password-link" not in members.replace(f"/account/members/{olga.pk}/", "")
    for user, reason in ((sso, "single sign-on"), (gone, "reactivate them first")):
        page = owner.post(f"/account/members/{user.pk}/password-link", follow=True)
        assert reason in page.content.decode()
    assert not AuditEntry.objects.filter(action="member.password_link").exists()


def test_members_shows_who_signs_in_with_a_second_factor(olga):
    # An owner could not see who had left two-factor sign-in off.
    from django_otp.plugins.otp_totp.models import TOTPDevice

    kim = get_user_model().objects.create_user("kim", password=OLD, is_staff=True)
    TOTPDevice.objects.create(user=kim, name="authenticator", confirmed=True)
    get_user_model().objects.create_user("sso@example.org", is_staff=True)
    client = Client()
    client.force_login(olga)

    html = client.get("/account/members/", HTTP_ACCEPT_LANGUAGE="es").content.decode()

    def row(name: str) -> str:
        return re.search(
            rf"<tr>\s*<td class=\"lead\">{re.escape(name)}.*?</tr>", html, flags=re.S
        ).group(0)

    assert ">activado</td>" in row("kim")
    assert '<span class="muted">desactivado</span>' in row("olga")
    assert "en el proveedor de inicio de sesión" in row("sso@example.org")
