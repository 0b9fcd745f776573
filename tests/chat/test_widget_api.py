from __future__ import annotations

import pytest
import redis
import time_machine
from django.conf import settings
from rest_framework.test import APIClient

from licenses.services import license_forge, license_revoke
from tests.factories import make_document

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]
SITE = "https://app.example.com"


@pytest.fixture
def forged():
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    forged = license_forge(user_name="Ana", machine_id="sala-w", allowed_origins=[SITE])
    make_document(
        "# Piscina\n\nLa piscina abre a las ocho.", filename="p.md", license=forged.license
    )
    return forged


def mint(forged, origin=SITE, user="user-42"):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {forged.key}")
    return client.post("/api/v1/widget/token", {"user": user, "origin": origin}, format="json")


def widget_client(token, origin=SITE):
    """As the widget's browser calls: the token, and the page's Origin (None: a script)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Widget {token}")
    if origin:
        client.credentials(HTTP_AUTHORIZATION=f"Widget {token}", HTTP_ORIGIN=origin)
    return client


def test_backend_exchanges_its_key_for_a_token_bound_to_an_allowed_origin(forged):
    response = mint(forged)

    assert response.status_code == 200
    assert response.json()["token"].startswith("pbw_") and response.json()["expires_at"]
    assert forged.key not in response.json()["token"]
    refused = mint(forged, origin="https://evil.example")
    assert (
        refused.status_code == 400
        and "not among this license's widget origins" in refused.json()["detail"]
    )


def test_a_token_cannot_mint_tokens_and_anonymous_cannot_either(forged):
    token = mint(forged).json()["token"]
    assert widget_client(token).post(
        "/api/v1/widget/token", {"user": "x", "origin": SITE}, format="json"
    ).status_code in (401, 403)
    assert APIClient().post(
        "/api/v1/widget/token", {"user": "x", "origin": SITE}, format="json"
    ).status_code in (401, 403)


def test_the_widget_chats_with_its_token_from_its_origin(forged):
    token = mint(forged).json()["token"]
    response = widget_client(token).post(
        "/api/v1/chat",
        {"message": "piscina abre", "user": "someone-else"},
        format="json",
        HTTP_ORIGIN=SITE,
    )

    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == SITE
    from chat.session import _key

    session_id = response.json()["session_id"]
    client = redis.Redis.from_url(settings.REDIS_URL)
    assert client.exists(_key(forged.license.pk, "user-42", session_id))  # the token's user
    assert not client.exists(_key(forged.license.pk, "someone-else", session_id))


def test_calls_from_another_origin_are_refused(forged):
    token = mint(forged).json()["token"]
    response = widget_client(token, origin="https://evil.example").post(
        "/api/v1/chat", {"message": "hola"}, format="json"
    )

    assert response.status_code == 403
    assert "Access-Control-Allow-Origin" not in response


def test_preflight_is_answered_only_for_known_origins(forged):
    client = APIClient()
    ok = client.options(
        "/api/v1/chat/stream", HTTP_ORIGIN=SITE, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
    )
    evil = client.options(
        "/api/v1/chat/stream",
        HTTP_ORIGIN="https://evil.example",
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST",
    )

    # django-cors-headers answers every preflight; only a known origin gets the headers
    # that let a browser go on.
    assert ok.status_code == 200 and ok["Access-Control-Allow-Origin"] == SITE
    assert "authorization" in ok["Access-Control-Allow-Headers"]
    assert ok["Access-Control-Max-Age"] == "600"
    assert "Access-Control-Allow-Origin" not in evil
    # Other paths never get CORS, whatever the origin.
    search = client.options(
        "/api/v1/search", HTTP_ORIGIN=SITE, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
    )
    assert "Access-Control-Allow-Origin" not in search


@pytest.mark.parametrize("problem", ["revoked", "tampered"])
def test_revoked_licenses_and_tampered_tokens_get_401(forged, problem):
    token = mint(forged).json()["token"]
    if problem == "revoked":
        license_revoke(license=forged.license)
    else:
        token = token[:-4] + "AAAA"
    response = widget_client(token).post(
        "/api/v1/chat", {"message": "hola"}, format="json", HTTP_ORIGIN=SITE
    )

    assert response.status_code == 401
    assert ("revoked" if problem == "revoked" else "Invalid") in response.json()["detail"]


@time_machine.travel("2026-11-23 10:00:01", tick=False)  # one rate window throughout
def test_rate_limit_answers_429_with_retry_after(forged, settings):
    settings.CHAT_RATE_PER_USER_PER_MINUTE = 2
    client = widget_client(mint(forged).json()["token"])
    codes = [
        client.post("/api/v1/chat", {"message": "piscina"}, format="json", HTTP_ORIGIN=SITE)
        for _ in range(3)
    ]

    assert [r.status_code for r in codes] == [200, 200, 429]
    assert 1 <= int(codes[-1]["Retry-After"]) <= 60


class TestOrigins:
    def test_a_token_stops_working_once_its_origin_is_removed(self, forged):
        from licenses.services import license_update

        token = mint(forged).json()["token"]
        license_update(license=forged.license, user_name="Ana", allowed_origins=[], expires_at=None)
        response = widget_client(token).post(
            "/api/v1/chat", {"message": "piscina"}, format="json", HTTP_ORIGIN=SITE
        )
        assert response.status_code == 401 and "no longer allowed" in response.json()["detail"]

    def test_a_token_without_an_origin_header_is_refused(self, forged):
        token = mint(forged).json()["token"]
        response = widget_client(token, origin=None).post(
            "/api/v1/chat", {"message": "piscina"}, format="json"
        )
        assert response.status_code == 403 and "only from the widget" in response.json()["detail"]

    def test_no_cors_for_a_revoked_licenses_origin(self, forged):
        client = APIClient()
        allowed = client.options(
            "/api/v1/chat", HTTP_ORIGIN=SITE, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
        )
        assert allowed["Access-Control-Allow-Origin"] == SITE
        license_revoke(license=forged.license)
        refused = client.options(
            "/api/v1/chat", HTTP_ORIGIN=SITE, HTTP_ACCESS_CONTROL_REQUEST_METHOD="POST"
        )
        assert "Access-Control-Allow-Origin" not in refused

    def test_a_widget_token_cannot_search(self, forged):
        token = mint(forged).json()["token"]
        response = widget_client(token).post(
            "/api/v1/search",
            {"query": "piscina", "min_score": -1, "top_k": 50},
            format="json",
            HTTP_ORIGIN=SITE,
        )
        assert response.status_code in {401, 403}
        assert "results" not in response.json()


class TestTranscript:
    def test_the_widget_gets_its_own_conversation_back_and_nobody_else_s(self, forged):
        mine = widget_client(mint(forged, user="ana").json()["token"])
        theirs = widget_client(mint(forged, user="bea").json()["token"])
        answer = mine.post("/api/v1/chat", {"message": "piscina abre"}, format="json").json()

        restored = mine.get(f"/api/v1/chat/session?session_id={answer['session_id']}").json()
        assert restored["session_id"] == answer["session_id"] and restored["user_name"] == "Ana"
        assert [t["role"] for t in restored["turns"]] == ["user", "model"]
        assert restored["turns"][1]["text"] == answer["answer"]
        assert restored["turns"][1]["citations"][0]["document"] == "p.md"

        stolen = theirs.get(f"/api/v1/chat/session?session_id={answer['session_id']}").json()
        assert (stolen["session_id"], stolen["user_name"], stolen["turns"]) == (None, "Ana", [])

    def test_without_a_session_it_gives_the_name_to_greet(self, forged):
        client = widget_client(mint(forged).json()["token"])
        session = client.get("/api/v1/chat/session?lang=en").json()
        assert (session["session_id"], session["user_name"], session["turns"]) == (None, "Ana", [])
        assert session["assistant"]["greeting"] == "Hello, Ana. I am Savara. How can I help?"


class TestRevocation:
    """Finding N10 of the second outside attack run: a leaked token (replayed with a forged
    Origin header by a script) worked for its whole hour and could not be ended on its own."""

    def revoke(self, forged, token):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {forged.key}")
        return client.post("/api/v1/widget/token/revoke", {"token": token}, format="json")

    def chat(self, token):
        return widget_client(token).post("/api/v1/chat", {"message": "piscina"}, format="json")

    def test_a_revoked_token_is_refused_and_its_siblings_are_not(self, forged):
        leaked, kept = mint(forged).json()["token"], mint(forged).json()["token"]
        assert self.chat(leaked).status_code == 200

        assert self.revoke(forged, leaked).status_code == 204
        refused = self.chat(leaked)
        assert refused.status_code == 401 and "ended" in refused.json()["detail"]
        assert self.chat(kept).status_code == 200  # the same user's other page
        assert self.revoke(forged, leaked).status_code == 204  # twice is no error

    def test_only_the_license_it_was_issued_for_may_revoke_it(self, forged):
        token = mint(forged).json()["token"]
        other = license_forge(user_name="B", machine_id="sala-x", allowed_origins=[SITE])

        assert self.revoke(other, token).status_code == 400
        assert self.chat(token).status_code == 200

    def test_the_revocation_lasts_as_long_as_the_token_would_have(self, forged):
        token = mint(forged).json()["token"]
        self.revoke(forged, token)

        keys = redis.Redis.from_url(settings.REDIS_URL).keys("pb:widget-revoked:*")
        ttl = redis.Redis.from_url(settings.REDIS_URL).ttl(keys[0])
        assert len(keys) == 1 and 0 < ttl <= settings.WIDGET_TOKEN_TTL_SECONDS + 1
