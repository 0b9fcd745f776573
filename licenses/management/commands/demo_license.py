"""manage.py demo_license — the license of make run's demo page, its key in a 0600 file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from licenses.models import DEMO_MACHINE_ID
from licenses.selectors import license_get_for_machine_id
from licenses.services import (
    ForgedLicense,
    license_forge,
    license_rotate_key,
    license_update,
    origin_clean,
)
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = "Forge (or refresh) the 'demo' license for make run's widget demo page."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--origin", required=True, help="the demo page's origin")
        parser.add_argument("--key-file", type=Path, required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            origin = origin_clean(options["origin"])
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        key_file: Path = options["key_file"]
        license = license_get_for_machine_id(DEMO_MACHINE_ID)
        forged: ForgedLicense | None = None
        if license is None:
            forged = license_forge(
                user_name="Demo", machine_id=DEMO_MACHINE_ID, allowed_origins=[origin]
            )
        else:
            if not key_file.exists():  # a key cannot be recovered from its hash: issue a new one
                forged = license_rotate_key(license=license)
            license_update(
                license=license,
                user_name=license.user_name,
                allowed_origins=[origin],
                expires_at=license.expires_at,
            )
        if forged:  # created 0600: the key is never readable by others, not even for a moment
            key_file.unlink(missing_ok=True)
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as file:
                file.write(forged.key)
        if options["verbosity"] >= 1:  # make run passes 0: its own start-up says it in words
            self.stdout.write(
                f"The demo license's key (for a product backend to try the API with) is in "
                f"{key_file}, readable by this account only."
            )
