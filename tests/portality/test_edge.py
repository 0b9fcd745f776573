"""The edge's limits (runtime/edge.py), driven through ASGI directly: what reaches the
application, what is refused and in which words. The same limits against the real server
process are in test_runner.py."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from runtime.edge import Edge, EdgeLimits, client_address

LIMITS = EdgeLimits(
    body_max_bytes=1000,
    upload_max_bytes=10_000,
    upload_paths=re.compile("/knowledge/upload"),
    body_min_rate=1000,
    body_grace_seconds=0.2,
    client_requests=2,
    app_slots=1,
    behind_proxy=False,
)


class App:
    """Django's part, as an ASGI app: reads the whole body, then answers 200 with its size."""

    def __init__(self, hold: asyncio.Event | None = None) -> None:
        self.bodies: list[bytes] = []
        self.hold = hold

    async def __call__(self, scope, receive, send):
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # Django's read_body: an aborted request is dropped quietly
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if self.hold is not None and scope["path"] != "/healthz":
            await self.hold.wait()
        self.bodies.append(body)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": str(len(body)).encode()})


def scope(path="/api/v1/search", headers=(), client="198.51.100.1", method="POST"):
    return {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(k.encode(), v.encode()) for k, v in headers],
        "client": (client, 50000),
    }


def chunks(*parts: bytes, delay: float = 0.0):
    """A client sending ``parts`` with ``delay`` seconds before each."""
    queue = list(parts)

    async def receive():
        if not queue:
            await asyncio.sleep(3600)  # nothing more: a client that stalls
        await asyncio.sleep(delay)
        part = queue.pop(0)
        return {"type": "http.request", "body": part, "more_body": bool(queue)}

    return receive


async def call(edge, scope_, receive):
    sent = []

    async def send(message):
        sent.append(message)

    await edge(scope_, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], body


def edge_with(app, *, may_upload=False, limits=LIMITS):
    async def upload_check(headers):
        return may_upload

    return Edge(app, limits, may_upload=upload_check, language=lambda headers: "en")


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_small_body_reaches_the_application_whole():
    app = App()
    status, body = run(call(edge_with(app), scope(), chunks(b"ab", b"cd")))
    assert (status, body, app.bodies) == (200, b"4", [b"abcd"])


def test_a_declared_body_over_the_limit_is_refused_before_it_is_read():
    app = App()
    headers = [("content-length", "5000")]
    status, body = run(call(edge_with(app), scope(headers=headers), chunks(b"x" * 5000)))
    assert status == 413 and app.bodies == []
    assert "limit here is 0.0 MB" in json.loads(body)["detail"]


def test_an_undeclared_body_that_grows_past_the_limit_is_refused():
    app = App()
    status, _ = run(call(edge_with(app), scope(), chunks(b"x" * 600, b"x" * 600)))
    assert status == 413 and app.bodies == []


@pytest.mark.parametrize("value", ["ten", "10, 10", "-1"])
def test_an_unreadable_content_length_is_a_400(value):
    status, body = run(
        call(edge_with(App()), scope(headers=[("content-length", value)]), chunks(b""))
    )
    assert status == 400 and "Content-Length" in json.loads(body)["detail"]


def test_a_large_upload_needs_an_account_that_may_upload_before_it_is_read():
    # Finding N2: anonymous 49 MB bodies were buffered whole before Django saw them.
    headers = [("content-length", "5000")]
    app = App()
    status, body = run(call(edge_with(app), scope("/knowledge/upload", headers), chunks(b"x")))
    assert status == 403 and app.bodies == []
    assert "Sign in" in json.loads(body)["detail"]

    allowed = edge_with(app, may_upload=True)
    status, _ = run(call(allowed, scope("/knowledge/upload", headers), chunks(b"x" * 5000)))
    assert status == 200 and app.bodies == [b"x" * 5000]
    # Even a permitted uploader stays within the upload limit.
    too_big = [("content-length", "20000")]
    status, _ = run(call(allowed, scope("/knowledge/upload", too_big), chunks(b"x")))
    assert status == 413


