"""Password reset through the mail path, for real: Django's reset views mail a link through
a real SMTP server process; the link sets a new password once; requests are throttled."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts.models import AuditEntry
from tests.mail import body_of, smtp_server, use_smtp

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "Another-Long-Secret-42"


@pytest.fixture
def mail(settings, tmp_path):
    with smtp_server(tmp_path / "mail") as (port, catcher):
        use_smtp(settings, port)
        yield catcher


@pytest.fixture(autouse=True)
def _fresh_limits():
    from datastores.redis_pool import shared_redis

    for key in shared_redis().scan_iter("pb:reset*"):
        shared_redis().delete(key)


def test_a_reset_link_arrives_by_mail_and_works_once(mail):
    get_user_model().objects.create_user(
        "olga", "olga@example.org", "Old-Password-123", is_staff=True
    )
    client = Client()

    response = client.post("/accounts/password_reset/", {"email": "olga@example.org"})

    assert response.status_code == 302
    (message,) = mail.wait_for(1)
    assert "The link works once, for 2 hours." in body_of(message)  # PASSWORD_RESET_HOURS
    link = re.search(r"https?://\S+/accounts/reset/\S+/", body_of(message)).group(0)
    path = re.sub(r"^https?://[^/]+", "", link)
    form_page = client.get(path, follow=True)
    set_path = form_page.redirect_chain[-1][0]
    done = client.post(set_path, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    assert get_user_model().objects.get().check_password(NEW_PASSWORD)
    assert "expired" in Client().get(path, follow=True).content.decode()
    assert {"account.password_reset_requested", "account.password_reset"} <= set(
        AuditEntry.objects.values_list("action", flat=True)
    )


def test_an_unknown_address_gets_the_same_answer_and_no_mail(mail):
    response = Client().post("/accounts/password_reset/", {"email": "nobody@example.org"})

    assert response.status_code == 302
    assert mail.messages() == []


def test_requests_are_throttled_per_address(mail, settings):
    settings.PASSWORD_RESETS_PER_HOUR = 2
    client = Client()
    statuses = [
        client.post("/accounts/password_reset/", {"email": f"x{n}@example.org"}).status_code
        for n in range(3)
    ]

    assert statuses == [302, 302, 429]
    assert (
        "Too many reset requests"
        in client.post("/accounts/password_reset/", {"email": "y@example.org"}).content.decode()
    )


def test_one_address_gets_a_limited_number_of_mails(mail, settings):
    settings.PASSWORD_RESETS_PER_HOUR = 2
    get_user_model().objects.create_user(
        "olga", "olga@example.org", "Old-Password-123", is_staff=True
    )
    for n in range(4):  # from four different addresses
        Client(REMOTE_ADDR=f"198.51.100.{n}").post(
            "/accounts/password_reset/", {"email": "olga@example.org"}
        )

    # The server stores a mail before it acknowledges it: all that was sent is there.
    assert len(mail.messages()) == 2
