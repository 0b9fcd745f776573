"""The product's Prometheus metrics, shared by every process of a machine.

prometheus-client's multiprocess mode: each process (granian's workers, Celery's pool
processes, a manage.py command) writes its samples to files in one directory, and whoever
answers a scrape sums them (``/metrics`` on the web server, ``WORKER_METRICS_PORT`` on a
worker machine). The directory must be known before prometheus-client is imported, hence
this module sets it first; ``make run`` empties it when the product starts. Requests and
database queries are counted and timed by django-prometheus (its middleware and database
backend), into the same directory.

What is measured here: search latency by stage, ingestion stage
durations, rate-limit refusals, a remote vector backend's fallbacks and outbox lag, and at
each scrape the Celery queue's depth plus what the apps register (``register_collector``:
the outbox's backlog, the replicas' lag), read when Prometheus asks.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import cast

from redis.exceptions import RedisError

from datastores.redis_pool import shared_redis
from datastores.replicas import replica_aliases, replica_state
from portality.env import data_dir, env_str


def metrics_dir() -> Path:
    return Path(env_str("PROMETHEUS_MULTIPROC_DIR") or data_dir() / "run" / "metrics")


os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir())
metrics_dir().mkdir(parents=True, exist_ok=True)

from prometheus_client import (  # noqa: E402 - after the directory is known
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily  # noqa: E402
from prometheus_client.registry import Collector  # noqa: E402

SEARCH_SECONDS = Histogram(
    "portality_search_duration_seconds",
    "Search time by stage: embed (the question), statement (the hybrid SQL), total.",
    ["stage"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
INGESTION_SECONDS = Histogram(
    "portality_ingestion_stage_duration_seconds",
    "Ingestion time by stage: extract (read, normalise, redact, chunk), embed, store.",
    ["stage"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900),
)
RATE_LIMIT_REFUSALS = Counter(
    "portality_rate_limit_refusals_total",
    "Requests refused for going over a rate limit, by limit.",
    ["limit"],
)

VECTOR_BACKEND_FALLBACKS = Counter(
    "portality_vector_backend_fallbacks_total",
    "Searches a remote vector backend could not answer, served by pgvector instead.",
    ["backend"],
)
OUTBOX_LAG_SECONDS = Histogram(
    "portality_vector_outbox_lag_seconds",
    "From a vector change's commit to the remote backend confirming it, by operation.",
    ["operation"],
    buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600),
)

CELERY_QUEUE = "celery"  # Celery's default queue, the only one the product uses


class _QueueDepth(Collector):
    """The Celery queue's length, read from Redis at each scrape (a gauge no process owns)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        gauge = GaugeMetricFamily(
            "portality_queue_depth", "Tasks waiting in a Celery queue.", labels=["queue"]
        )
        try:
            gauge.add_metric([CELERY_QUEUE], float(cast(int, shared_redis().llen(CELERY_QUEUE))))
        except RedisError:  # a scrape answers with Redis down; the health check says why
            return
        yield gauge


class _ReplicaLag(Collector):
    """Each read replica's replay lag, and whether it serves reads (datastores/replicas.py)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        lag = GaugeMetricFamily(
            "portality_replica_lag_seconds", "Replay lag of a read replica.", labels=["replica"]
        )
        serving = GaugeMetricFamily(
            "portality_replica_serving",
            "1 when a read replica serves reads; 0 when down or lagging (the primary serves).",
            labels=["replica"],
        )
        for alias in replica_aliases():
            state = replica_state(alias)
            if state.lag_seconds is not None:
                lag.add_metric([alias], state.lag_seconds)
            serving.add_metric([alias], 1.0 if state.healthy else 0.0)
        yield lag
        yield serving


_registered: list[Collector] = []


def register_collector(collector: Collector) -> None:
    """A gauge read at each scrape, from an app above this one (apps depend downward)."""
    _registered.append(collector)


def scrape() -> tuple[bytes, str]:
    """Every process's samples on this machine, summed, the queue's depth and the apps'
    registered gauges."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    registry.register(_QueueDepth())
    registry.register(_ReplicaLag())
    for collector in _registered:
        registry.register(collector)
    return generate_latest(registry), CONTENT_TYPE_LATEST


def metrics_reset() -> None:
    """Forget the samples of processes gone (make run calls this when it starts)."""
    for stale in metrics_dir().glob("*.db"):
        stale.unlink(missing_ok=True)


def process_exited(pid: int) -> None:
    multiprocess.mark_process_dead(pid)
