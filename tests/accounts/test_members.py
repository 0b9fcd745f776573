"""The team from the console: invitations (command, console, mail through a real SMTP
server), accepting with Django's set-password form, roles, deactivation, the last owner."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from accounts.members import active_owners, invitation_create
from accounts.models import AuditEntry, Invitation
from accounts.roles import role_grant, user_roles
from tests.concurrency import twice_at_once
from tests.mail import body_of, smtp_server, use_smtp

pytestmark = pytest.mark.django_db
PASSWORD = "Correct-Horse-Battery-9"


def member(username: str, role: str):
    get_user_model().objects.create_user(username, password=PASSWORD)
    role_grant(username=username, role=role)
    return get_user_model().objects.get(username=username)


def sign_in(username: str):
    return Client().post("/accounts/login/", {"username": username, "password": PASSWORD})


def invite(email: str, role: str) -> dict[str, str]:
    out = StringIO()
    call_command("invite", email, "--role", role, "--json", stdout=out)
    return json.loads(out.getvalue())


def path_of(url: str) -> str:
    return re.sub(r"^https?://[^/]+", "", url)


def test_an_invitation_link_sets_a_password_once(settings):
    settings.PUBLIC_URL = "https://brain.example.org"
    payload = invite("lucia@example.org", "knowledge_editor")
    assert payload["url"].startswith("https://brain.example.org/accounts/invitation/")
    assert payload["mailed"] is False  # no SMTP configured
    client = Client()
    path = path_of(payload["url"])

    assert client.get(path).status_code == 200
    response = client.post(path, {"password1": PASSWORD, "password2": PASSWORD})

    assert response.status_code == 302
    user = get_user_model().objects.get(username="lucia@example.org")
    assert user.is_staff and user_roles(user) == ["knowledge_editor"]
    assert client.get("/knowledge/").status_code == 200  # signed in
    assert client.get("/licenses/").status_code == 403  # … as a knowledge editor
    again = Client().get(path)
    assert again.status_code == 410 and "no longer works" in again.content.decode()
    assert Invitation.objects.get().token_hash not in payload["url"]
    joined = AuditEntry.objects.get(action="member.joined")
    assert (joined.actor, joined.details["role"]) == ("lucia@example.org", "knowledge_editor")


def test_weak_or_mismatched_passwords_create_nothing():
    path = path_of(invite("lucia@example.org", "support")["url"])
    client = Client()

    for body in (
        {"password1": "lucia123", "password2": "lucia123"},
        {"password1": PASSWORD, "password2": PASSWORD + "x"},
        {"password1": "password", "password2": "password"},
    ):
        response = client.post(path, body)
        assert response.status_code == 200 and 'class="error"' in response.content.decode()
    assert not get_user_model().objects.exists()
    assert client.post(path, {"password1": PASSWORD, "password2": PASSWORD}).status_code == 302


def test_an_expired_or_replaced_link_is_refused():
    first = path_of(invite("lucia@example.org", "support")["url"])
    second = path_of(invite("lucia@example.org", "owner")["url"])

    assert Client().get(first).status_code == 410  # replaced by the newer one
    with time_machine.travel(timezone.now() + timedelta(days=8)):
        expired = Client().post(second, {"password1": PASSWORD, "password2": PASSWORD})
    assert expired.status_code == 410
    assert not get_user_model().objects.exists()


def test_an_existing_account_or_a_bad_address_is_refused():
    member("olga@example.org", "owner")
    with pytest.raises(CommandError, match="already has an account"):
        invite("OLGA@example.org", "support")
    with pytest.raises(CommandError, match="not an e-mail address"):
        invite("not-an-address", "support")


def test_the_invitation_is_mailed_through_smtp(client, settings, tmp_path):
    owner = member("olga", "owner")
    client.force_login(owner)
    with smtp_server(tmp_path / "mail") as (port, mail):
        use_smtp(settings, port)
        page = client.post(
            "/account/members/",
            {"email": "ines@example.org", "role": "privacy_officer"},
            HTTP_ACCEPT_LANGUAGE="es",
        )
        (message,) = mail.wait_for(1)

    assert "Le enviamos este enlace por correo" in page.content.decode()
    assert message["To"] == "ines@example.org"
    # in the inviter's language, the role named as the console names it, not by its code
    assert "olga te invita a Portality Brain como Responsable de privacidad." in body_of(message)
    url = re.search(r"https?://\S+/accounts/invitation/\S+/", body_of(message)).group(0)
    accepted = Client().post(path_of(url), {"password1": PASSWORD, "password2": PASSWORD})
    assert accepted.status_code == 302
    assert user_roles(get_user_model().objects.get(email="ines@example.org")) == ["privacy_officer"]


def test_a_mail_that_fails_still_gives_the_link(client, settings):
    client.force_login(member("olga", "owner"))
    use_smtp(settings, 9)  # nothing listens on the discard port of loopback
    settings.EMAIL_TIMEOUT = 2

    page = client.post("/account/members/", {"email": "ines@example.org", "role": "support"})

    html = page.content.decode()
    assert "could not be sent" in html and 'id="invitation-url"' in html
    assert Invitation.objects.filter(email="ines@example.org").exists()


def test_owners_change_roles_and_the_console_follows():
    owner, kim = member("olga", "owner"), member("kim", "knowledge_editor")
    as_owner, as_kim = Client(), Client()
    as_owner.force_login(owner)
    as_kim.force_login(kim)
    assert as_kim.get("/knowledge/").status_code == 200

    as_owner.post(f"/account/members/{kim.pk}/role", {"role": "support"})

    assert user_roles(kim) == ["support"]
    assert as_kim.get("/licenses/").status_code == 200  # support reads licenses
    assert as_kim.get("/account/members/").status_code == 403
    changed = AuditEntry.objects.get(action="member.role_changed")
    assert (changed.actor, changed.details) == (
        "olga",
        {"from": ["knowledge_editor"], "to": "support"},
    )


def test_a_deactivated_member_is_signed_out_and_can_come_back():
    owner, kim = member("olga", "owner"), member("kim", "support")
    as_owner, as_kim = Client(), Client()
    as_owner.force_login(owner)
    as_kim.force_login(kim)

    as_owner.post(f"/account/members/{kim.pk}/active", {"active": "0"})

    assert as_kim.get("/licenses/").status_code == 302  # back to the login page
    assert sign_in("kim").status_code == 200  # the form again, with an error
    as_owner.post(f"/account/members/{kim.pk}/active", {"active": "1"})
    assert sign_in("kim").status_code == 302


def test_the_last_owner_cannot_leave():
    owner = member("olga", "owner")
    client = Client()
    client.force_login(owner)

    for path, body in (
        (f"/account/members/{owner.pk}/role", {"role": "support"}),
        (f"/account/members/{owner.pk}/active", {"active": "0"}),
    ):
        page = client.post(path, body, follow=True)
        assert "last owner" in page.content.decode()
    assert user_roles(get_user_model().objects.get(pk=owner.pk)) == ["owner"]
    # … and the page offers neither: the role is shown, not a choice, and no Deactivate.
    html = client.get("/account/members/").content.decode()
    assert f'id="role-{owner.pk}"' not in html and "Deactivate" not in html
    assert "the only owner: make another one first" in html
    member("olaf", "owner")
    client.post(f"/account/members/{owner.pk}/role", {"role": "support"})
    assert user_roles(get_user_model().objects.get(pk=owner.pk)) == ["support"]


@pytest.mark.django_db(transaction=True)
def test_an_invitation_sent_twice_at_once_leaves_one_link_that_works():
    first, second, waited = twice_at_once(
        Invitation,
        lambda: invitation_create(
            email="ines@example.org", role="support", base_url="http://testserver"
        ),
        lambda: invitation_create(
            email="Ines@example.org", role="support", base_url="http://testserver"
        ),
    )

    assert waited
    pending = Invitation.objects.filter(accepted_at=None, revoked_at=None)
    assert [invitation.pk for invitation in pending] == [second.invitation.pk]


@pytest.mark.django_db(transaction=True)
def test_two_owners_removing_each_other_at_once_leave_one_owner():
    """Each saw the other still an owner, so both changes went through: nobody was left
    to run the team."""
    olga, olaf = member("olga", "owner"), member("olaf", "owner")
    as_olga, as_olaf = Client(), Client()
    as_olga.force_login(olga)
    as_olaf.force_login(olaf)

    first, second, waited = twice_at_once(
        AuditEntry,
        lambda: as_olga.post(f"/account/members/{olaf.pk}/role", {"role": "support"}),
        lambda: as_olaf.post(f"/account/members/{olga.pk}/active", {"active": "0"}, follow=True),
    )

    assert waited and first.status_code == 302
    assert "last owner" in second.content.decode()
    assert list(active_owners()) == [olga]


def test_an_owner_cannot_deactivate_themself():
    # Another owner exists, so only the self-lockout is in the way.
    owner, other = member("olga", "owner"), member("olaf", "owner")
    client = Client()
    client.force_login(owner)

    html = client.get("/account/members/").content.decode()
    own_row = re.search(r'<tr>\s*<td class="lead">olga.*?</tr>', html, flags=re.S).group(0)
    other_row = re.search(r'<tr>\s*<td class="lead">olaf.*?</tr>', html, flags=re.S).group(0)
    assert "(you)" in own_row and "Deactivate" not in own_row
    assert "Deactivate" in other_row and "data-confirm=" in other_row

    page = client.post(f"/account/members/{owner.pk}/active", {"active": "0"}, follow=True)

    assert "You cannot deactivate your own account" in page.content.decode()
    assert get_user_model().objects.get(pk=owner.pk).is_active
    assert client.get("/account/members/").status_code == 200  # still signed in
    assert other.is_active


def test_a_superuser_is_shown_as_an_owner(client):
    root = get_user_model().objects.create_superuser("root", password=PASSWORD)
    client.force_login(root)

    html = client.get("/account/members/").content.decode()

    assert "superuser: an owner" in html
    assert f'id="role-{root.pk}"' not in html  # the last owner
    member("olga", "owner")
    html = client.get("/account/members/").content.decode()
    assert re.search(
        rf'<select id="role-{root.pk}" name="role">.*?<option value="owner" selected>',
        html,
        flags=re.S,
    )


def test_old_invitations_go_with_the_daily_purge():
    from accounts.tasks import audit_purge_task

    invite("lucia@example.org", "support")
    with time_machine.travel(timezone.now() + timedelta(days=40)):
        invite("ines@example.org", "support")
        result = audit_purge_task()

    assert result["invitations"] == 1
    assert list(Invitation.objects.values_list("email", flat=True)) == ["ines@example.org"]
