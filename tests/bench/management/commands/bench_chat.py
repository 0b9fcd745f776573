"""manage.py bench_chat --chunks N [--queries Q] [--layout documents|chunks] [--json] — chat
server time to first byte.

Uses the database ``manage.py bench_search --chunks N [--layout …]`` filled (run that
first). Logic in chat/bench/first_byte.py."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "First-byte p50/p95 of chat requests next to query-embedding and search p95."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--chunks", type=int, default=100_000)
        parser.add_argument("--queries", type=int, default=200)
        parser.add_argument("--shape", choices=["e5", "islands"], default="e5")
        parser.add_argument("--layout", choices=["documents", "chunks"], default="documents")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.database import open_search_bench
        from tests.bench.first_byte import run

        try:
            open_search_bench(
                options["shape"], options["chunks"], require_filled=True, layout=options["layout"]
            )
        except LookupError as exc:
            raise CommandError(str(exc)) from exc
        report = run(options["queries"])
        self.stdout.write(json.dumps(report, indent=None if options["json"] else 2))
