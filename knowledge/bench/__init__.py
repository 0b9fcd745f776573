"""Benchmark runners behind manage.py bench_search and bench_retrieval (and tests/bench/).

They measure the product; the product never runs them on its own."""
