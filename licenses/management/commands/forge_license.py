"""manage.py forge_license --user-name NAME — the only time a license key is printed."""

from __future__ import annotations

import json
from datetime import datetime, time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from licenses.services import license_forge
from web.exceptions import ApplicationError


def parse_expiry(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise CommandError(f"--expires must be a date such as 2027-12-31, got {value!r}.") from None
    if parsed.tzinfo is None:
        parsed = timezone.make_aware(
            datetime.combine(parsed.date(), time.max) if len(value) <= 10 else parsed
        )
    return parsed


class Command(BaseCommand):
    help = "Forge a license for a machine. Its key is shown once, here; only a hash is stored."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user-name", required=True)
        parser.add_argument("--machine-id", help="a slug; generated when omitted")
        parser.add_argument("--expires", help="date (YYYY-MM-DD) or ISO datetime")
        parser.add_argument(
            "--allowed-origin", action="append", default=[], help="widget origin (repeatable)"
        )
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            forged = license_forge(
                user_name=options["user_name"],
                machine_id=options["machine_id"],
                expires_at=parse_expiry(options["expires"]),
                allowed_origins=options["allowed_origin"],
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        license = forged.license
        payload = {
            "machine_id": license.machine_id,
            "user_name": license.user_name,
            "key": forged.key,
            "expires_at": license.expires_at.isoformat() if license.expires_at else None,
        }
        if options["json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False))
            return
        self.stdout.write(
            f"License forged for {license.user_name} on machine {license.machine_id}."
        )
        self.stdout.write(f"Key (shown only now, store it safely): {forged.key}")
