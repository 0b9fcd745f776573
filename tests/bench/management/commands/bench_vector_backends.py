"""manage.py bench_vector_backends DATASET_DIR --split dev [--json] — Vertex vs pgvector."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = (
        "Per-query overhead of the Vertex AI Vector Search backend (through a local fake) "
        "over pgvector, and nDCG@10 of weighted and RRF fusion through each."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        from tests.bench.retrieval import add_dataset_arguments

        add_dataset_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.database import use_bench_database
        from tests.bench.retrieval import missing_dataset_files
        from tests.bench.vector_backends import run

        directory = options["dataset_dir"]
        if problem := missing_dataset_files(directory):
            raise CommandError(problem)
        use_bench_database(options["database"])
        report = run(directory, options["split"], progress=self._progress)
        self.stderr.write("")
        self.stdout.write(json.dumps(report, indent=None if options["json"] else 2))

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  ingesting passages {done}/{total}", ending="")
