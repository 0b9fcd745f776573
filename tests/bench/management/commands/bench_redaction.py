"""manage.py bench_redaction [--json] — what redaction replaces of personal data written as an
outside run would, and what it changes of what a document needs as written
(tests/bench/redaction.py says how the sets were made).

Reads no database: the rules alone."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Replaced share of personal data and changed share of what must stay, by redaction."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.redaction import evaluate

        rows = evaluate()
        if options["json"]:
            self.stdout.write(json.dumps(rows))
            return
        for row in rows:
            self.stdout.write(
                f"{row['set']:<13} {row['reading']:<9} replaced {row['redacted']:<6} of {row['n_redact']:<3} "
                f"kept changed {row['kept_changed']:<6} of {row['n_keep']:<3} "
                f"{row['ms_per_text']} ms a text"
            )
            for text in row["leaked"]:
                self.stdout.write(f"  left: {text}")
            for text in row["changed"]:
                self.stdout.write(f"  changed: {text}")
