"""What the benchmarks over a shared dataset folder have in common as commands: its
arguments, a database of their own, ingestion progress on stderr and a JSON report."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class DatasetBenchCommand(BaseCommand):
    """Subclasses name the module whose ``run(directory, split, progress=…)`` they run; it is
    imported when the command runs, so ``--help`` needs no benchmark code."""

    runs: str  # e.g. "tests.bench.long_documents"
    progress_label = "ingesting passages"

    def add_arguments(self, parser: CommandParser) -> None:
        from tests.bench.retrieval import add_dataset_arguments

        add_dataset_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.database import use_bench_database
        from tests.bench.retrieval import missing_dataset_files

        directory: Path = options["dataset_dir"]
        if problem := missing_dataset_files(directory):
            raise CommandError(problem)
        use_bench_database(options["database"])
        run = importlib.import_module(self.runs).run
        report = run(directory, options["split"], progress=self._progress)
        self.stderr.write("")
        self.stdout.write(json.dumps(report, indent=None if options["json"] else 2))

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  {self.progress_label} {done}/{total}", ending="")
