"""manage.py bench_search --chunks N --licenses 200 [--shape e5|islands]
[--layout documents|chunks] [--json] — hybrid latency and kNN recall at scale.

Fills a separate database (portality_bench_search_<shape>_<N>_documents, or without the
suffix for the ``chunks`` layout) with synthetic chunks; a second run with the same N, shape
and layout reuses them. Logic in knowledge/bench/search_scale.py."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser


class Command(BaseCommand):
    help = "Hybrid search p50/p95 and kNN recall@10 per scope on N synthetic chunks."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--chunks", type=int, default=100_000)
        parser.add_argument("--licenses", type=int, default=200)
        parser.add_argument(
            "--refill", action="store_true", help="rebuild the data even if present"
        )
        parser.add_argument(
            "--shape",
            choices=["e5", "islands"],
            default="e5",
            help="vector geometry: e5-like (default) or orthogonal islands (stress case)",
        )
        parser.add_argument(
            "--layout",
            choices=["documents", "chunks"],
            default="documents",
            help="rows inserted in runs of 40 per scope, as uploads insert them (default), or "
            "dealt to scopes one by one, every scope spread over the whole table (worst case)",
        )
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.database import search_bench_database, use_bench_database
        from tests.bench.search_scale import run

        use_bench_database(
            search_bench_database(options["shape"], options["chunks"], options["layout"])
        )
        report = run(
            options["chunks"],
            options["licenses"],
            self._progress,
            options["refill"],
            options["shape"],
            options["layout"],
        )
        self.stderr.write("")
        self.stdout.write(json.dumps(report, indent=None if options["json"] else 2))

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  filling {done}/{total}", ending="")
