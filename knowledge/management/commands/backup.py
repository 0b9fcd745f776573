"""manage.py backup DIRECTORY — the whole deployment (database, uploaded originals, the
embedding models in use) in a new directory, consistent as of one moment."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge.backup import backup_create
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = "Back up the database, the uploaded originals and what they were embedded with."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path, help="a new directory to write it into")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = backup_create(destination=options["directory"])
        except ApplicationError as exc:
            raise CommandError(exc.message) from None
        counts = report.manifest["counts"]
        if options["json"]:
            self.stdout.write(json.dumps({"path": str(report.path), **counts}))
            return
        summary = ", ".join(f"{n} {name}" for name, n in counts.items())
        self.stdout.write(f"Backup written to {report.path}: {summary}.")
