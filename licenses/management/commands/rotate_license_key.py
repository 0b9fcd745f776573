"""manage.py rotate_license_key MACHINE_ID [--grace SECONDS] — a new key, printed once."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from licenses.selectors import license_get_for_machine_id
from licenses.services import license_rotate_key
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = (
        "Give a license a new key (shown once, here). The old key keeps working for --grace "
        "seconds (default 0: it stops at once), time for the machine to switch."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("machine_id")
        parser.add_argument("--grace", type=int, default=0, metavar="SECONDS")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        license = license_get_for_machine_id(options["machine_id"])
        if license is None:
            raise CommandError(f"No license with machine_id {options['machine_id']!r}.")
        try:
            rotated = license_rotate_key(license=license, grace_seconds=options["grace"])
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        until = rotated.license.previous_key_until
        payload = {
            "machine_id": rotated.license.machine_id,
            "key": rotated.key,
            "old_key_valid_until": until.isoformat() if until else None,
        }
        if options["json"]:
            self.stdout.write(json.dumps(payload))
            return
        self.stdout.write(f"New key for {payload['machine_id']} (shown once): {rotated.key}")
        self.stdout.write(
            f"The old key works until {until.isoformat()}."
            if until
            else "The old key no longer works."
        )
