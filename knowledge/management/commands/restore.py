"""manage.py restore DIRECTORY — a backup (manage.py backup) into this deployment, which
should be a fresh data dir: PORTALITY_DATA_DIR=/new/dir .venv/bin/python manage.py restore …"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge.backup import backup_restore
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = "Restore a backup into this (fresh) deployment: database, originals, vectors."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, help="a directory manage.py backup wrote")
        parser.add_argument(
            "--force", action="store_true", help="replace a deployment that already has data"
        )
        parser.add_argument(
            "--erasure-journal",
            type=Path,
            help="the erasure journal of the deployment the backup came from (default: "
            "ERASURE_JOURNAL): what was forgotten after the backup is forgotten again",
        )
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            counts = backup_restore(
                source=options["directory"],
                force=options["force"],
                erasure_journal=options["erasure_journal"],
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        if options["json"]:
            self.stdout.write(json.dumps(counts))
            return
        again = counts.pop("forgotten_again")
        summary = ", ".join(f"{n} {name}" for name, n in counts.items())
        if again:
            summary += "; forgotten again from the erasure journal: " + ", ".join(
                f"{n} {kind}" for kind, n in again.items()
            )
        self.stdout.write(f"Restored from {options['directory']}: {summary}.")
