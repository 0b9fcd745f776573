"""Server time to an answer's first byte, next to the two costs it cannot avoid.

For each question (distinct XQuAD questions, so no cache helps the request), in one run:
- **first byte**: a widget request through the whole stack (token auth, rate limits, Redis
  session, language, memories, query embedding, hybrid search, prompt) until the first
  event of the answer's stream leaves; the model is a stopwatch that answers at once.
- **embed**: the same question embedded again, bypassing the query cache.
- **search**: the same search again (its embedding now cached): the statement and the
  Python around it.

Goal (issue 17): first byte p95 ≤ 1.25 × (embed p95 + search p95). The data is the
database ``manage.py bench_search --chunks N`` filled (synthetic chunks, e5 shape). The
questions are XQuAD's Spanish ones when ../shared/bench sits beside the repository (the
figures in BENCHMARKS.md), otherwise made from words of the benchmark's own chunks.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings

QUESTIONS = Path(settings.BASE_DIR).parent / "shared" / "bench" / "xquad-es" / "queries.jsonl"
WARMUP = 20
ORIGIN = "https://bench.example"


class StopwatchLLM:
    """Answers at once: what is timed is the server's own work before the model."""

    name = "stopwatch"

    def stream(self, prompt: object) -> Iterator[str]:
        yield "ok"


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[max(0, int(len(ordered) * share) - 1)], 2)


def _questions(count: int) -> tuple[str, list[str]]:
    """Distinct questions, so that no cache helps a request, and where they come from."""
    if QUESTIONS.exists():
        return "xquad-es", [json.loads(line)["text"] for line in QUESTIONS.read_text().splitlines()]
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT content FROM knowledge_chunk ORDER BY id LIMIT %s", [count * 2])
        words = [content.split() for (content,) in cursor.fetchall()]
    made = (f"¿Qué se sabe de {w[3]} {w[7]} y {w[11]}?" for w in words if len(w) > 11)
    return "words of the benchmark's chunks", list(dict.fromkeys(made))


def run(queries: int) -> dict[str, object]:
    from rest_framework.test import APIClient

    import chat.services
    from knowledge.embeddings import QUERY_MAX_TOKENS, _cached_e5_query, get_provider
    from knowledge.search import search as chunk_search
    from licenses.models import License
    from licenses.principals import principal_for_license
    from licenses.widget_tokens import widget_token_issue

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.CHAT_RATE_PER_USER_PER_MINUTE = settings.CHAT_RATE_PER_LICENSE_PER_MINUTE = 10**6
    # A mid-sized license of the filled world (the 101st of 200; the middle one of fewer).
    licenses = License.objects.filter(machine_id__startswith="bench-").order_by("machine_id")
    license = licenses[min(100, licenses.count() // 2)]
    License.objects.filter(pk=license.pk).update(allowed_origins=[ORIGIN], status="active")
    license.refresh_from_db()
    token, _ = widget_token_issue(license=license, user_ref="bench", origin=ORIGIN)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Widget {token}")
    chat.services.get_llm = lambda provider="": StopwatchLLM()
    provider = get_provider()
    principal = principal_for_license(license)
    source, questions = _questions(queries + WARMUP)
    first_byte, embed, search = [], [], []
    for n, question in enumerate(questions[: queries + WARMUP]):
        started = time.perf_counter()
        response = client.post(
            "/api/v1/chat/stream", {"message": question}, format="json", HTTP_ORIGIN=ORIGIN
        )
        stream = iter(response.streaming_content)
        next(stream)
        first = time.perf_counter() - started
        b"".join(stream)
        started = time.perf_counter()
        _cached_e5_query.__wrapped__(provider._first_tokens(question, QUERY_MAX_TOKENS))
        embedded = time.perf_counter() - started
        started = time.perf_counter()
        chunk_search(principal=principal, query=question)
        searched = time.perf_counter() - started
        if n >= WARMUP:  # the first requests warm the model, the plans and the caches
            first_byte.append(first * 1000)
            embed.append(embedded * 1000)
            search.append(searched * 1000)
    limit = 1.25 * (percentile(embed, 0.95) + percentile(search, 0.95))
    return {
        "questions": source,
        "requests": len(first_byte),
        "first_byte_p50_ms": round(statistics.median(first_byte), 2),
        "first_byte_p95_ms": percentile(first_byte, 0.95),
        "embed_p50_ms": round(statistics.median(embed), 2),
        "embed_p95_ms": percentile(embed, 0.95),
        "search_p50_ms": round(statistics.median(search), 2),
        "search_p95_ms": percentile(search, 0.95),
        "limit_ms": round(limit, 2),
        "within_limit": percentile(first_byte, 0.95) <= limit,
    }
