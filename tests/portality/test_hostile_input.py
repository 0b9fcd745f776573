"""Every API endpoint, every kind of caller, hostile input: a 4xx with a JSON sentence, never
a 500. The endpoints are read from the OpenAPI schema, so a new one is walked too."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from drf_spectacular.generators import SchemaGenerator
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from licenses.services import license_forge
from licenses.widget_tokens import widget_token_issue
from tests.factories import as_owner, make_document

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]
SITE = "https://app.example.com"
NUL = "a\u0000b"
BODIES = {
    "deep": ("[" * 100_000 + "]" * 100_000).encode(),
    "nul": (
        b'{"query": "a\\u0000b", "message": "a\\u0000b", "user": "a\\u0000b", '
        b'"origin": "a\\u0000b", "description": "a\\u0000b", "given": true}'
    ),
    "surrogate": b'{"query": "\\ud800", "message": "\\ud800", "user": "\\ud800"}',
    "too big": b'{"query": "' + b"a" * (3 * 1024 * 1024) + b'"}',
    "not json": b"{'query': ",
}


def endpoints() -> list[tuple[str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = []
    for path, operations in schema["paths"].items():
        concrete = re.sub(r"\{[^}]+\}", "00000000-0000-0000-0000-000000000000", path)
        found += [(method.upper(), concrete) for method in operations]
    return found


@pytest.fixture
def callers(django_user_model):
    forged = license_forge(user_name="Ana", machine_id="sala-h", allowed_origins=[SITE])
    make_document(
        "# Piscina\n\nLa piscina abre a las ocho.", filename="p.md", license=forged.license
    )
    admin = as_owner(django_user_model.objects.create_user("root", password="pw", is_staff=True))
    token, _ = widget_token_issue(license=forged.license, user_ref="u1", origin=SITE)
    return {
        "license key": f"Bearer {forged.key}",
        "admin token": f"Token {Token.objects.create(user=admin).key}",
        "widget token": f"Widget {token}",
        "anonymous": "",
    }


def assert_clean_refusal(response, what: str) -> None:
    assert response.status_code < 500, f"{what}: {response.status_code}"
    if response.status_code >= 400:
        assert response["Content-Type"].startswith("application/json"), what
        assert response.json().get("detail"), what


def test_the_schema_lists_every_endpoint():
    paths = {path for _, path in endpoints()}
    assert {"/api/v1/search", "/api/v1/chat", "/api/v1/chat/stream", "/api/v1/me/memories"} <= paths


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
@pytest.mark.parametrize("kind", sorted(BODIES))
def test_hostile_bodies_on_every_endpoint(callers, kind):
    for method, path in endpoints():
        if method not in {"POST", "PUT", "PATCH"}:
            continue
        for caller, authorization in callers.items():
            client = APIClient()
            response = client.generic(
                method,
                path,
                BODIES[kind],
                content_type="application/json",
                HTTP_AUTHORIZATION=authorization,
                HTTP_ORIGIN=SITE,
            )
            assert_clean_refusal(response, f"{kind} {method} {path} as {caller}")
            if caller != "anonymous" and kind in {"deep", "nul", "surrogate", "not json"}:
                assert response.status_code in {400, 401, 403, 404, 405, 415, 429}, (
                    kind,
                    path,
                    caller,
                )
            if kind == "too big" and caller != "anonymous":
                # 413, or refused earlier for who is asking (a 400 "name the user", a 401).
                assert response.status_code in {400, 401, 403, 404, 405, 413}, (path, caller)


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
def test_nul_in_the_address_on_every_endpoint(callers):
    for method, path in endpoints():
        for caller, authorization in callers.items():
            response = APIClient().generic(
                method,
                f"{path}?user={NUL}&q={NUL}",
                HTTP_AUTHORIZATION=authorization,
                HTTP_ORIGIN=SITE,
            )
            assert_clean_refusal(response, f"{method} {path}?…%00 as {caller}")
            assert response.status_code == 400


def test_the_memories_query_with_a_nul_user_is_a_400(callers):
    response = APIClient().get(
        "/api/v1/me/memories?user=a%00b", HTTP_AUTHORIZATION=callers["license key"]
    )
    assert response.status_code == 400 and "NUL" in response.json()["detail"]


def test_a_body_over_the_limit_is_a_json_413(callers):
    response = APIClient().generic(
        "POST",
        "/api/v1/search",
        BODIES["too big"],
        content_type="application/json",
        HTTP_AUTHORIZATION=callers["license key"],
    )
    assert response.status_code == 413 and "larger than" in response.json()["detail"]


def test_nul_in_a_console_form_is_a_400_before_any_view(django_user_model, media_root):
    """An erasure's ``user`` reached the database as typed (a 500, found by the console
    fuzz); a multipart form's fields are read the same way, its files are not."""
    from django.test import Client

    from conversations.models import Conversation
    from knowledge.models import Document
    from licenses.services import license_forge
    from tests.factories import as_owner, make_unanswered_exchange

    forged = license_forge(user_name="Ana", machine_id="sala-nul", allowed_origins=[])
    make_unanswered_exchange(forged.license, user_ref="ana")
    owner = as_owner(django_user_model.objects.create_user("o", password="pw", is_staff=True))
    client = Client()
    client.force_login(owner)

    erased = client.post("/conversations/erase", {"license": "sala-nul", "user": NUL})
    uploaded = client.post(
        "/knowledge/upload",
        {"file": SimpleUploadedFile("a\x00.txt", b"La piscina\x00abre."), "pdf_password": NUL},
    )

    for refused in (erased, uploaded):
        assert refused.status_code == 400
        assert "may not contain NUL characters" in refused.content.decode()
    assert Conversation.objects.count() == 1 and not Document.objects.exists()
    fine = client.post(
        "/knowledge/upload", {"file": SimpleUploadedFile("a.txt", b"La piscina\x00abre.")}
    )
    assert "NUL characters" not in fine.content.decode()  # a file's bytes: the readers