@pytest.mark.parametrize("method", ["GET", "DELETE", "HEAD"])
def test_reading_or_deleting_on_an_upload_route_is_the_applications_to_answer(method):
    # An anonymous GET of /api/v1/documents was told to sign in "before sending a file",
    # instead of the API's own answer about its credentials.
    app = App()
    path = "/knowledge/upload"
    status, _ = run(call(edge_with(app), scope(path, method=method), chunks(b"")))
    assert (status, app.bodies) == (200, [b""])
    # … and a body sent with them is held to the ordinary limit, not the upload's.
    status, _ = run(call(edge_with(app), scope(path, method=method), chunks(b"x" * 1200)))
    assert status == 413


def test_a_small_body_to_the_upload_route_needs_no_check():
    # The form without a file (and Django's own 403 for a missing session) stay Django's.
    headers = [("content-length", "10")]
    status, _ = run(call(edge_with(App()), scope("/knowledge/upload", headers), chunks(b"x" * 10)))
    assert status == 200


@pytest.mark.parametrize(
    ("upload", "may_upload", "status"),
    [
        ([("x-upload-length", "5000")], False, 403),
        ([("x-upload-encoding", "chunked")], False, 403),
        ([("x-upload-length", "5000")], True, 204),
        ([("x-upload-length", "10")], False, 204),  # within every route's limit: Django's
        ([], False, 204),  # no body (a GET or a DELETE of a document)
    ],
)
def test_a_proxy_asks_from_the_headers_whether_an_upload_may_send_its_body(
    upload, may_upload, status
):
    # nginx's auth_request: an anonymous upload refused mid-body reached the client as 502.
    app = App()
    edge = edge_with(app, may_upload=may_upload)
    answer, body = run(call(edge, scope("/_edge/may-upload", upload), chunks(b"")))
    assert answer == status and app.bodies == []
    if status == 403:
        assert "Sign in" in json.loads(body)["detail"]


def test_a_body_slower_than_the_minimum_rate_is_a_408():
    # Finding N1: a slow body with a large Content-Length held a socket for 17 minutes.
    app = App()
    headers = [("content-length", "100")]
    status, body = run(call(edge_with(app), scope(headers=headers), chunks(b"x", b"y", delay=0.3)))
    assert status == 408 and app.bodies == []
    assert "did not arrive in time" in json.loads(body)["detail"]


def test_a_body_that_falls_behind_the_rate_is_dropped_then_not_at_its_overall_deadline():
    """Third attack run: an authenticated upload at 1 byte a second was held for the grace
    period plus its declared size at the minimum rate (215 s for 10 MB)."""
    import time

    app = App()
    headers = [("content-length", "9000")]  # an overall deadline of 0.2 + 9 s
    started = time.monotonic()
    trickle = chunks(*[b"x"] * 9000, delay=0.05)  # 20 bytes a second
    upload = scope("/knowledge/upload", headers=headers)
    status, body = run(call(edge_with(app, may_upload=True), upload, trickle))
    assert status == 408 and app.bodies == []
    assert time.monotonic() - started < 1.5


def test_one_client_cannot_hold_more_than_its_share_others_still_get_in():
    async def scenario():
        hold = asyncio.Event()
        edge = edge_with(App(hold), limits=LIMITS.__class__(**{**LIMITS.__dict__, "app_slots": 5}))
        stalled = [asyncio.create_task(call(edge, scope(), chunks(b"x"))) for _ in range(2)]
        await asyncio.sleep(0.05)
        third = await call(edge, scope(), chunks(b"x"))
        other = asyncio.create_task(call(edge, scope(client="203.0.113.9"), chunks(b"x")))
        await asyncio.sleep(0.05)
        hold.set()
        return third, await other, [await task for task in stalled]

    (status, body), other, stalled = run(scenario())
    assert status == 429 and "Too many requests" in json.loads(body)["detail"]
    assert other[0] == 200 and [s for s, _ in stalled] == [200, 200]


