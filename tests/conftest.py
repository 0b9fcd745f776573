"""Session-wide real parts: the embedded PostgreSQL and Redis come up through tests.settings;
this file adds a real Celery worker process and a clean Redis for each session."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from portality.celery import app as celery_app
from tests.ports import free_port

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: drives a real Chromium")
    config.addinivalue_line("markers", "worker: needs a real Celery worker process")
    config.addinivalue_line("markers", "process: starts make run or manage.py as processes")
    config.addinivalue_line("markers", "slow: over a second on its own (fuzzing, OCR, backoff)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Marked by what they use, so a new test cannot forget: `make test-fast` leaves these out.
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "celery_worker" in fixtures or "worker_process" in fixtures:
            item.add_marker(pytest.mark.worker)
        if "chromium_page" in getattr(item.module, "__dict__", {}):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session", autouse=True)
def _clean_redis():
    # The test Redis is the tests' own (var/test); stale queued tasks from an aborted run
    # would otherwise reach this session's worker.
    redis.Redis.from_url(settings.REDIS_URL).flushdb()


@pytest.fixture(autouse=True)
def _english_after_each_test():
    # A test that renders a page or an error in Spanish or Portuguese leaves that language
    # active in the thread; the next test must start in the default one.
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _no_relative_cut(settings):
    # The relative cut is calibrated on e5's scores (BENCHMARKS.md); the fake embedder's are
    # not, so tests see every passing result unless they turn it on themselves.
    settings.SEARCH_RELATIVE_CUT = 0.0


@pytest.fixture(autouse=True)
def _fresh_common_lexemes():
    # Search keeps ANALYZE's frequent words for a few minutes per process; each test has
    # its own data, so none may inherit another's list.
    from knowledge.search import caches_forget

    caches_forget()


def database_url_for_test_db() -> str:
    db = connection.settings_dict
    host = db["HOST"]
    if host.startswith("/"):
        return f"postgresql://{db['USER']}@/{db['NAME']}?host={host}"
    return f"postgresql://{db['USER']}:{db['PASSWORD']}@{host}:{db['PORT'] or 5432}/{db['NAME']}"


# The port of the local web site a worker may fetch (tests/website.py): the session's
# worker is started with it allowed, as a deployment would allow an intranet host.
WORKER_SITE_PORT = free_port()


def worker_env(**extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url_for_test_db(),
        "REDIS_URL": settings.REDIS_URL,
        "SOURCES_ALLOWED_HOSTS": f"127.0.0.1:{WORKER_SITE_PORT}",
        "SOURCES_MIN_DELAY_SECONDS": "0",
        **extra,
    }


def start_worker(
    env: dict[str, str], *, name: str = "test", queues: str = "celery"
) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "celery", "-A", "portality", "worker"]
    command += ["--loglevel=WARNING", "--concurrency=1", f"--hostname={name}@%h"]
    command += ["--without-gossip", "--without-mingle", f"--queues={queues}"]
    # Its own process group, so a test can kill the main process and its pool at once.
    process = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Celery worker exited with {process.returncode}")
        replies = celery_app.control.ping(timeout=0.5) or []
        if any(f"{name}@" in next(iter(reply)) for reply in replies):
            return process
    process.kill()
    raise RuntimeError("Celery worker did not answer a ping within 60 s")


def stop_worker(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def wait_for_idle_worker(timeout: float = 60) -> None:
    """Until the default queue is empty and no worker holds a task, twice in a row: a task
    a test's upload queued (its sentence vectors) must not be reading the tables while the
    test's teardown truncates them (a deadlock, seen once)."""
    import redis

    queue = redis.Redis.from_url(settings.REDIS_URL)
    deadline, quiet = time.monotonic() + timeout, 0
    while time.monotonic() < deadline and quiet < 2:
        inspect = celery_app.control.inspect(timeout=0.3)
        held = [*((inspect.active() or {}).values()), *((inspect.reserved() or {}).values())]
        idle = not queue.llen("celery") and not any(held)
        quiet = quiet + 1 if idle else 0


@pytest.fixture(autouse=True)
def _worker_idle_before_teardown(request, _django_db_helper):
    # Depends on the database fixture so that it is torn down before it.
    yield
    if "celery_worker" in request.fixturenames:
        wait_for_idle_worker()


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, django_db_blocker):
    """A real worker process on the real Redis, reading the session's test database.

    Tests that use it must commit their rows (TransactionTestCase / transactional_db):
    the worker is another connection and cannot see a TestCase's open transaction."""
    process = start_worker(worker_env())
    yield process
    stop_worker(process)


