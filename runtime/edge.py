"""The limits granian (the HTTP server) cannot know, as one ASGI middleware around Django.

granian parses HTTP, keeps the header deadline, keep-alive and its own request ceiling
(``runtime/server.py``). What only the product knows is here, in the smallest layer that
fits, before Django reads a byte of a body:

- **who may send a large body**: every route takes at most Django's form limit (2.5 MB);
  the routes that take a file (an upload, its preview, a document's new version — the
  console's and the admin API's) take up to the upload limit, and only from an account that
  may upload knowledge, signed in or by its API token (an anonymous 49 MB POST is answered
  403 before it is read, finding N2);
- **how fast a body must come**: at least ``WEB_BODY_MIN_RATE_KB`` per second after a grace
  period, all along and not only on average over the whole body, or the request is answered
  408 (a slow body held a socket for 17 minutes, N1; an upload at 1 byte a second was held
  215 s for its declared 10 MB);
- **how many requests one client address may have open** (``WEB_CLIENT_REQUESTS``), so
  that one address cannot occupy what every other client needs (N1);
- **how many requests run Django code at once** (``WEB_APP_SLOTS`` per worker process):
  each one holds a thread and a database connection; the rest wait here, where waiting
  costs a coroutine. ``/healthz`` never waits, so a monitor hears "up" while the product is
  busy;
- **how many of those slots one client address may hold** (``WEB_CLIENT_SLOTS``, a quarter
  of them by default): its other requests wait behind its own, not in front of everyone
  else's, so one busy client cannot slow another license 20-40× (finding F9).

Refusals are JSON ``{"detail": ...}`` in the client's language.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from importlib import import_module
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import get_user
from django.core.exceptions import PermissionDenied
from django.db import connections
from django.http import HttpRequest
from django.http.cookie import parse_cookie
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from web.addresses import client_address

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]
# The scope's headers, lower-cased names, as latin-1 text.
Headers = dict[str, str]

StrOrPromise = str | Promise

HEALTH_PATH = "/healthz"
# A proxy in front asks here, from an upload's headers alone, whether it may send its body
# (nginx's auth_request: deploy/nginx/portality.conf). Refused, the proxy answers the 403
# and discards the body itself, rather than report the connection this edge closes on an
# anonymous upload as a 502. ``X-Upload-Length`` and ``X-Upload-Encoding`` carry the
# request's Content-Length and Transfer-Encoding; the answer is the edge's own rule for it.
UPLOAD_CHECK_PATH = "/_edge/may-upload"


@dataclass(frozen=True)
class EdgeLimits:
    body_max_bytes: int
    upload_max_bytes: int
    upload_paths: re.Pattern[str]  # the routes that take a file, matched whole
    body_min_rate: int  # bytes per second, after the grace period
    body_grace_seconds: float
    client_requests: int  # open at once from one client address, per worker process
    app_slots: int  # requests running Django code at once, per worker process
    behind_proxy: bool
    client_slots: int = 0  # of app_slots one client address may hold (0: a quarter, ≥ 1)

    @property
    def slots_per_client(self) -> int:
        return min(self.app_slots, self.client_slots or max(1, self.app_slots // 4))

    def body_deadline(self, length: int) -> float:
        return self.body_grace_seconds + length / self.body_min_rate


class Refusal(Exception):
    """A request the edge answers itself; the sentence is rendered in the client's language."""

    def __init__(
        self,
        status: int,
        message: StrOrPromise,
        params: dict[str, float] | None = None,
        headers: tuple[tuple[bytes, bytes], ...] = (),
    ) -> None:
        super().__init__(str(message))
        self.status = status
        self.message = message
        self.params = params
        self.headers = headers

    def detail(self) -> str:
        text = str(self.message)
        return text % self.params if self.params else text