def test_one_client_holds_at_most_its_share_of_the_slots_and_others_pass_it():
    """Finding F9: one address with many requests held every slot, and another license's
    searches waited behind all of them (p95 0.05 → 2.1 s)."""

    async def scenario():
        hold = asyncio.Event()
        app = App(hold)
        limits = LIMITS.__class__(**{**LIMITS.__dict__, "app_slots": 8, "client_requests": 32})
        edge = edge_with(app, limits=limits)
        flood = [
            asyncio.create_task(call(edge, scope(client="198.51.100.7"), chunks(b"x")))
            for _ in range(20)
        ]
        await asyncio.sleep(0.05)
        held_by_flood = limits.app_slots - edge.slots._value
        other = asyncio.create_task(call(edge, scope(client="203.0.113.9"), chunks(b"y")))
        await asyncio.sleep(0.05)
        # the other client got a slot at once, ahead of the flood's 18 waiting requests
        other_running = limits.app_slots - edge.slots._value == held_by_flood + 1
        hold.set()
        results = [await task for task in flood]
        return held_by_flood, other_running, (await other)[0], results

    held, other_running, other_status, flood = run(scenario())
    assert held == 2  # a quarter of 8
    assert other_running and other_status == 200
    assert [status for status, _ in flood] == [200] * 20  # the flood waited, nothing refused


def test_health_checks_do_not_wait_for_a_slot():
    async def scenario():
        hold = asyncio.Event()
        edge = edge_with(App(hold))
        busy = asyncio.create_task(call(edge, scope(client="192.0.2.1"), chunks(b"x")))
        await asyncio.sleep(0.05)  # it holds the only slot until released
        waiting = asyncio.create_task(call(edge, scope(client="192.0.2.2"), chunks(b"x")))
        health = asyncio.create_task(call(edge, scope("/healthz", client="192.0.2.3"), chunks(b"")))
        await asyncio.sleep(0.05)
        health_done, waiting_done = health.done(), waiting.done()
        hold.set()
        await asyncio.gather(busy, waiting, health)
        return health_done, waiting_done

    # /healthz went through while the only slot was taken; the other request waited for it.
    assert run(scenario()) == (True, False)


def test_a_slow_body_does_not_hold_a_slot():
    async def scenario():
        edge = edge_with(App())
        slow = asyncio.create_task(
            call(edge, scope(client="192.0.2.1"), chunks(b"x", b"y", delay=0.15))
        )
        await asyncio.sleep(0.05)
        quick = await asyncio.wait_for(call(edge, scope(client="192.0.2.2"), chunks(b"z")), 0.1)
        return quick, await slow

    assert run(scenario()) == ((200, b"1"), (200, b"2"))


def test_refusals_speak_the_clients_language():
    edge = Edge(
        App(),
        LIMITS,
        may_upload=lambda headers: asyncio.sleep(0, result=False),
        language=lambda headers: headers.get("accept-language", "en"),
    )
    for language, words in [("es", "Inicia sesión"), ("pt-br", "Entre, ou envie")]:
        headers = [("content-length", "5000"), ("accept-language", language)]
        status, body = run(call(edge, scope("/knowledge/upload", headers), chunks(b"x")))
        assert status == 403 and words in json.loads(body)["detail"], body


def test_the_lifespan_is_acknowledged():
    messages = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    sent = []

    async def receive():
        return messages.pop(0)

    async def send(message):
        sent.append(message["type"])

    run(edge_with(App())({"type": "lifespan"}, receive, send))
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]


