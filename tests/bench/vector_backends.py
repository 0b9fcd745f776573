"""The Vertex AI Vector Search backend against pgvector on a shared retrieval set, side by
side in one run: what the product's own code adds per query (the fake's own time taken out:
a real engine's is the network's and Google's), and ranking quality per fusion through each
backend — ``rrf`` is Vertex's RRF at its default alpha 0.5 (equal weights) over the dense
list and PostgreSQL's keyword list, against today's weighted fusion — and through hybrid
queries (VERTEX_HYBRID_ALPHA 0.5: Vertex's own sparse list fused into the candidates).

    .venv/bin/python manage.py bench_vector_backends ../shared/bench/xquad-es --split heldout --json
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.test.utils import override_settings

from knowledge.search import caches_forget
from knowledge.search.vertex import VertexClient, vertex_client
from knowledge.vector_sync import outbox_drain, outbox_enqueue_all
from tests.bench.retrieval import (
    bench_license,
    evaluate,
    ingest_passages,
    load_dataset,
    ranked_passages,
)
from tests.conftest import vertex_settings
from tests.fake_vertex import FakeVertex

STRATEGIES = ("weighted", "rrf")


def run(directory: Path, split: str, progress: Callable[[int, int], None]) -> dict[str, Any]:
    dataset = load_dataset(directory, split)
    license = bench_license(dataset)
    ingest_passages(dataset, license, progress)
    report: dict[str, Any] = {"dataset": dataset.name, "split": split,
                              "queries": len(dataset.queries)}  # fmt: skip
    with FakeVertex(dimensions=384) as fake, tempfile.TemporaryDirectory() as keys:
        vertex = {k: float(v) if k.endswith("_SECONDS") else v
                  for k, v in vertex_settings(fake, Path(keys)).items()}  # fmt: skip
        vertex["VERTEX_BATCH_SIZE"] = 500
        hybrid = {**vertex, "VERTEX_HYBRID_ALPHA": "0.5"}
        with override_settings(**hybrid):  # the datapoints carry their words too
            vertex_client.cache_clear()
            started = time.perf_counter()
            outbox_enqueue_all()
            sent = outbox_drain(max_batches=10_000)
            report["upsert_seconds"] = round(time.perf_counter() - started, 2)
            report["datapoints"] = sent.upserted
        report["latency_ms"] = _latencies(dataset, license, fake, vertex)
        report["quality"] = {}
        for backend, overrides in (
            ("pgvector", {}),
            ("vertex", vertex),
            ("vertex_hybrid_alpha_0.5", hybrid),
        ):
            with override_settings(**overrides):
                caches_forget()
                report["quality"][backend] = {s: evaluate(dataset, license, s) for s in STRATEGIES}
    return report


def _latencies(dataset, license, fake: FakeVertex, vertex: dict[str, Any]) -> dict[str, float]:
    """Per query, alternating the backends once the question's vector is cached (both reuse
    it): pgvector's search; the Vertex backend's, whole and without the fake's own time; and
    the HTTP call as the client saw it."""
    client_seconds: list[float] = []
    original = VertexClient.find_neighbors

    def timed(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            client_seconds.append(time.perf_counter() - started)

    pgvector, through_vertex, own_code = [], [], []
    VertexClient.find_neighbors = timed  # type: ignore[method-assign]
    try:
        for query in dataset.queries:
            ranked_passages(license, query["text"], "weighted", None)  # the question embedded
            pgvector.append(ranked_passages(license, query["text"], "weighted", None)[1])
            with override_settings(**vertex):
                latency = ranked_passages(license, query["text"], "weighted", None)[1]
            through_vertex.append(latency)
            own_code.append(latency - 1000 * fake.query_seconds[-1])
    finally:
        VertexClient.find_neighbors = original  # type: ignore[method-assign]
    median = statistics.median
    return {
        "pgvector_p50": round(median(pgvector), 2),
        "vertex_p50": round(median(through_vertex), 2),
        "vertex_without_engine_p50": round(median(own_code), 2),
        "engine_p50": round(1000 * median(fake.query_seconds[-len(pgvector) :]), 2),
        "http_call_p50": round(1000 * median(client_seconds), 2),
        "product_overhead_p50": round(median(own_code) - median(pgvector), 2),
        "ratio_without_engine": round(median(own_code) / median(pgvector), 3),
    }
