"""The common lexemes sent as PostgreSQL's own text[] literal (rendered by the server once
and cached) against sent as a Python list the driver quotes element by element on every
search, side by side in one run. Not part of make test.

    DEBUG=1 .venv/bin/python -m tests.bench.lexeme_literal_ab [--chunks 100000]

Runs against the database `manage.py bench_search --chunks N` filled, with the same queries
as that benchmark, each query both ways in alternating order (as tests/bench/prepared_ab.py).
"""

from __future__ import annotations

import argparse
import dataclasses


def main() -> None:
    from tests.bench.prepared_ab import run_ab

    run_ab(measure, chunks=100_000)


def measure(args: argparse.Namespace) -> dict:
    from knowledge import selectors
    from knowledge.bench import search_scale
    from tests.bench.prepared_ab import _scopes, bench_world, both_ways, summary

    world, options = bench_world(args)
    search_scale.prewarm()
    read = selectors._common_lexemes_read

    def switch(way: str) -> None:
        if way == "literal":
            selectors._common_lexemes_read = read
        else:  # the list itself where the literal goes: what the search sent before

            def as_list(using: str) -> selectors._CommonLexemes:
                cached = read(using)
                return dataclasses.replace(cached, literal=cached.lexemes)  # type: ignore[arg-type]

            selectors._common_lexemes_read = as_list

    report = {"common_lexemes": len(read("default").lexemes)}
    try:
        for scope, license_id in _scopes(args.licenses).items():
            timings = both_ways(world, args, license_id, options, ("literal", "list"), switch)
            report[scope] = summary(timings, new="literal", old="list")
    finally:
        selectors._common_lexemes_read = read
    return report


if __name__ == "__main__":
    main()