@pytest.fixture
def fake_embedder(monkeypatch):
    """Deterministic hashed vectors in place of the local model (unit tests only)."""
    from knowledge import embeddings
    from tests.fakes import FakeEmbedder

    fake = FakeEmbedder()
    monkeypatch.setattr(embeddings, "_providers", {"local": fake})
    return fake


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


# The shared PDF corpus, vendored (with its README and licences) so a clean clone tests anywhere.
PDFS = ROOT / "tests" / "data" / "pdfs"


@pytest.fixture(
    params=[
        "exact scan",
        "graph walk",
        "graph walk, first round widened",
        "global graph walk, own vectors compared",
    ]
)
def semantic_plan(request, settings, monkeypatch):
    """Every way the kNN runs: every vector of a small scope compared; the whole HNSW graph
    walked (a license with many vectors of its own), at the configured ef_search or at one
    widened for a scope holding a fifth of the table; or the global vectors' own graph
    walked beside the license's own vectors compared (knowledge/search/plan.py)."""
    from knowledge.search import plan as knn_plan

    settings.SEARCH_EXACT_SCAN_MAX_ROWS = 10_000 if request.param == "exact scan" else 0
    split = request.param.startswith("global graph")
    monkeypatch.setattr(knn_plan, "_own_vectors_are_few", lambda *args: split)
    if request.param.endswith("widened"):
        monkeypatch.setattr(knn_plan, "_estimated_share", lambda *args: 0.2)
    return request.param


def vertex_settings(fake, directory: Path) -> dict[str, str]:
    """The settings (as environment variables) of a deployment searching through ``fake``."""
    return {
        "SEARCH_VECTOR_BACKEND": "vertex",
        "VERTEX_PROJECT": fake.project,
        "VERTEX_LOCATION": fake.location,
        "VERTEX_INDEX": fake.index,
        "VERTEX_INDEX_ENDPOINT": fake.index_endpoint,
        "VERTEX_DEPLOYED_INDEX_ID": fake.deployed_index_id,
        "VERTEX_ENDPOINT_DOMAIN": fake.url,
        "VERTEX_API_BASE_URL": fake.url,
        "VERTEX_CREDENTIALS_FILE": str(fake.service_account_file(directory)),
        "VERTEX_TIMEOUT_SECONDS": "1",
        "VERTEX_QUERY_TIMEOUT_SECONDS": "0.5",
    }


def use_vertex_settings(settings, fake, directory: Path) -> dict[str, str]:
    """This process's settings searching through ``fake``; the same, as the environment
    variables a worker or web server started by the test needs."""
    from knowledge.search.vertex import vertex_client

    env = vertex_settings(fake, directory)
    for name, value in env.items():
        setattr(settings, name, float(value) if name.endswith("_SECONDS") else value)
    vertex_client.cache_clear()  # one client per configuration: the next call builds it
    return env


def wait_until(condition, timeout: float = 120, every: float = 0.05, what: str = ""):
    """``condition()``'s first truthy value, polled every ``every`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what or condition}")


def vector_outbox_session(on: bool) -> None:
    """What knowledge.apps does when a connection opens, for the test's open connection."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('portality.vector_outbox', %s, false)", ["on" if on else "off"]
        )


@pytest.fixture
def fake_vertex(settings, tmp_path, fake_embedder):
    """This test's deployment searches through a fake Vertex AI Vector Search
    (tests/fake_vertex.py), its vectors written there through the outbox."""
    from knowledge.search.vertex import QUERY_BREAKER, vertex_client
    from tests.fake_vertex import FakeVertex

    QUERY_BREAKER.close()  # a previous test's outage is not this one's
    with FakeVertex(dimensions=fake_embedder.dimensions) as fake:
        use_vertex_settings(settings, fake, tmp_path)
        vector_outbox_session(True)
        yield fake
        vector_outbox_session(False)
        vertex_client.cache_clear()
        forget_prepared_statements()  # the fallbacks' pgvector statements, for later counts


def forget_prepared_statements() -> None:
    from knowledge.search import prepared

    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")
    prepared._prepared.pop(connection.connection, None)


@pytest.fixture
def other_session(db):
    """A second PostgreSQL session on the test database, as another process would hold one
    (a worker's, a command's): autocommit, closed after the test."""
    import psycopg  # noqa: PLC0415

    db_settings = connection.settings_dict
    params = {
        "dbname": db_settings["NAME"],
        "user": db_settings["USER"],
        "host": db_settings["HOST"],
        "port": db_settings["PORT"] or None,
    }
    with psycopg.connect(**{k: v for k, v in params.items() if v}, autocommit=True) as other:
        yield other
