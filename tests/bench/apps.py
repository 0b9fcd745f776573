from django.apps import AppConfig


class BenchConfig(AppConfig):
    """The benchmarks' management commands (bench_search, bench_retrieval, bench_chat,
    bench_ingest). Installed only by tests.bench.settings, which manage.py uses for a
    ``bench_*`` command: the product's settings and its wheel know nothing of them."""

    name = "tests.bench"
    label = "bench"
