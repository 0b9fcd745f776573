"""manage.py bench_long_documents DATASET_DIR --split heldout [--json] — the shared sets'
passages as whole articles (one document each) beside one document per passage: is a gold
answer in the first chunk found, or in the first five? In a database of its own
(portality_bench by default); logic in tests/bench/long_documents.py."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "Retrieval from whole articles beside one document per passage (answer in chunk)."

    def add_arguments(self, parser: CommandParser) -> None:
        from tests.bench.retrieval import add_dataset_arguments

        add_dataset_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.database import use_bench_database
        from tests.bench.long_documents import run
        from tests.bench.retrieval import missing_dataset_files

        directory = options["dataset_dir"]
        if problem := missing_dataset_files(directory):
            raise CommandError(problem)
        use_bench_database(options["database"])
        report = run(directory, options["split"], progress=self._progress)
        self.stderr.write("")
        self.stdout.write(json.dumps(report, indent=None if options["json"] else 2))

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  ingesting documents {done}/{total}", ending="")
