"""License reads: by key (API authentication), by machine_id (commands, admin scopes)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q
from django.utils.translation import gettext_noop

from licenses.keys import KEY_PREFIX, PREFIX_LENGTH, hash_key
from licenses.models import GLOBAL_SCOPE, License, LicenseStatus
from web.exceptions import ApplicationError


def license_get_for_key(key: str) -> License | None:
    """The license a key belongs to, whatever its status (callers decide what revoked means)."""
    if not key.startswith(KEY_PREFIX) or len(key) < PREFIX_LENGTH + 8:
        return None
    prefix, digest = key[:PREFIX_LENGTH], hash_key(key)
    license = License.objects.filter(Q(key_prefix=prefix) | Q(previous_key_prefix=prefix)).first()
    if license is None:
        return None
    if license.key_prefix == prefix and hmac.compare_digest(license.key_hash, digest):
        return license
    # The key a rotation replaced, during the grace period the owner chose.
    if license.previous_key_works and hmac.compare_digest(license.previous_key_hash, digest):
        return license
    return None


def license_get_for_machine_id(machine_id: str) -> License | None:
    """machine_ids are slugs compared without case, as people type them."""
    return License.objects.filter(machine_id__iexact=machine_id.strip()).first()


def license_for_scope(machine_id: str | None) -> License | None:
    """The license a scope's machine_id names; empty or "global" is global knowledge (None).
    An unknown machine_id is refused with a sentence (404), never taken for global."""
    if not machine_id or machine_id == GLOBAL_SCOPE:
        return None
    license = license_get_for_machine_id(machine_id)
    if license is None:
        raise ApplicationError(
            gettext_noop("No license with machine_id %(machine_id)s."),
            params={"machine_id": machine_id[:100]},
            status=404,
        )
    return license


def license_choices() -> list[tuple[str, str]]:
    """(machine_id, "machine_id — user name") for every license, for scope pickers."""
    return [
        (license.machine_id, f"{license.machine_id} — {license.user_name}")
        for license in License.objects.order_by("machine_id")
    ]


def license_counts() -> dict[str, int]:
    """Active and total licenses, in one query (the dashboard's tile)."""
    return License.objects.aggregate(
        active=Count("pk", filter=Q(status=LicenseStatus.ACTIVE)), total=Count("pk")
    )


@dataclass(frozen=True)
class LicensePage:
    """What a license's admin page shows of the knowledge and memories kept for it.

    Read through the reverse relations (``documents``, ``memories``) that the knowledge and
    memory apps declare: licenses sits below them and never imports them."""

    documents: list[Any]
    active_memories: int
    memory_users: int


def license_page(license: License) -> LicensePage:
    memories = license.memories.aggregate(
        active=Count("pk", filter=Q(active=True)), users=Count("user_ref", distinct=True)
    )
    return LicensePage(
        documents=list(license.documents.order_by("-created_at")),
        active_memories=memories["active"],
        memory_users=memories["users"],
    )
