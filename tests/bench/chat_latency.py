"""Server time before the first LLM byte, at scale (issue: RAG chat). Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.chat_latency [--chunks 100000] [--shape e5]

Runs against the database `manage.py bench_search --chunks N [--shape S]` filled (synthetic chunks, a
real e5 query embedding per question). Each request goes through the whole Django stack
with a widget token: auth, rate limit, Redis session, query embedding, hybrid retrieval,
prompt. The clock stops when the LLM is handed the prompt. Distinct questions (XQuAD dev),
so the query-embedding cache never hits.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=120)
    parser.add_argument("--shape", choices=["e5", "islands"], default="e5")
    args = parser.parse_args()
    from knowledge.bench.database import open_search_bench

    open_search_bench(args.shape, args.chunks)
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.CHAT_RATE_PER_USER_PER_MINUTE = settings.CHAT_RATE_PER_LICENSE_PER_MINUTE = 10**6
    print(json.dumps(measure(args.queries), indent=2))


class StopwatchLLM:
    name = "stopwatch"

    def stream(self, prompt):  # noqa: ANN001, ANN201
        yield "ok"


def measure(queries: int) -> dict:
    from rest_framework.test import APIClient

    import chat.services
    from licenses.models import License
    from licenses.widget_tokens import widget_token_issue

    license = License.objects.filter(machine_id__startswith="bench-").order_by("machine_id")[100]
    origin = "https://bench.example"
    License.objects.filter(pk=license.pk).update(allowed_origins=[origin], status="active")
    license.refresh_from_db()
    token, _ = widget_token_issue(license=license, user_ref="bench", origin=origin)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Widget {token}")
    llm = StopwatchLLM()
    chat.services.get_llm = lambda: llm
    root = (
        Path(__file__).resolve().parents[2].parent
        / "shared"
        / "bench"
        / "xquad-es"
        / "queries.jsonl"
    )
    questions = [json.loads(line)["text"] for line in root.read_text().splitlines()][: queries + 20]
    timings = []
    for n, question in enumerate(questions):
        started = time.perf_counter()
        response = client.post(
            "/api/v1/chat/stream", {"message": question}, format="json", HTTP_ORIGIN=origin
        )
        stream = iter(response.streaming_content)
        next(stream)  # first event: the LLM has the prompt, or the no-information answer is out
        first_event = time.perf_counter()
        b"".join(stream)
        if n >= 20:  # the first requests warm the model and the caches
            timings.append((first_event - started) * 1000)
    timings.sort()
    return {
        "requests": len(timings),
        "p50_ms": round(statistics.median(timings), 1),
        "p95_ms": round(timings[int(len(timings) * 0.95) - 1], 1),
    }


if __name__ == "__main__":
    main()
