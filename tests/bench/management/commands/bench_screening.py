"""manage.py bench_screening [--json] — what memory screening refuses of phrasings written as
an outside run would (tests/bench/screening.py says how the sets were made).

Reads no database: the word lists and the local embedder only."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Refused share of memory screening, word lists alone and with the meaning check."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.screening import evaluate

        rows = evaluate()
        if options["json"]:
            self.stdout.write(json.dumps(rows))
            return
        for row in rows:
            self.stdout.write(
                f"{row['set']:<34} n={row['n']:<4} words only {row['refused_words_only']:<6} "
                f"with meaning {row['refused_with_meaning']:<6} {row['ms_per_check']} ms"
            )
