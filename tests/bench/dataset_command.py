"""What the benchmarks over a shared dataset folder have in common as commands: its
arguments, a database of their own, ingestion progress on stderr and a JSON report."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

Runner = Callable[..., dict]


class DatasetBenchCommand(BaseCommand):
    """Subclasses say what runs (``runner``: ``run(directory, split, progress=…)``)."""

    progress_label = "ingesting passages"

    def runner(self) -> Runner:
        raise NotImplementedError

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
        report = self.runner()(directory, options["split"], progress=self._progress)
        self.stderr.write("")
        self.stdout.write(json.dumps(report, indent=None if options["json"] else 2))

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  {self.progress_label} {done}/{total}", ending="")
