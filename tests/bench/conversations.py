"""Conversations at scale: how long the retention purge takes for N stored answers, and how
long grouping M unanswered questions into knowledge gaps takes.

The purge: N answers of 200 licenses spread over 60 days (each with a redacted question, an
answer, a citation, a rating on one in five), then ``conversations_purge`` with the default
30 days (about half goes), then ``--older-than 0`` (the rest). Gap grouping: M question
vectors, assigned one by one as the chat does (``gap_assign``: an advisory lock, the nearest
open gap's centre, one update). With a shared dataset folder the vectors are the e5
embeddings of its real questions, each asked in five slightly different ways (a small
perturbation standing for a rewording); without one, random clusters of the same size."""

from __future__ import annotations

import json
import random
import statistics
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone

from conversations.gaps import gap_assign
from conversations.models import Conversation, DailyCount, Exchange, Gap
from conversations.services import conversations_purge
from licenses.models import License

LICENSES = 200
VARIANTS = 5  # each real question asked in this many ways


def _licenses() -> list[License]:
    existing = list(License.objects.filter(machine_id__startswith="bench-conv-"))
    if len(existing) >= LICENSES:
        return existing
    License.objects.bulk_create(
        [
            License(
                machine_id=f"bench-conv-{i}",
                user_name=f"Bench {i}",
                key_prefix=f"pbk_bc{i:05d}",
                key_hash="x",
            )
            for i in range(len(existing), LICENSES)
        ]
    )
    return list(License.objects.filter(machine_id__startswith="bench-conv-"))