class Edge:
    """ASGI middleware: the limits above, then the wrapped application."""

    def __init__(
        self,
        app: ASGIApp,
        limits: EdgeLimits,
        *,
        may_upload: Callable[[Headers], Awaitable[bool]],
        language: Callable[[Headers], str],
    ) -> None:
        self.app = app
        self.limits = limits
        self.may_upload = may_upload
        self.language = language
        self.open_requests: Counter[str] = Counter()
        self.slots = asyncio.Semaphore(limits.app_slots)
        self.client_slots: dict[str, asyncio.Semaphore] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # granian runs with websockets off; nothing else is served
        headers = _headers(scope)
        peer = (scope.get("client") or ("", 0))[0]
        client = client_address(
            peer, headers.get("x-forwarded-for", ""), behind_proxy=self.limits.behind_proxy
        )
        if self.open_requests[client] >= self.limits.client_requests:
            await self._refuse(send, headers, _too_many_open())
            return
        self.open_requests[client] += 1
        own = self.client_slots.setdefault(client, asyncio.Semaphore(self.limits.slots_per_client))
        try:
            await self._serve(scope, receive, send, headers, own)
        finally:
            self.open_requests[client] -= 1
            if self.open_requests[client] <= 0:
                del self.open_requests[client]
                del self.client_slots[client]

    async def _serve(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        headers: Headers,
        own_slots: asyncio.Semaphore,
    ) -> None:
        if scope["path"] == UPLOAD_CHECK_PATH:
            await self._upload_check(send, headers)
            return
        try:
            allowed = await self._body_allowance(scope, headers)
        except Refusal as refusal:
            await self._refuse(send, headers, refusal)
            return
        body = BodyGate(
            receive,
            length=_content_length(headers),
            allowed=allowed,
            limits=self.limits,
            slots=None if scope["path"] == HEALTH_PATH else (own_slots, self.slots),
        )
        started = False

        async def send_tracked(message: Message) -> None:
            nonlocal started
            started = True
            await send(message)

        try:
            await self.app(scope, body.receive, send_tracked)
        finally:
            body.release()
        if body.refusal and not started:
            await self._refuse(send, headers, body.refusal)

    async def _body_allowance(self, scope: Scope, headers: Headers) -> int:
        """The largest body this request may send, refusing at once what is already too big."""
        limits = self.limits
        length = _content_length(headers)  # raises a 400 refusal when unreadable
        declared = length if length is not None else limits.body_max_bytes + 1
        # Only a POST or PUT sends a file; a GET or DELETE on an upload route (the documents'
        # list, one document) is Django's to answer, its body held to the ordinary limit.
        sends_file = scope.get("method") in UPLOAD_METHODS
        if (
            sends_file
            and limits.upload_paths.fullmatch(scope["path"])
            and declared > limits.body_max_bytes
        ):
            if not await self.may_upload(headers):
                raise _upload_refused()
            allowed = limits.upload_max_bytes
        else:
            allowed = limits.body_max_bytes
        if length is not None and length > allowed:
            raise _too_large(length, allowed)
        return allowed

    async def _upload_check(self, send: Send, headers: Headers) -> None:
        """204 when the request described by X-Upload-Length and X-Upload-Encoding may send
        its body (none, one within every route's limit, or from an account that may
        upload), the upload's 403 otherwise."""
        declared = headers.get("x-upload-length", "")
        if declared.isdigit():
            large = int(declared) > self.limits.body_max_bytes
        else:  # undeclared: none, unless it comes in chunks
            large = bool(headers.get("x-upload-encoding"))
        if not large or await self.may_upload(headers):
            await send({"type": "http.response.start", "status": 204, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        # nginx answers the client from this header (auth_request_set), at once: an answer
        # it proxied would first wait for the whole body it is about to discard.
        await self._refuse(send, headers, _upload_refused(), body_in_header=b"x-upload-refusal")

    async def _refuse(
        self, send: Send, headers: Headers, refusal: Refusal, *, body_in_header: bytes = b""
    ) -> None:
        """The refusal as JSON in the client's language (and, named, as a header too)."""
        with translation.override(self.language(headers)):
            detail = refusal.detail()
        body = json.dumps({"detail": detail}, ensure_ascii=False).encode()
        copy = ((body_in_header, body),) if body_in_header else ()
        await send(
            {
                "type": "http.response.start",
                "status": refusal.status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                    *refusal.headers,
                    *copy,
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


class BodyGate:
    """The application's ``receive``: the body within its size and deadline, then a slot.

    A body that runs late or grows past its allowance ends the request as a disconnect (the
    application stops quietly) and leaves a refusal for the edge to answer with. The slot is
    taken when the body is complete, so a slow body never holds one."""

    def __init__(
        self,
        receive: Receive,
        *,
        length: int | None,
        allowed: int,
        limits: EdgeLimits,
        slots: tuple[asyncio.Semaphore, asyncio.Semaphore] | None,
    ) -> None:
        self._receive = receive
        self.allowed = allowed
        self.started = time.monotonic()
        self.deadline = self.started + limits.body_deadline(length or allowed)
        self.grace = limits.body_grace_seconds
        self.min_rate = limits.body_min_rate
        self.length = length
        self.slots = slots
        self.received = 0
        self.complete = False
        self.holding_slot = False
        self.refusal: Refusal | None = None

    async def receive(self) -> Message:
        if self.complete:
            return await self._receive()  # after the body: the disconnect, when it comes
        try:
            message = await asyncio.wait_for(self._receive(), self._next_deadline())
        except TimeoutError:
            self.refusal = Refusal(408, _("The request body did not arrive in time."))
            return {"type": "http.disconnect"}
        if message["type"] != "http.request":
            return message
        self.received += len(message.get("body", b""))
        if self.received > self.allowed:
            self.refusal = _too_large(self.received, self.allowed)
            return {"type": "http.disconnect"}
        if not message.get("more_body", False):
            self.complete = True
            if self.slots is not None:
                await _acquire_both(*self.slots)
                self.holding_slot = True
        return message

    def _next_deadline(self) -> float:
        """Seconds the next part may take. A declared body keeps pace: by then what has
        arrived must be what the minimum rate asks of the time since the grace period; any
        body arrives whole within its overall deadline. (A body of unknown length keeps only
        the deadline: its pace cannot be told from a short body's end.)"""
        deadline = self.deadline
        if self.length is not None:
            deadline = min(
                deadline, self.started + self.grace + (self.received + 1) / self.min_rate
            )
        return max(0.0, deadline - time.monotonic())

    def release(self) -> None:
        if self.holding_slot and self.slots is not None:
            own, shared = self.slots
            shared.release()
            own.release()
            self.holding_slot = False


async def _acquire_both(own: asyncio.Semaphore, shared: asyncio.Semaphore) -> None:
    await own.acquire()
    try:
        await shared.acquire()
    except BaseException:  # cancelled while waiting (the client left): give its share back
        own.release()
        raise


async def _lifespan(receive: Receive, send: Send) -> None:
    """Django has nothing to start or stop with the server: acknowledge both."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def _headers(scope: Scope) -> Headers:
    headers: Headers = {}
    for name, value in scope.get("headers", []):
        key = name.decode("latin-1").lower()
        text = value.decode("latin-1")
        headers[key] = f"{headers[key]}, {text}" if key in headers else text
    return headers


def _content_length(headers: Headers) -> int | None:
    if "content-length" not in headers:
        return None
    value = headers["content-length"].strip()
    if not value.isdigit():  # two headers arrive joined by ", ": also not a single number
        raise Refusal(400, _("The Content-Length header is not a single number."))
    return int(value)


def _too_large(length: int, allowed: int) -> Refusal:
    return Refusal(
        413,
        _("The request body is %(size).1f MB; the limit here is %(limit).1f MB."),
        {"size": length / 1048576, "limit": allowed / 1048576},
    )


def _upload_refused() -> Refusal:
    return Refusal(
        403,
        _(
            "Sign in, or send the API token of an account that may upload knowledge, before "
            "sending a file."
        ),
    )


def _too_many_open() -> Refusal:
    return Refusal(
        429,
        _("Too many requests from your address are open at once; try again in a moment."),
        headers=((b"retry-after", b"1"),),
    )


# -- Django's side: the limits from settings, who may upload, which language --------------


def edge_for(app: ASGIApp) -> Edge:
    """The edge around Django's ASGI application, configured from settings."""

    limits = EdgeLimits(
        body_max_bytes=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        # The form fields around the file.
        upload_max_bytes=settings.KNOWLEDGE_MAX_UPLOAD_BYTES + 1024 * 1024,
        upload_paths=upload_routes(),
        body_min_rate=settings.WEB_BODY_MIN_RATE_KB * 1024,
        body_grace_seconds=settings.WEB_BODY_GRACE_SECONDS,
        client_requests=settings.WEB_CLIENT_REQUESTS,
        app_slots=settings.WEB_APP_SLOTS,
        behind_proxy=settings.BEHIND_PROXY,
        client_slots=settings.WEB_CLIENT_SLOTS,
    )
    return Edge(app, limits, may_upload=may_upload, language=request_language)


UPLOAD_METHODS = frozenset({"POST", "PUT"})
_SOME_ID = "00000000-0000-0000-0000-000000000000"
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def upload_routes() -> re.Pattern[str]:
    """The routes that take a file, from Django's own URLs: an upload, its preview and a
    document's new version, in the console and the admin API (deploy/nginx/portality.conf
    lets the same ones through)."""
    paths = [
        reverse("knowledge:document-upload"),
        reverse("knowledge:document-preview"),
        reverse("knowledge:document-version", args=[_SOME_ID]),
        reverse("knowledge-api:documents"),
        reverse("knowledge-api:document-preview"),
        reverse("knowledge-api:document", args=[_SOME_ID]),
    ]
    some_id = re.escape(_SOME_ID)
    return re.compile("|".join(re.escape(p).replace(some_id, _UUID) for p in paths))


async def may_upload(headers: Headers) -> bool:
    return await sync_to_async(_account_may_upload, thread_sensitive=False)(headers)


def _account_may_upload(headers: Headers) -> bool:
    """Whether the request comes from an active account that may upload knowledge — by
    its API token (the admin API's own authentication, a limited token's role included)
    or its session cookie — checked before the body is read."""

    # portality/asgi.py imports this module before Django is set up; the roles module
    # imports the auth models, which need the app registry.
    from accounts.roles import ADD_KNOWLEDGE

    try:
        user = _token_user(headers) if headers.get("authorization") else _session_user(headers)
        return bool(user is not None and user.is_active and user.has_perm(ADD_KNOWLEDGE))
    except PermissionDenied:  # a limited token's role does not include it
        return False
    finally:
        connections.close_all()  # back to the pool: this thread is not a request's


def _token_user(headers: Headers) -> Any:  # noqa: ANN401 - a user model instance
    # As above: DRF reads Django's settings, and the tokens' module the auth models, which
    # exist only once Django is set up.
    from rest_framework.exceptions import AuthenticationFailed
    from rest_framework.request import Request

    from accounts.authentication import TOKEN_AUTHENTICATION

    request = HttpRequest()
    request.META["HTTP_AUTHORIZATION"] = headers.get("authorization", "")
    for authentication in TOKEN_AUTHENTICATION:
        try:
            found = authentication().authenticate(Request(request))
        except AuthenticationFailed:
            return None
        if found is not None:
            return found[0]
    return None


def _session_user(headers: Headers) -> Any:  # noqa: ANN401 - a user model instance
    key = parse_cookie(headers.get("cookie", "")).get(settings.SESSION_COOKIE_NAME)
    if not key:
        return None
    request = HttpRequest()
    request.session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    return get_user(request)


def request_language(headers: Headers) -> str:
    """The language Django's LocaleMiddleware would pick: the switcher's cookie, then
    Accept-Language."""

    request = HttpRequest()
    request.COOKIES = parse_cookie(headers.get("cookie", ""))
    request.META["HTTP_ACCEPT_LANGUAGE"] = headers.get("accept-language", "")
    return translation.get_language_from_request(request)
