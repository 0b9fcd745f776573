"""License writes: forging (the key is returned once and stored only as a hash), revoking."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_noop

from accounts.audit import audit_record
from licenses.keys import PREFIX_LENGTH, hash_key, new_key
from licenses.models import GLOBAL_SCOPE, License, LicenseStatus
from text.lines import one_line
from web.exceptions import ApplicationError


@dataclass(frozen=True)
class ForgedLicense:
    license: License
    key: str  # shown once; only its hash is stored


def _machine_id(requested: str | None) -> str:
    if not requested:
        return f"machine-{secrets.token_hex(4)}"
    machine_id = slugify(requested)[:64]
    if not machine_id or not re.fullmatch(r"[a-z0-9][a-z0-9_-]*", machine_id):
        raise ApplicationError(
            gettext_noop("machine_id must contain letters or digits (a slug such as sala-01).")
        )
    if machine_id == GLOBAL_SCOPE:
        raise ApplicationError(
            gettext_noop("'global' is reserved for knowledge shared by every license.")
        )
    return machine_id


# A host name (letters, digits, dots, hyphens), an IPv4 address, or an IPv6 one in brackets.
_HOST = re.compile(r"[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?|\[[0-9a-f:.]+\]")


def origin_clean(value: str) -> str:
    """``value`` as an origin, scheme://host[:port] in lower case; ApplicationError otherwise.

    The widget compares origins byte for byte with the browser's Origin header, and the
    console shows them in pages: anything else (a path, credentials, markup) is refused."""
    text = value.strip().rstrip("/")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        parts, port = None, None
    host = (parts.netloc.rsplit(":", 1)[0] if port else parts.netloc).lower() if parts else ""
    if (
        parts is None
        or parts.scheme.lower() not in {"http", "https"}
        or parts.path
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
        or not _HOST.fullmatch(host)
        or len(text) > 255
    ):
        raise ApplicationError(
            gettext_noop("Not an origin (scheme://host[:port]): %(value)s"),
            params={"value": value.strip()[:80]},
        )
    return f"{parts.scheme.lower()}://{host}" + (f":{port}" if port else "")


def origins_clean(values: list[str]) -> list[str]:
    """Every origin cleaned (all errors in one message), duplicates dropped, order kept."""
    cleaned, bad = [], []
    for value in (v for v in values if v.strip()):
        try:
            cleaned.append(origin_clean(value))
        except ApplicationError:
            bad.append(value.strip()[:80])
    if bad:
        raise ApplicationError(
            gettext_noop("Not an origin (scheme://host[:port]): %(value)s"),
            params={"value": ", ".join(bad)},
        )
    return list(dict.fromkeys(cleaned))


def license_forge(
    *,
    user_name: str,
    machine_id: str | None = None,
    expires_at: datetime | None = None,
    allowed_origins: list[str] | None = None,
) -> ForgedLicense:
    user_name = _user_name(user_name)
    machine_id = _machine_id(machine_id)
    origins = origins_clean(allowed_origins or [])
    key = new_key()
    try:
        with transaction.atomic():
            license = License.objects.create(
                machine_id=machine_id,
                user_name=user_name,
                key_prefix=key[:PREFIX_LENGTH],
                key_hash=hash_key(key),
                expires_at=expires_at,
                allowed_origins=origins,
                metadata={"user_name": user_name},  # seed 002 §3.3: Savara reads it from metadata
            )
            audit_record(
                "license.forged",
                target=f"license:{machine_id}",
                details={"key_prefix": key[:PREFIX_LENGTH]},  # no user name: a person's
            )
    except IntegrityError:
        raise ApplicationError(
            gettext_noop("A license with machine_id %(machine_id)r already exists."),
            params={"machine_id": machine_id},
        ) from None
    return ForgedLicense(license=license, key=key)


def _user_name(value: str) -> str:
    user_name = one_line(value)
    if not user_name:
        raise ApplicationError(
            gettext_noop("user_name is required: the assistant greets the user by it.")
        )
    if len(user_name) > 120:
        raise ApplicationError(gettext_noop("user_name is at most 120 characters."))
    return user_name


def license_update(
    *,
    license: License,
    user_name: str,
    allowed_origins: list[str],
    expires_at: datetime | None,
) -> License:
    """Change what an admin may change after forging; the key and machine_id stay. Saving
    it unchanged (make run's demo license at every start) writes nothing to the audit."""
    user_name = _user_name(user_name)
    origins = origins_clean(allowed_origins)
    if (user_name, origins, expires_at) == (
        license.user_name,
        list(license.allowed_origins),
        license.expires_at,
    ):
        return license
    metadata = {**license.metadata, "user_name": user_name}
    with transaction.atomic():
        License.objects.filter(pk=license.pk).update(
            user_name=user_name, allowed_origins=origins, expires_at=expires_at, metadata=metadata
        )
        audit_record(
            "license.changed",
            target=f"license:{license.machine_id}",
            details={
                "user_name_changed": user_name != license.user_name,
                "allowed_origins": origins,
                "expires_at": expires_at.isoformat() if expires_at else None,
            },
        )
    license.refresh_from_db()
    return license


def license_revoke(*, license: License) -> License:
    with transaction.atomic():
        License.objects.filter(pk=license.pk).update(status=LicenseStatus.REVOKED)
        audit_record("license.revoked", target=f"license:{license.machine_id}")
    license.refresh_from_db()
    return license


def license_reactivate(*, license: License) -> License:
    with transaction.atomic():
        License.objects.filter(pk=license.pk).update(status=LicenseStatus.ACTIVE)
        audit_record("license.reactivated", target=f"license:{license.machine_id}")
    license.refresh_from_db()
    return license


MAX_GRACE_SECONDS = 30 * 24 * 3600


def license_rotate_key(*, license: License, grace_seconds: int = 0) -> ForgedLicense:
    """A new key for the same license, working at once; the old one keeps working for
    ``grace_seconds`` (0: it stops at once), time for the install to switch. Widget tokens
    minted with the old key expire as they would (they name the license, not the key)."""
    if not 0 <= grace_seconds <= MAX_GRACE_SECONDS:
        raise ApplicationError(
            gettext_noop("The grace period is 0 to %(max)s seconds (30 days)."),
            params={"max": MAX_GRACE_SECONDS},
        )
    key = new_key()
    with transaction.atomic():
        current = License.objects.select_for_update().get(pk=license.pk)
        grace = {
            "previous_key_prefix": current.key_prefix if grace_seconds else None,
            "previous_key_hash": current.key_hash if grace_seconds else "",
            "previous_key_until": (
                timezone.now() + timedelta(seconds=grace_seconds) if grace_seconds else None
            ),
        }
        License.objects.filter(pk=license.pk).update(
            key_prefix=key[:PREFIX_LENGTH], key_hash=hash_key(key), **grace
        )
        audit_record(
            "license.key_rotated",
            target=f"license:{current.machine_id}",
            details={"grace_seconds": grace_seconds, "new_prefix": key[:PREFIX_LENGTH]},
        )
    license.refresh_from_db()
    return ForgedLicense(license=license, key=key)
