"""manage.py bench_retrieval DATASET_DIR --split dev [--json] — retrieval quality per strategy.

Runs in a separate database (portality_bench), so product data is never touched. The logic
lives in knowledge/bench/retrieval.py, beside the other benchmark runners."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = (
        "Recall@1/5/10, MRR@10, nDCG@10 and latency per strategy on an XQuAD/FaQuAD-style dataset."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        from tests.bench.retrieval import add_dataset_arguments, add_typos_argument

        add_dataset_arguments(parser)
        add_typos_argument(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        from tests.bench.database import use_bench_database
        from tests.bench.retrieval import missing_dataset_files, run

        directory = options["dataset_dir"]
        if problem := missing_dataset_files(directory):
            raise CommandError(problem)
        use_bench_database(options["database"])
        report = run(directory, options["split"], progress=self._progress, typos=options["typos"])
        self.stderr.write("")
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        self.stdout.write(
            f"{report['dataset']} {report['split']}: {report['passages']} passages, {report['queries']} queries"
        )
        self.stdout.write(f"{'strategy':<10} R@1    R@5    R@10   MRR@10 nDCG@10 p50ms  p95ms")
        for name, m in report["strategies"].items():
            self.stdout.write(
                f"{name:<10} {m['recall@1']:.3f}  {m['recall@5']:.3f}  {m['recall@10']:.3f}  "
                f"{m['mrr@10']:.3f}  {m['ndcg@10']:.3f}   {m['p50_ms']:<6} {m['p95_ms']}"
            )

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  ingesting passages {done}/{total}", ending="")
