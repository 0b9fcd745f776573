"""manage.py bench_answers DATASET_DIR --split heldout [--json] — the offline answerer's
answers against the set's gold answers (tests/bench/answers.py says how they are scored).

Runs in a separate database (portality_bench), so product data is never touched."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "Lead-sentence and whole-answer hit, length, no-info and language of offline answers."

    def add_arguments(self, parser: CommandParser) -> None:
        from tests.bench.retrieval import add_dataset_arguments, add_typos_argument

        add_dataset_arguments(parser)
        add_typos_argument(parser)
        parser.add_argument(
            "--answer-length",
            default="normal",
            choices=["short", "normal", "detailed"],
            help="the assistant's answer length the answers are given at",
        )
        parser.add_argument(
            "--layout",
            default="passages",
            choices=["passages", "articles"],
            help="one document per passage, or each article one document (long documents)",
        )
        parser.add_argument(
            "--unanswerable",
            choices=["article", "paragraph"],
            help="half of the passages (every other article, or every other paragraph of "
            "each): no-info share on questions they do not answer, hits on those they do",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        from tests.bench.answers import evaluate, evaluate_unanswerable
        from tests.bench.database import use_bench_database
        from tests.bench.retrieval import missing_dataset_files

        directory = options["dataset_dir"]
        if problem := missing_dataset_files(directory):
            raise CommandError(problem)
        if settings.LLM_PROVIDER != "extractive":
            raise CommandError("bench_answers measures the offline answerer: unset LLM_PROVIDER.")
        use_bench_database(options["database"])
        if options["unanswerable"]:
            report = evaluate_unanswerable(
                directory, options["split"], self._progress, by=options["unanswerable"]
            )
        else:
            report = evaluate(
                directory,
                options["split"],
                progress=self._progress,
                length=options["answer_length"],
                layout=options["layout"],
                typos=options["typos"],
            )
        self.stderr.write("")
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        for key, value in report.items():
            self.stdout.write(f"{key:<16} {value}")

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  ingesting passages {done}/{total}", ending="")
