"""Login throttling and the Content-Security-Policy of the console."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from axes.models import AccessAttempt, AccessLog
from django.test import Client
from django.utils import timezone

from tests.factories import as_owner

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(django_user_model):
    return as_owner(
        django_user_model.objects.create_user("admin", password="right-pass-123", is_staff=True)
    )


def login(client, password):
    return client.post("/accounts/login/", {"username": "admin", "password": password})


def test_after_five_wrong_passwords_even_the_right_one_is_refused(admin, settings):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert login(client, "wrong").status_code == 200  # the form again, with its error
    locked = login(client, "wrong")
    assert locked.status_code == 429 and "Too many attempts" in locked.content.decode()

    refused = login(client, "right-pass-123")
    assert refused.status_code == 429
    assert "_auth_user_id" not in client.session


def test_a_right_password_before_the_limit_logs_in_and_resets_the_count(admin, settings):
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(client, "wrong")
    assert login(client, "right-pass-123").status_code == 302
    client.logout()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        login(client, "wrong")
    assert login(client, "right-pass-123").status_code == 302


def test_an_account_name_is_matched_in_any_case(django_user_model):
    # An invited member's account is their address as the owner typed it.
    as_owner(django_user_model.objects.create_user("Ana.Lopez@Example.org", password="pw-4567-x"))
    django_user_model.objects.filter(username="Ana.Lopez@Example.org").update(is_staff=True)

    for typed in ("ana.lopez@example.org", "ANA.LOPEZ@EXAMPLE.ORG", " Ana.Lopez@Example.org "):
        signed_in = Client().post("/accounts/login/", {"username": typed, "password": "pw-4567-x"})
        assert signed_in.status_code == 302, typed


def test_two_accounts_differing_only_in_case_each_keep_their_password(django_user_model):
    for name in ("ana", "Ana"):
        django_user_model.objects.create_user(name, password=f"{name}-pass-123", is_staff=True)

    assert (
        Client().post("/accounts/login/", {"username": "Ana", "password": "Ana-pass-123"})[
            "Location"
        ]
        == "/"
    )
    assert (
        Client()
        .post("/accounts/login/", {"username": "ANA", "password": "ana-pass-123"})
        .status_code
        == 200
    )


def test_the_name_in_another_case_counts_towards_the_same_lockout(admin, settings):
    client = Client()
    variants = ["admin", "Admin", "ADMIN", "aDmin", "adMin", "admIn", "admiN"]
    for typed in variants[: settings.AXES_FAILURE_LIMIT]:
        client.post("/accounts/login/", {"username": typed, "password": "wrong"})

    refused = client.post("/accounts/login/", {"username": "AdMiN", "password": "right-pass-123"})

    assert refused.status_code == 429


def test_sign_ins_leave_no_second_log_and_failures_go_after_their_lockout(admin, settings):
    from accounts.tasks import audit_purge_task

    Client().post("/accounts/login/", {"username": "Tr0ub4dor&3", "password": "admin"})
    assert login(Client(), "right-pass-123").status_code == 302

    assert not AccessLog.objects.exists()  # the audit trail records sign-ins, with retention
    assert AccessAttempt.objects.filter(username="tr0ub4dor&3").exists()  # a typed password
    later = timezone.now() + settings.AXES_COOLOFF_TIME + timedelta(minutes=1)
    with time_machine.travel(later):
        assert audit_purge_task()["failed_sign_ins"] == 1
    assert not AccessAttempt.objects.exists()


def test_console_pages_carry_a_strict_csp(admin):
    client = Client()
    client.force_login(admin)
    for url in ["/", "/knowledge/", "/chat/", "/licenses/", "/accounts/login/", "/api/docs/"]:
        policy = client.get(url)["Content-Security-Policy"]
        script_src = next(p for p in policy.split("; ") if p.startswith("script-src"))
        assert script_src == "script-src 'self'", url
        assert "frame-ancestors 'none'" in policy
        if url != "/api/docs/":  # Swagger UI sets style attributes from its script
            assert "'unsafe-inline'" not in policy, url


def test_no_template_has_inline_script_or_style():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "templates"
    for template in root.rglob("*.html"):
        text = template.read_text()
        assert "<style" not in text, template
        assert " style=" not in text, template
        for tag in text.split("<script")[1:]:
            assert "src=" in tag.split(">")[0], template
        assert not re.search(r"\son[a-z]+=", text), template  # onclick=, onsubmit=…


class TestClientAddress:
    """Whose address login throttling and the logs see (web.http.client_ip)."""

    def request(self, remote="", forwarded=""):
        from django.test import RequestFactory

        return RequestFactory().get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR=forwarded)

    def test_a_forwarded_address_alone_is_a_claim(self):
        from web.http import client_ip

        assert client_ip(self.request(forwarded="192.0.2.7")) is None

    def test_a_direct_client_cannot_claim_another_address(self):
        from web.http import client_ip

        assert client_ip(self.request("192.0.2.7", forwarded="203.0.113.1")) == "192.0.2.7"

    def test_behind_a_trusted_proxy_the_address_it_appended(self, settings):
        from web.http import client_ip

        settings.BEHIND_PROXY = True
        request = self.request("10.0.0.2", forwarded="203.0.113.1, 192.0.2.7")
        assert client_ip(request) == "192.0.2.7"  # the proxy's entry, not the client's claim


@pytest.mark.django_db
def test_cookies_are_secure_exactly_when_the_request_came_over_https(client, settings):
    # Finding N8: cookies were Secure because of which database was used, so signing in over
    # http:// failed; now only the request's own scheme decides.
    plain = client.get("/accounts/login/")
    assert not plain.cookies["csrftoken"]["secure"]
    assert client.get("/accounts/login/", secure=True).cookies["csrftoken"]["secure"]
    # A client's claim of HTTPS counts only behind a trusted proxy.
    claimed = client.get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
    assert not claimed.cookies["csrftoken"]["secure"]


def test_expired_sessions_go_with_the_daily_purge(admin, settings):
    from django.contrib.sessions.models import Session

    from accounts.tasks import audit_purge_task

    login(Client(), "right-pass-123")
    with time_machine.travel(timezone.now() + timedelta(seconds=settings.SESSION_COOKIE_AGE + 60)):
        login(Client(), "right-pass-123")
        assert audit_purge_task()["expired_sessions"] == 1

    assert Session.objects.count() == 1  # the fresh one


@pytest.mark.django_db(transaction=True)
def test_the_sign_ins_axes_logged_before_are_emptied_by_the_upgrade():
    from tests.migrations import latest, migrate

    migrate([("accounts", "0003_single_sign_on_identity")])
    try:
        AccessLog.objects.create(
            username="ana", ip_address="203.0.113.7", user_agent="Firefox", path_info="/"
        )
    finally:
        migrate(latest())

    assert not AccessLog.objects.exists()


def test_django_s_own_admin_site_is_not_served(client, admin_user):
    """It was, at /django-admin/: a second way in past the console's rules and its audit
    trail — API tokens made for any account, groups and superusers changed without the
    last-owner check, a password sign-in for accounts that sign in through single sign-on."""
    paths = ["/django-admin/", "/django-admin/login/", "/django-admin/authtoken/tokenproxy/add/"]
    assert [client.get(path).status_code for path in paths] == [404, 404, 404]
    client.force_login(admin_user)
    assert client.get("/django-admin/auth/user/").status_code == 404
