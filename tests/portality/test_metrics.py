"""/metrics in Prometheus' text format: who may read it, what it counts, and that it sums
every process of the machine (web workers, Celery's pool, a command) — and a worker on a
machine of its own answers on WORKER_METRICS_PORT."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from django.test import Client
from rest_framework.test import APIClient

from licenses.services import license_forge
from observability.metrics import metrics_dir
from tests.conftest import ROOT, start_worker, stop_worker, worker_env
from tests.factories import make_document

# The tests that start other processes embed with the real model, as those processes do,
# and a worker reads the uploads where the test settings keep them (no media_root).
pytestmark = [pytest.mark.django_db]


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one series in a scrape (0 when absent)."""
    wanted = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    for line in text.splitlines():
        match = re.fullmatch(rf"{re.escape(name)}\{{(.*)\}} (\S+)", line)
        if match and ",".join(sorted(match.group(1).split(","))) == wanted:
            return float(match.group(2))
    return 0.0


def scrape(client: Client) -> str:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")  # the text format
    return response.content.decode()


def test_only_an_admin_or_the_allowed_networks_read_it(client, admin_user, settings):
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200  # a local scraper
    settings.METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8"]
    assert client.get("/metrics", REMOTE_ADDR="10.1.2.3").status_code == 200
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 404
    client.force_login(admin_user)
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.9").status_code == 200


def test_it_counts_requests_searches_ingestion_refusals_and_the_queue(
    client, settings, fake_embedder, media_root
):
    forged = license_forge(user_name="Ana", machine_id="sala-metricas")
    before = scrape(client)
    make_document(
        "# Piscina\n\nLa piscina abre a las ocho.", filename="p.md", license=forged.license
    )
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {forged.key}")
    settings.SEARCH_RATE_PER_LICENSE_PER_MINUTE = 1
    assert api.post("/api/v1/search", {"query": "piscina"}, format="json").status_code == 200
    assert api.post("/api/v1/search", {"query": "piscina"}, format="json").status_code == 429
    after = scrape(client)

    def grew(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    assert grew("portality_search_duration_seconds_count", stage="total") >= 1
    assert grew("portality_search_duration_seconds_count", stage="statement") >= 1
    assert grew("portality_ingestion_stage_duration_seconds_count", stage="embed") == 1
    assert grew("portality_rate_limit_refusals_total", limit="search") == 1
    # Requests and queries by django-prometheus, in the same multi-process directory.
    assert grew(
        "django_http_responses_total_by_status_view_method_total",
        status="429", view="knowledge-api:search", method="POST",
    ) == 1  # fmt: skip
    assert grew(
        "django_http_requests_latency_seconds_by_view_method_count",
        view="knowledge-api:search", method="POST",
    ) == 2  # fmt: skip
    assert grew("django_db_execute_total", alias="default", vendor="postgresql") >= 1
    assert re.search(r'^portality_queue_depth\{queue="celery"\} \d', after, re.M)


@pytest.mark.process
@pytest.mark.django_db(transaction=True)
def test_it_sums_what_other_processes_measured(client, media_root):
    make_document("# Piscina\n\nLa piscina abre a las ocho.", filename="p.md")
    before = sample(scrape(client), "portality_search_duration_seconds_count", stage="total")
    env = worker_env(PROMETHEUS_MULTIPROC_DIR=str(metrics_dir()))
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "manage.py", "search", "piscina", "--json"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    after = sample(scrape(client), "portality_search_duration_seconds_count", stage="total")
    assert after - before == 2


@pytest.mark.process
@pytest.mark.django_db(transaction=True)
def test_a_worker_on_its_own_machine_answers_on_its_port(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    own_dir = tmp_path / "worker-metrics"  # another machine: a directory of its own
    env = worker_env(WORKER_METRICS_PORT=str(port), PROMETHEUS_MULTIPROC_DIR=str(own_dir))
    # A queue of its own: the session's worker, if running, must not take the task.
    worker = start_worker(env, name="metrics", queues="metrics")
    try:
        make_document("# Piscina\n\nLa piscina abre a las ocho.", filename="p.md", ingest=False)
        from knowledge.models import Document
        from knowledge.tasks import document_ingest_task

        document_id = str(Document.objects.get().pk)
        document_ingest_task.apply_async([document_id], queue="metrics").get(timeout=60)
        deadline = time.monotonic() + 10
        text = ""
        while time.monotonic() < deadline and 'stage="store"' not in text:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
                text = reply.read().decode()
        assert sample(text, "portality_ingestion_stage_duration_seconds_count", stage="store") == 1
    finally:
        stop_worker(worker)
