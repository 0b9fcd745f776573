"""Findings F11 and F12 of the third outside attack run: /metrics and the detailed /healthz
answered any staff account, roleless included; Django's password-reset views were
anonymous, unthrottled and tried SMTP on localhost:25."""

from __future__ import annotations

import pytest

from accounts.roles import role_grant

pytestmark = pytest.mark.django_db


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
def test_a_roleless_staff_account_sees_no_more_than_anyone(client, django_user_model):
    roleless = django_user_model.objects.create_user("nobody", password="pw", is_staff=True)
    client.force_login(roleless)
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.5").status_code == 404
    assert set(client.get("/healthz").json()) == {"status"}

    role_grant(username="nobody", role="support")
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.5").status_code == 200
    assert "database" in client.get("/healthz").json() or len(client.get("/healthz").json()) > 1


def test_without_mail_password_reset_is_off_with_a_sentence(client, settings, mailoutbox):
    """Since #44 the reset goes through the mail path, throttled (tests/accounts/
    test_password_reset.py); with no SMTP_HOST it sends nothing and says who can help."""
    settings.MAIL_ENABLED = False
    for response in (
        client.get("/accounts/password_reset/"),
        client.post("/accounts/password_reset/", {"email": "admin@example.com"}),
    ):
        assert response.status_code == 200 and "Ask an owner" in response.content.decode()
    assert mailoutbox == []
    assert "Ask an owner to set a new one" in client.get("/accounts/login/").content.decode()


def test_a_superuser_granted_a_narrower_role_holds_only_that_role(django_user_model):
    """createsuperuser, then grant_role x support, said "now has the role support" while the
    account stayed a superuser that could do everything."""
    from io import StringIO

    from django.core.management import call_command

    from accounts.roles import ADD_KNOWLEDGE, user_roles

    django_user_model.objects.create_superuser("root", "root@example.com", "pw-root-1234")
    out = StringIO()
    call_command("grant_role", "root", "support", stdout=out)
    root = django_user_model.objects.get(username="root")
    assert not root.is_superuser and user_roles(root) == ["support"]
    assert not root.has_perm(ADD_KNOWLEDGE)
    assert "was a superuser" in out.getvalue()

    call_command("grant_role", "root", "owner", stdout=StringIO())
    root = django_user_model.objects.get(username="root")
    assert root.has_perm(ADD_KNOWLEDGE)


def test_the_embedded_postgresql_socket_is_its_account_s_only():
    import stat
    from pathlib import Path

    from django.db import connection

    host = connection.settings_dict.get("HOST") or ""
    if not host.startswith("/"):
        pytest.skip("an external PostgreSQL over TCP: its socket is not the product's")
    sockets = list(Path(host).glob(".s.PGSQL.*"))
    sockets = [s for s in sockets if s.is_socket()]
    assert sockets and all(stat.S_IMODE(s.stat().st_mode) & 0o077 == 0 for s in sockets)
