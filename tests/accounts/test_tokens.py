"""Personal API tokens: created in the console or the API (tag tokens), shown once, stored
hashed, limited to a role the creator holds, refused once revoked or expired."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AuditEntry, PersonalToken
from accounts.roles import role_grant
from tests.factories import as_owner

pytestmark = pytest.mark.django_db


def member(username: str, role: str):
    user = get_user_model().objects.create_user(username, password="pw-123456789")
    role_grant(username=username, role=role)
    return get_user_model().objects.get(pk=user.pk)


def session_client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user=None)
    client.force_login(user)
    return client


def create(client: APIClient, **body):
    body.setdefault("name", "ci")
    body.setdefault("expires_at", (timezone.now() + timedelta(days=30)).isoformat())
    return client.post("/api/v1/tokens", body, format="json")


def bearer(key: str, scheme: str = "Bearer") -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}")
    return client


def test_a_token_works_on_the_admin_api_until_revoked():
    owner = member("olga", "owner")
    response = create(session_client(owner), name="deploy")

    assert response.status_code == 201 and response["Cache-Control"] == "no-store"
    key = response.json()["token"]
    stored = PersonalToken.objects.get()
    assert key.startswith("pbt_") and key not in (stored.key_hash, stored.prefix)
    for scheme in ("Bearer", "Token"):
        assert bearer(key, scheme).get("/api/v1/documents").status_code == 200
    assert PersonalToken.objects.get().last_used_at is not None

    revoked = bearer(key).delete(f"/api/v1/tokens/{stored.pk}")

    assert revoked.status_code == 204
    refused = bearer(key).get("/api/v1/documents")
    assert refused.status_code == 401 and "revoked" in refused.json()["detail"]
    actions = set(AuditEntry.objects.values_list("action", "actor"))
    assert ("token.created", "olga") in actions
    assert ("token.revoked", "olga (token deploy)") in actions


def test_an_expired_token_is_refused():
    key = create(
        session_client(member("olga", "owner")),
        expires_at=(timezone.now() + timedelta(hours=1)).isoformat(),
    ).json()["token"]

    with time_machine.travel(timezone.now() + timedelta(hours=2)):
        response = bearer(key).get("/api/v1/documents")

    assert response.status_code == 401 and "expired" in response.json()["detail"]


def test_a_knowledge_editor_cannot_mint_an_owner_token():
    editor = member("kim", "knowledge_editor")

    response = create(session_client(editor), role="owner")

    assert response.status_code == 403
    assert "role owner" in response.json()["detail"]
    assert not PersonalToken.objects.exists()


def test_a_token_limited_to_a_role_does_only_what_the_role_may():
    owner = as_owner(get_user_model().objects.create_superuser("root", password="pw-123456789"))
    key = create(session_client(owner), role="support").json()["token"]
    client = bearer(key)

    assert client.get("/api/v1/documents").status_code == 200  # support reads knowledge
    upload = client.post("/api/v1/documents", {"text": "x", "filename": "x.txt"}, format="json")
    assert upload.status_code == 403  # … but may not upload, though its creator may
    # A token it makes is limited the same way, and cannot be widened.
    assert create(client, role="owner").status_code == 403
    assert create(client).json()["role"] == "support"


def test_a_members_tokens_are_theirs_alone():
    olga, kim = member("olga", "owner"), member("kim", "knowledge_editor")
    create(session_client(olga))
    token = PersonalToken.objects.get()

    assert session_client(kim).delete(f"/api/v1/tokens/{token.pk}").status_code == 404
    assert session_client(kim).get("/api/v1/tokens").json() == []


def test_a_deactivated_members_token_stops_working():
    olga = member("olga", "owner")
    key = create(session_client(olga)).json()["token"]
    get_user_model().objects.filter(pk=olga.pk).update(is_active=False)

    assert bearer(key).get("/api/v1/documents").status_code == 401


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"name": " "}, "name"),
        ({"expires_at": "2020-01-01T00:00:00Z"}, "future"),
        ({"role": "emperor"}, "valid choice"),
    ],
)
def test_bad_requests_get_a_sentence(body, message):
    response = create(session_client(member("olga", "owner")), **body)

    assert response.status_code == 400 and message in str(response.json())
    assert not PersonalToken.objects.exists()


def test_the_console_page_shows_a_new_token_once(client):
    client.force_login(member("kim", "knowledge_editor"))

    page = client.post(
        "/account/tokens/", {"name": "laptop", "days": "30", "role": "knowledge_editor"}
    )

    html = page.content.decode()
    token = PersonalToken.objects.get()
    key = html.split('id="new-token" readonly value="')[1].split('"')[0]
    assert key.startswith(token.prefix) and page["Cache-Control"] == "no-store"
    assert key not in client.get("/account/tokens/").content.decode()
    assert "owner" not in [choice for choice, _ in page.context["form"].fields["role"].choices]
    client.post(f"/account/tokens/{token.pk}/revoke")
    assert PersonalToken.objects.get().revoked_at is not None
