"""manage.py bench_formats DATASET_DIR --split heldout [--json] — retrieval per document
format (Markdown, Word, HTML) and extraction throughput of every reader.

Runs in a separate database (portality_bench), so product data is never touched."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tests.bench.database import use_bench_database
from tests.bench.formats import run
from tests.bench.retrieval import add_dataset_arguments, missing_dataset_files


class Command(BaseCommand):
    help = "nDCG@10 per format (md, docx, html) and extraction MB/s per reader on a dataset."

    def add_arguments(self, parser: CommandParser) -> None:
        add_dataset_arguments(parser)
        parser.add_argument("--limit", type=int, help="only the first N passages (a quick run)")

    def handle(self, *args: Any, **options: Any) -> None:
        directory = options["dataset_dir"]
        if problem := missing_dataset_files(directory):
            raise CommandError(problem)
        use_bench_database(options["database"])
        report = run(directory, options["split"], self._progress, limit=options["limit"])
        self.stderr.write("")
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        self.stdout.write(f"{report['dataset']} {report['split']}: {report['queries']} queries")
        for kind, m in report["retrieval"].items():
            self.stdout.write(
                f"  {kind:<5} nDCG@10 {m['ndcg@10']:.3f} ({m['ndcg@10_vs_md']:.3f} of md)"
            )
        for kind, m in report["extraction"].items():
            self.stdout.write(f"  {kind:<5} {m['mb_per_s']} MB/s, {m['sections_per_s']} sections/s")

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  ingesting passages {done}/{total}", ending="")
