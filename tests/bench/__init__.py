"""Benchmarks: not part of the product or of `make test` (BENCHMARKS.md says what each
measures and how to run it)."""