def _fill(answers: int, licenses: list[License]) -> None:
    Exchange.objects.all().delete()
    Conversation.objects.all().delete()
    DailyCount.objects.all().delete()
    now = timezone.now()
    rng = random.Random(7)
    conversations = [
        Conversation(license=licenses[i % LICENSES], user_ref=f"user-{i}", session_id=f"s{i}")
        for i in range(max(1, answers // 4))
    ]
    Conversation.objects.bulk_create(conversations, batch_size=5000)
    batch = []
    for i in range(answers):
        conversation = conversations[i % len(conversations)]
        batch.append(
            Exchange(
                id=uuid.uuid4(),
                conversation=conversation,
                license_id=conversation.license_id,
                question="¿A qué hora abre la piscina del condominio los domingos? [EMAIL]",
                answer="«La piscina del condominio abre a las ocho de la mañana.» [1] " * 3,
                language=rng.choice(("es", "pt", "en")),
                answerer="extractive",
                citations=[{"number": 1, "document": "reglamento.pdf", "chunk_id": i, "page": 3}],
                chunk_ids=[i],
                no_information=rng.random() < 0.2,
                rating=rng.choice(("up", "down", "", "", "")),
            )
        )
        if len(batch) == 5000:
            Exchange.objects.bulk_create(batch)
            batch = []
    Exchange.objects.bulk_create(batch)
    # Spread over 60 days (auto_now_add filled "now" above).
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE conversations_exchange SET created_at = %s - (random() * interval '60 days')",
            [now],
        )
        cursor.execute("ANALYZE conversations_exchange")


def purge(answers: int) -> dict[str, Any]:
    _fill(answers, _licenses())
    started = time.perf_counter()
    first = conversations_purge()
    default_seconds = time.perf_counter() - started
    started = time.perf_counter()
    rest = conversations_purge(older_than_days=0, now=timezone.now() + timedelta(seconds=1))
    rest_seconds = time.perf_counter() - started
    counted = sum(DailyCount.objects.values_list("questions", flat=True))
    return {
        "answers": answers,
        "retention_30_days": {"removed": first.exchanges, "seconds": round(default_seconds, 2)},
        "older_than_0": {"removed": rest.exchanges, "seconds": round(rest_seconds, 2)},
        "answers_per_second": round(answers / (default_seconds + rest_seconds)),
        "counted_in_daily_counts": counted,
    }


def _question_vectors(dataset: Path | None, total: int) -> tuple[np.ndarray, str, np.ndarray]:
    """``total`` vectors, each a question's (``picks``: which) slightly perturbed."""
    rng = np.random.default_rng(7)
    if dataset is None:
        centres = rng.normal(size=(max(1, total // VARIANTS), 384)).astype(np.float32)
        model = "synthetic@384"
    else:
        centres, model = _embedded_questions(dataset)
    picks = np.resize(np.arange(len(centres)), total)
    noise = rng.normal(scale=0.012, size=(total, centres.shape[1])).astype(np.float32)
    vectors = centres[picks] / np.linalg.norm(centres[picks], axis=1, keepdims=True) + noise
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True), model, picks


def _embedded_questions(dataset: Path) -> tuple[np.ndarray, str]:
    """The e5 query vectors of the dataset's questions (cached next to the data dir)."""
    from django.conf import settings

    from knowledge.embeddings import get_provider

    provider = get_provider()
    cache = Path(settings.DATA_DIR) / "bench" / f"questions-{dataset.name}-{provider.model}.npy"
    if cache.exists():
        return np.load(cache), provider.model
    lines = (dataset / "queries.jsonl").read_text().splitlines()
    questions = [json.loads(line)["text"] for line in lines if line.strip()]
    vectors = np.asarray([provider.embed_query(q) for q in questions], dtype=np.float32)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors, provider.model


def _purity(labels: np.ndarray, gap_of: np.ndarray) -> dict[str, Any]:
    """How well the gaps follow the questions: the share of one question's askings in its
    most common gap, and how many askings share a gap with another question's."""
    together, mixed = 0, 0
    for label in np.unique(labels):
        _, counts = np.unique(gap_of[labels == label], return_counts=True)
        together += int(counts.max())
    for gap in np.unique(gap_of):
        _, counts = np.unique(labels[gap_of == gap], return_counts=True)
        mixed += int(counts.sum() - counts.max())
    sizes = np.unique(gap_of, return_counts=True)[1]
    return {
        "distinct_questions": int(len(np.unique(labels))),
        "askings_in_their_question_s_main_gap": round(together / len(labels), 3),
        "askings_beside_another_question": round(mixed / len(labels), 3),
        "largest_gap": int(sizes.max()),
    }


def grouping(questions: int, datasets: list[Path]) -> dict[str, Any]:
    Gap.objects.all().delete()
    Exchange.objects.all().delete()
    Conversation.objects.all().delete()
    license = _licenses()[0]
    conversation = Conversation.objects.create(license=license, user_ref="bench", session_id="g")
    if datasets:
        parts = [_question_vectors(d, questions // len(datasets)) for d in datasets]
        vectors = np.concatenate([p[0] for p in parts])
        model = parts[0][1]
        labels = np.concatenate([p[2] + n * 1_000_000 for n, p in enumerate(parts)])
    else:
        vectors, model, labels = _question_vectors(None, questions)
    order = np.random.default_rng(11).permutation(len(vectors))
    exchanges = Exchange.objects.bulk_create(
        [
            Exchange(conversation=conversation, license=license, language="es", answerer="x")
            for _ in range(len(vectors))
        ]
    )
    timings = []
    gap_of = np.zeros(len(vectors), dtype=np.int64)
    started = time.perf_counter()
    for index in order:
        began = time.perf_counter()
        with transaction.atomic():
            gap_of[index] = gap_assign(exchanges[index], vectors[index].tolist(), model).pk
        timings.append((time.perf_counter() - began) * 1000)
    total = time.perf_counter() - started
    timings.sort()
    return {
        "questions": len(vectors),
        "model": model,
        "gaps": Gap.objects.count(),
        **_purity(labels, gap_of),
        "seconds": round(total, 2),
        "per_question_ms": {
            "p50": round(statistics.median(timings), 2),
            "p95": round(timings[int(len(timings) * 0.95) - 1], 2),
        },
    }
