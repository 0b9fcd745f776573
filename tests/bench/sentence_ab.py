"""The search with sentence vectors mixed in against the chunk's vector alone, side by side
in one run. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.sentence_ab [--chunks 100000] [--layout documents]

Runs against the database `manage.py bench_search --chunks N [--layout L]` filled (which adds
the sentence rows: 2-8 per chunk), with the same queries as that benchmark, each query both
ways in alternating order (as tests/bench/prepared_ab.py). ``SEARCH_SENTENCE_WEIGHT`` 0 is
the old statement's work: its sentence lookup is skipped by a one-time filter.
"""

from __future__ import annotations

import argparse

from tests.bench.prepared_ab import _scopes, bench_world, both_ways, run_ab, summary


def main() -> None:
    run_ab(measure, chunks=100_000)


def measure(args: argparse.Namespace) -> dict:
    from django.conf import settings

    from knowledge.bench import search_scale

    rows = search_scale.ensure_sentence_vectors(lambda done, total: None)
    weight = settings.SEARCH_SENTENCE_WEIGHT or 0.7
    world, options = bench_world(args)
    search_scale.prewarm()
    report = {"sentence_rows": rows}

    def switch(way: str) -> None:
        settings.SEARCH_SENTENCE_WEIGHT = weight if way == "sentences" else 0.0

    for scope, license_id in _scopes(args.licenses).items():
        timings = both_ways(world, args, license_id, options, ("sentences", "chunk"), switch)
        report[scope] = summary(timings, new="sentences", old="chunk")
    return report


if __name__ == "__main__":
    main()
