"""manage.py bench_across_languages [--split dev|heldout] [--json] — English questions over
the shared Spanish and Portuguese sets: relevant passages kept and off-topic questions let
through at each floor (tests/bench/across_languages.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "Where the threshold leaves English questions over Spanish and Portuguese knowledge."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--shared", type=Path, default=Path("../shared/bench"),
            help="the folder holding xquad-es/ and faquad-pt/",
        )  # fmt: skip
        parser.add_argument("--split", default="dev", choices=["dev", "heldout"])
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--database", default="portality_bench")

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.across_languages import SETS, run
        from tests.bench.database import use_bench_database
        from tests.bench.retrieval import missing_dataset_files

        for name in SETS:
            if problem := missing_dataset_files(options["shared"] / name):
                raise CommandError(problem)
        use_bench_database(options["database"])
        report = run(options["shared"], options["split"], progress=self._progress)
        self.stderr.write("")
        self.stdout.write(json.dumps(report, indent=None if options["json"] else 2))

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  ingesting passages {done}/{total}", ending="")