@pytest.mark.parametrize(
    ("peer", "forwarded", "behind_proxy", "expected"),
    [
        ("198.51.100.1", "", False, "198.51.100.1"),
        ("198.51.100.1", "203.0.113.5", False, "198.51.100.1"),  # a claim, not trusted
        ("10.0.0.2", "203.0.113.5, 192.0.2.7", True, "192.0.2.7"),  # the proxy's own entry
        ("10.0.0.2", "", True, "10.0.0.2"),
    ],
)
def test_the_client_address_is_the_peer_or_the_trusted_proxys(
    peer, forwarded, behind_proxy, expected
):
    assert client_address(peer, forwarded, behind_proxy=behind_proxy) == expected


# -- Django's side of the edge: who may upload, which language ---------------------------


@pytest.mark.django_db(transaction=True)
def test_only_a_live_session_of_an_account_that_may_upload_may_send_a_large_body(
    client, django_user_model, settings
):
    from django.contrib.auth.models import Group

    from accounts.roles import role_grant
    from runtime.edge import may_upload

    def allowed(session_key: str) -> bool:
        return asyncio.run(may_upload({"cookie": f"{settings.SESSION_COOKIE_NAME}={session_key}"}))

    editor = django_user_model.objects.create_user("editor", password="pw-editor-1", is_staff=True)
    role_grant(username="editor", role="knowledge_editor")
    client.force_login(editor)
    assert allowed(client.session.session_key)

    support = django_user_model.objects.create_user("support", password="pw-support", is_staff=True)
    role_grant(username="support", role="support")
    client.force_login(support)
    assert not allowed(client.session.session_key)  # signed in, but may not upload

    assert not allowed("not-a-session")
    assert not asyncio.run(may_upload({}))
    client.force_login(editor)
    key = client.session.session_key
    editor.groups.set(Group.objects.none())  # the role taken away mid-session
    assert not allowed(key)


def test_the_refusal_language_is_the_switchers_then_the_browsers():
    from runtime.edge import request_language

    assert request_language({"accept-language": "pt-BR,pt;q=0.9"}) == "pt-br"
    assert request_language({"accept-language": "es-AR"}) == "es"
    assert request_language({"cookie": "django_language=es", "accept-language": "pt-BR"}) == "es"
    assert request_language({}) == "en"


@pytest.mark.django_db(transaction=True)
def test_an_api_token_of_an_account_that_may_upload_may_send_a_large_body(django_user_model):
    """An upload through the admin API (a script with its token) was refused past 2.5 MB:
    only the console's session was checked, on the console's route."""
    from datetime import timedelta

    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from accounts.roles import role_grant
    from accounts.services import token_create
    from runtime.edge import may_upload

    def allowed(authorization: str) -> bool:
        return asyncio.run(may_upload({"authorization": authorization}))

    owner = django_user_model.objects.create_user("owner", is_staff=True)
    role_grant(username="owner", role="owner")
    soon = timezone.now() + timedelta(days=1)
    full = token_create(user=owner, name="script", expires_at=soon).key
    limited = token_create(user=owner, name="read", expires_at=soon, role="support").key
    assert allowed(f"Bearer {full}") and allowed(f"Token {full}")
    assert not allowed(f"Bearer {limited}")  # the token's role may not upload
    assert allowed(f"Token {Token.objects.create(user=owner).key}")  # manage.py's tokens
    assert not allowed("Bearer pbt_not-a-token") and not allowed("Basic b3duZXI6cHc=")
    owner.is_active = False
    owner.save()
    assert not allowed(f"Bearer {full}")


def test_every_route_that_takes_a_file_is_an_upload_route():
    from runtime.edge import upload_routes

    routes = upload_routes()
    some = "0b9ac7e4-2f4c-4a8e-9a55-2b6a2f0e7c11"
    for path in [
        "/knowledge/upload",
        "/knowledge/preview",
        f"/knowledge/{some}/version",
        "/api/v1/documents",
        "/api/v1/documents/preview",
        f"/api/v1/documents/{some}",
    ]:
        assert routes.fullmatch(path), path
    for path in ["/api/v1/search", "/knowledge/", f"/knowledge/{some}/retry", "/api/v1/documentsX"]:
        assert not routes.fullmatch(path), path
