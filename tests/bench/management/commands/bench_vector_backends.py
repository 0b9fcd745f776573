"""manage.py bench_vector_backends DATASET_DIR --split dev [--json] — Vertex vs pgvector."""

from __future__ import annotations

from tests.bench.dataset_command import DatasetBenchCommand


class Command(DatasetBenchCommand):
    help = (
        "Per-query overhead of the Vertex AI Vector Search backend (through a local fake) "
        "over pgvector, and nDCG@10 of weighted and RRF fusion through each."
    )
    runs = "tests.bench.vector_backends"
