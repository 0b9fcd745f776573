"""manage.py bench_long_documents DATASET_DIR --split heldout [--json] — the shared sets'
passages as whole articles (one document each) beside one document per passage: is a gold
answer in the first chunk found, or in the first five? In a database of its own
(portality_bench by default); logic in tests/bench/long_documents.py."""

from __future__ import annotations

from tests.bench.dataset_command import DatasetBenchCommand


class Command(DatasetBenchCommand):
    help = "Retrieval from whole articles beside one document per passage (answer in chunk)."
    runs = "tests.bench.long_documents"
    progress_label = "ingesting documents"
