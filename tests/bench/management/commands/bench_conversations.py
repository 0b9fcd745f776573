"""manage.py bench_conversations [--answers N] [--questions M] [DATASET ...] [--json] — the
retention purge of N stored answers and the grouping of M questions into knowledge gaps, in
a database of its own (portality_bench_conversations). Logic in tests/bench/conversations.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Time the conversations purge and the knowledge-gap grouping."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("datasets", nargs="*", type=Path, help="shared bench folders")
        parser.add_argument("--answers", type=int, default=100_000)
        parser.add_argument("--questions", type=int, default=10_000)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.conversations import grouping, purge
        from tests.bench.database import use_bench_database

        use_bench_database("portality_bench_conversations")
        report = {
            "purge": purge(options["answers"]),
            "gap_grouping": grouping(options["questions"], options["datasets"]),
        }
        self.stdout.write(json.dumps(report, indent=None if options["json"] else 2))
