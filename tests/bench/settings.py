"""Settings of a benchmark run: the product's own (embedded servers, DEBUG off unless told,
prepared statements, ...) with the benchmarks' commands installed. ``manage.py bench_*``
picks this module; nothing else does."""

from portality.settings import *  # noqa: F403

INSTALLED_APPS = [*INSTALLED_APPS, "tests.bench"]  # noqa: F405
