"""The audit trail: who changed what, when, from where — append-only and hash-chained.

Services record their own actions (``audit_record``) inside the transaction that makes
them, so an action that rolls back leaves no entry and an entry never names an action that
did not happen. Who acted comes from the context: the request being served (set by
``AuditContextMiddleware``), a management command (``acting_as``, from ``manage.py``), or
else "system" (Celery beat's purges). Entries are chained: each digest covers the entry's
fields and the previous digest, appended under one advisory lock so the chain has one
order. The database refuses UPDATE and DELETE on the table; only the retention purge may
remove the oldest entries, and it leaves a marker naming where the kept chain starts.

What an entry may hold: staff names, addresses, object ids and what changed — never a
secret, and never what an end user wrote; an end user appears only as a keyed pseudonym
(``person_pseudonym``), which their erasure leaves unlinkable to anything kept."""

from __future__ import annotations

import getpass
import hashlib
import hmac
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.models import AuditEntry, AuditRetention
from web.exceptions import ApplicationError
from web.http import client_ip

GENESIS = "0" * 64
PURGED = "audit.purged"
# pg_advisory_xact_lock key: the ASCII of "audit", one chain, one writer at a time.
_CHAIN_LOCK = 0x6175646974


@dataclass(frozen=True)
class Actor:
    name: str
    user_id: int | None = None
    address: str | None = None


SYSTEM = Actor("system")
_acting: ContextVar[Actor | None] = ContextVar("audit_actor", default=None)
_request: ContextVar[HttpRequest | None] = ContextVar("audit_request", default=None)


@contextmanager
def acting_as(actor: Actor) -> Iterator[None]:
    """Entries recorded inside name ``actor`` (a command, a test, a Celery job)."""
    token = _acting.set(actor)
    try:
        yield
    finally:
        _acting.reset(token)


def command_actor(command: str) -> None:
    """What this process records is done by ``manage.py command``, run by this OS user."""
    try:
        who = getpass.getuser()
    except (KeyError, OSError):  # a container's user with no name in /etc/passwd
        who = f"uid {os.getuid()}"
    _acting.set(Actor(f"command {command} ({who})"[:200]))


@contextmanager
def serving(request: HttpRequest) -> Iterator[None]:
    """Entries recorded while ``request`` is served name its user, read when recording
    (DRF authenticates inside the view, after the middleware)."""
    token = _request.set(request)
    try:
        yield
    finally:
        _request.reset(token)


def request_actor(request: HttpRequest) -> Actor:
    user = getattr(request, "user", None)
    address = client_ip(request)
    if user is None or not user.is_authenticated:
        return Actor("anonymous", None, address)
    # A console account, a personal token's limited copy of one ("alice (token ci)"), or
    # a license key's caller ("license:sala-01"), which has a username but no model.
    name = getattr(user, "audit_name", None) or getattr(user, "username", None) or "?"
    return Actor(str(name)[:200], getattr(user, "pk", None), address)


def current_actor() -> Actor:
    request = _request.get()
    if request is not None:
        return request_actor(request)
    return _acting.get() or SYSTEM


def person_pseudonym(license_id: object, user_ref: str) -> str:
    """An end user as the trail names them: a keyed digest, never their reference."""
    message = f"{license_id}:{user_ref}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:16]


def entry_digest(entry: AuditEntry) -> str:
    fields = [
        entry.previous_digest,
        entry.at.astimezone(UTC).isoformat(),
        entry.actor,
        entry.actor_id,
        entry.address,
        entry.action,
        entry.target,
        entry.details,
    ]
    text = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def audit_record(
    action: str,
    *,
    target: str = "",
    details: dict[str, Any] | None = None,
    actor: Actor | None = None,
) -> AuditEntry:
    """Append one entry to the chain, in the caller's transaction (or its own)."""
    actor = actor or current_actor()
    with transaction.atomic():
        _lock_chain()
        previous = AuditEntry.objects.order_by("-id").values_list("digest", flat=True).first()
        entry = AuditEntry(
            at=timezone.now(),
            actor=actor.name[:200],
            actor_id=actor.user_id,
            address=actor.address,
            action=action,
            target=target[:200],
            details=details or {},
            previous_digest=previous or GENESIS,
        )
        entry.digest = entry_digest(entry)
        entry.save(force_insert=True)
    return entry


def _lock_chain() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_CHAIN_LOCK])


@dataclass(frozen=True)
class Break:
    entry_id: int
    reason: str


def audit_verify() -> Break | None:
    """The first entry where the chain breaks (edited, or an entry before it missing), or
    None when the trail is whole."""
    expected = _chain_start()
    for entry in AuditEntry.objects.order_by("id").iterator(chunk_size=2000):
        if entry_digest(entry) != entry.digest:
            return Break(entry.pk, "its content does not match its digest (edited)")
        if entry.previous_digest != expected:
            return Break(entry.pk, "the entry before it is missing or was replaced")
        expected = entry.digest
    return None


def _chain_start() -> str:
    """Where the kept chain starts: the start of everything, or what the latest retention
    purge removed through."""
    marker = AuditEntry.objects.filter(action=PURGED).order_by("-id").first()
    return str(marker.details.get("through", GENESIS)) if marker else GENESIS


MIN_RETENTION_DAYS = 30  # the page's floor: a short trail would let an admin hide an action


def retention_days() -> int:
    row = AuditRetention.objects.first()
    return row.days if row else settings.AUDIT_RETENTION_DAYS


def retention_set(*, days: int) -> None:
    """From the audit page: 0 (for ever) or 30 days to 10 years."""
    if days != 0 and not MIN_RETENTION_DAYS <= days <= 3650:
        raise ApplicationError(
            gettext_noop("Keep the audit trail for ever (0) or 30 to 3650 days."),
        )
    with transaction.atomic():
        before = retention_days()
        AuditRetention.objects.update_or_create(pk=1, defaults={"days": days})
        audit_record("audit.retention_set", details={"from": before, "to": days})


def audit_purge(*, now: datetime | None = None) -> int:
    """Remove the entries older than the retention (0 keeps them all), oldest first, and
    record how far it went so verification starts there."""
    days = retention_days()
    if days <= 0:
        return 0
    cutoff = (now or timezone.now()) - timedelta(days=days)
    with transaction.atomic():
        _lock_chain()
        last = AuditEntry.objects.filter(at__lt=cutoff).order_by("-id").first()
        if last is None:
            return 0
        with connection.cursor() as cursor:
            # The trigger lets a DELETE through only with this set, in this transaction.
            cursor.execute("SET LOCAL portality.audit_purging = 'on'")
        removed, _ = AuditEntry.objects.filter(id__lte=last.pk).delete()
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL portality.audit_purging = 'off'")
        audit_record(
            PURGED,
            details={"removed": removed, "through": last.digest, "retention_days": days},
            actor=SYSTEM,
        )
    return removed
