"""Rate limits per license and per (license, end user), for keys and widget tokens alike."""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime

import pytest
import redis
import time_machine
from django.conf import settings
from rest_framework.test import APIClient

from licenses.services import license_forge
from licenses.widget_tokens import widget_token_issue
from tests.factories import make_document

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]
SITE = "https://app.example.com"


@pytest.fixture(autouse=True)
def _one_window():
    # Windows are whole minutes: a test that crossed a minute boundary would see its counts
    # reset. Time stands still at the start of a minute instead.
    with time_machine.travel("2026-11-23 10:00:01", tick=False):
        yield


@pytest.fixture
def forged():
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    forged = license_forge(user_name="Ana", machine_id="sala-r", allowed_origins=[SITE])
    make_document(
        "# Piscina\n\nLa piscina abre a las ocho.", filename="p.md", license=forged.license
    )
    return forged


def key_client(forged):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {forged.key}")
    return client


def chat_as(client, user=None):
    body = {"message": "piscina"} | ({"user": user} if user else {})
    return client.post("/api/v1/chat", body, format="json").status_code


def test_a_backend_key_gets_one_bucket_per_end_user_not_one_for_everyone(forged, settings):
    settings.CHAT_RATE_PER_USER_PER_MINUTE = 2
    client = key_client(forged)
    # 25 end users, one message each, through one license key: nobody is refused.
    assert {chat_as(client, f"resident-{n}") for n in range(25)} == {200}
    # One end user is still held to the per-user limit.
    assert [chat_as(client, "resident-0") for _ in range(2)] == [200, 429]


def test_the_license_bucket_caps_all_its_users_together(forged, settings):
    settings.CHAT_RATE_PER_LICENSE_PER_MINUTE = 3
    client = key_client(forged)
    codes = [chat_as(client, f"u{n}") for n in range(4)]
    assert codes == [200, 200, 200, 429]


def test_widget_users_of_one_license_have_buckets_of_their_own(forged, settings):
    settings.CHAT_RATE_PER_USER_PER_MINUTE = 1
    for user in ("ana", "bea"):
        token, _ = widget_token_issue(license=forged.license, user_ref=user, origin=SITE)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Widget {token}")
        assert (
            client.post(
                "/api/v1/chat", {"message": "piscina"}, format="json", HTTP_ORIGIN=SITE
            ).status_code
            == 200
        )


def test_search_is_limited_per_license_with_a_json_429(forged, settings):
    settings.SEARCH_RATE_PER_LICENSE_PER_MINUTE = 2
    client = key_client(forged)
    responses = [
        client.post("/api/v1/search", {"query": "piscina"}, format="json") for _ in range(3)
    ]
    assert [r.status_code for r in responses] == [200, 200, 429]
    assert 1 <= int(responses[-1]["Retry-After"]) <= 60
    assert "detail" in responses[-1].json()


def test_while_redis_is_down_requests_are_served_and_that_is_logged_once(
    forged, monkeypatch, caplog
):
    from licenses import throttles

    class Down:
        def test(self, *args, **kwargs):
            raise redis.ConnectionError("connection refused")

    monkeypatch.setattr(throttles, "limiter", lambda: Down())
    monkeypatch.setattr(throttles, "_last_warning", 0.0)
    client = key_client(forged)
    with caplog.at_level(logging.WARNING, logger="licenses.throttles"):
        codes = [
            client.post("/api/v1/search", {"query": "piscina"}, format="json").status_code
            for _ in range(3)
        ]
    assert codes == [200, 200, 200]
    warnings = [r for r in caplog.records if "rate limits not enforced" in r.getMessage()]
    assert len(warnings) == 1


def test_refused_calls_do_not_count_against_the_license(forged, settings):
    # Finding F3 of the second outside attack run: one end user hammering search used up
    # the license's bucket with calls that were refused, and its other users got 429.
    settings.SEARCH_RATE_PER_USER_PER_MINUTE = 2
    settings.SEARCH_RATE_PER_LICENSE_PER_MINUTE = 5
    client = key_client(forged)

    def search_as(user):
        body = {"query": "piscina", "user": user}
        return client.post("/api/v1/search", body, format="json").status_code

    assert [search_as("hammer") for _ in range(10)] == [200, 200] + [429] * 8
    assert [search_as(f"neighbour-{n}") for n in range(3)] == [200, 200, 200]
    assert search_as("one-too-many") == 429  # the license's 5, all served


def test_memory_calls_are_limited_and_an_edit_costs_five(forged, settings):
    # Finding N3: /api/v1/me/* had no limit, and every edit embeds the memory again.
    from tests.memory.support import consent, propose

    settings.MEMORY_RATE_PER_USER_PER_MINUTE = 11
    consent(forged.license, "ana")
    memory = propose(forged.license, "Prefiere la piscina", user="ana")
    client = key_client(forged)

    def edit(text):
        return client.patch(
            f"/api/v1/me/memories/{memory.pk}?user=ana", {"description": text}, format="json"
        ).status_code

    assert [edit("Prefiere la piscina climatizada"), edit("Prefiere la piscina cubierta")] == [
        200,
        200,
    ]
    assert edit("Prefiere el gimnasio") == 429  # 10 of 11 spent: an edit needs 5
    assert client.get("/api/v1/me/memories?user=ana").status_code == 200  # a read needs 1
    assert client.get("/api/v1/me/memories?user=ana").status_code == 429
    assert client.get("/api/v1/me/memories?user=bea").status_code == 200  # another user


def test_admin_calls_are_limited_too(forged, settings, django_user_model):
    """Finding F9: admin-token calls had no limit at all."""
    from rest_framework.authtoken.models import Token

    from accounts.roles import role_grant

    settings.CHAT_RATE_PER_LICENSE_PER_MINUTE = 3
    admin = django_user_model.objects.create_user("ops", password="pw-ops-1234", is_staff=True)
    role_grant(username="ops", role="knowledge_editor")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=admin).key}")
    assert [chat_as(client) for _ in range(4)] == [200, 200, 200, 429]
    assert chat_as(key_client(forged)) == 200  # the license's bucket is its own


@pytest.mark.slow  # real seconds: the point of the test
def test_a_window_s_quota_is_not_admitted_again_as_one_burst_at_its_edge():
    """Finding F9: a fixed window let a whole quota through at a window's end and again at
    the next one's start. The window slides: right after the edge, the previous window's
    calls still count. (Real time, on a two-second window: the limits live in Redis, whose
    clock no test can move.)"""
    from limits import RateLimitItemPerSecond

    from licenses.throttles import limiter

    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    item, ids = RateLimitItemPerSecond(10, 2), ("test", "edge")
    rate = limiter()
    with time_machine.travel(datetime.now(UTC), tick=True):  # the clock moves again
        assert all(rate.hit(item, *ids) for _ in range(10))
        time.sleep(2.1)
        again = sum(rate.hit(item, *ids) for _ in range(10))
    assert again <= 2  # a fixed window admitted all 10 again
