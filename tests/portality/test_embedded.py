"""The embedded servers' life cycle, across real processes sharing one data dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from runtime import embedded
from runtime.embedded import EmbeddedServices

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.process  # starts embedded servers in processes of their own

# A process that attaches to the data dir's servers, says its URLs, waits for a line on
# stdin, then exits (its atexit hook releases the servers).
HOLDER = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from runtime.embedded import attach
    urls = attach(Path(sys.argv[1]), postgres=True, redis=True)
    print(json.dumps(urls.__dict__), flush=True)
    sys.stdin.readline()
    """
)


# The same, in a process that sees the wall clock an hour ahead of when the first one
# registered (NTP stepping it, a VM resumed): psutil adds the boot time as the clock says it.
AFTER_A_CLOCK_STEP = (
    textwrap.dedent(
        """
        import psutil
        real_boot_time = psutil._psplatform.boot_time
        psutil._psplatform.boot_time = lambda: real_boot_time() + 3600
        """
    )
    + HOLDER
)


def start_holder(
    data_dir: Path, script: str = HOLDER
) -> tuple[subprocess.Popen[str], dict[str, str]]:
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(data_dir)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert line, "the holder process died before attaching"
    return process, json.loads(line)


def finish(process: subprocess.Popen[str]) -> None:
    process.stdin.write("\n")
    process.stdin.flush()
    assert process.wait(60) == 0


def postmaster_pid(data_dir: Path) -> int | None:
    pid_file = data_dir / "postgres" / "postmaster.pid"
    if not pid_file.exists():
        return None
    pid = int(pid_file.read_text().split()[0])
    return pid if psutil.pid_exists(pid) else None


def redis_pid(data_dir: Path) -> int | None:
    pid_file = data_dir / "redis" / "redis.pid"
    if not pid_file.exists():
        return None
    pid = int(pid_file.read_text().split()[0])
    return pid if psutil.pid_exists(pid) else None


def psql(url: str, sql: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(sql)
        return str(cursor.fetchall()) if cursor.description else ""


@pytest.fixture
def data_dir(tmp_path):
    yield tmp_path / "data"
    EmbeddedServices(tmp_path / "data").stop_all()


def test_second_process_reuses_and_last_one_out_stops(data_dir):
    first, urls = start_holder(data_dir)
    pg_pid, rd_pid = postmaster_pid(data_dir), redis_pid(data_dir)
    assert pg_pid and rd_pid

    second, second_urls = start_holder(data_dir)
    assert second_urls == urls
    assert (postmaster_pid(data_dir), redis_pid(data_dir)) == (pg_pid, rd_pid)

    finish(first)
    assert postmaster_pid(data_dir) == pg_pid, "still in use by the second process"
    finish(second)
    assert postmaster_pid(data_dir) is None
    assert redis_pid(data_dir) is None


@pytest.mark.skipif(not psutil.LINUX, reason="the clock is stepped through psutil's Linux reader")
def test_a_user_registered_before_the_clock_was_set_still_counts(data_dir):
    """A tour: `manage.py ingest` beside `make run`, after the machine's clock had been
    stepped, took make run's processes for dead ones and stopped both servers as it left."""
    running, _ = start_holder(data_dir)
    pg_pid = postmaster_pid(data_dir)

    command, _ = start_holder(data_dir, AFTER_A_CLOCK_STEP)
    finish(command)

    assert postmaster_pid(data_dir) == pg_pid, "stopped under the process still using it"
    finish(running)
    assert postmaster_pid(data_dir) is None


def test_a_user_registered_by_an_earlier_version_still_counts(data_dir):
    """Before December 2026 a user was registered by its start on the wall clock: a make
    run started by that version, upgraded under it, still holds the servers."""
    running, _ = start_holder(data_dir)
    registry = data_dir / "run" / "users.json"
    users = json.loads(registry.read_text())
    users[str(running.pid)] = psutil.Process(running.pid).create_time()
    registry.write_text(json.dumps(users))
    pg_pid = postmaster_pid(data_dir)

    command, _ = start_holder(data_dir)
    finish(command)

    assert postmaster_pid(data_dir) == pg_pid, "stopped under the process still using it"
    finish(running)
    assert postmaster_pid(data_dir) is None


def test_restart_keeps_the_data(data_dir):
    first, urls = start_holder(data_dir)
    psql(
        urls["database_url"],
        "CREATE TABLE kept (value text); INSERT INTO kept VALUES ('still here')",
    )
    finish(first)

    again, urls = start_holder(data_dir)
    try:
        assert "still here" in psql(urls["database_url"], "SELECT value FROM kept")
    finally:
        finish(again)


def test_the_server_runs_with_the_tuning(data_dir):
    holder, urls = start_holder(data_dir)
    try:
        shown = psql(
            urls["database_url"],
            "SELECT current_setting('shared_buffers'), current_setting('jit'),"
            " current_setting('shared_preload_libraries')",
        )
    finally:
        finish(holder)
    assert shown == str([(embedded.TUNING["shared_buffers"], "off", "pg_prewarm")])


@pytest.mark.parametrize(
    ("memory_gb", "shared_buffers"),
    [(0.125, "128MB"), (2, "1GB"), (24, "12GB"), (64, "16GB")],
)
def test_shared_buffers_take_half_the_memory_within_bounds(monkeypatch, memory_gb, shared_buffers):
    class Memory:
        total = int(memory_gb * 2**30)

    monkeypatch.setattr(embedded.psutil, "virtual_memory", Memory)
    assert embedded.default_shared_buffers() == shared_buffers


def test_crashed_user_and_stale_files_are_recovered(data_dir):
    crashed, urls = start_holder(data_dir)
    crashed.kill()  # no atexit: its pid stays in the registry, the servers keep running
    crashed.wait()
    rd_pid = redis_pid(data_dir)
    os.kill(rd_pid, 9)  # a dead Redis leaves its pid file and socket behind
    while psutil.pid_exists(rd_pid):
        time.sleep(0.05)

    survivor, urls_after = start_holder(data_dir)
    assert urls_after == urls
    assert redis_pid(data_dir) not in (None, rd_pid)
    users = json.loads((data_dir / "run" / "users.json").read_text())
    assert list(users) == [str(survivor.pid)]

    finish(survivor)
    assert postmaster_pid(data_dir) is None
    assert redis_pid(data_dir) is None


def test_redis_keeps_every_write_through_a_kill_and_is_restarted(data_dir):
    """A snapshot every 60 s brought back a stale task after kill -9; the AOF does not."""
    import redis as redis_py

    services = EmbeddedServices(data_dir)
    url = services.acquire(postgres=False, redis=True).redis_url
    try:
        client = redis_py.Redis.from_url(url)
        assert client.config_get("appendonly")["appendonly"] == "yes"
        client.set("queued-task", "ingest 42")
        time.sleep(1.5)  # appendfsync everysec
        pid = redis_pid(data_dir)
        os.kill(pid, 9)
        while psutil.pid_exists(pid):
            time.sleep(0.05)

        assert services.redis_restart_if_down() is True
        assert redis_py.Redis.from_url(url).get("queued-task") == b"ingest 42"
        assert services.redis_restart_if_down() is False
    finally:
        services.release()


def test_a_frozen_redis_is_replaced_and_cannot_write_over_its_successor(data_dir):
    """A wedged Redis was sent SIGTERM, which a stopped process only takes when it runs
    again; a new one was started on its files meanwhile, and the old one, resumed, saved
    its stale snapshot over the new one's on its way out."""
    import redis as redis_py

    services = EmbeddedServices(data_dir)
    url = services.acquire(postgres=False, redis=True).redis_url
    try:
        redis_py.Redis.from_url(url).set("queued-task", "ingest 42")
        time.sleep(1.5)  # appendfsync everysec
        frozen = psutil.Process(redis_pid(data_dir))
        frozen.suspend()

        assert services.redis_restart_if_down() is True
        assert not frozen.is_running() or frozen.status() == psutil.STATUS_ZOMBIE
        client = redis_py.Redis.from_url(url)
        assert client.get("queued-task") == b"ingest 42"
        assert redis_pid(data_dir) != frozen.pid
    finally:
        services.release()


def restarted_postgres(services: EmbeddedServices) -> bool:
    """postgres_restart_if_down() as make run's ticks call it: a start refused because the
    killed postmaster's background processes still hold its shared memory is tried again."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return services.postgres_restart_if_down()
        except embedded.EmbeddedServiceError:
            assert time.monotonic() < deadline, "PostgreSQL could not be started again"
            time.sleep(0.5)


def test_a_killed_postgres_is_restarted_with_every_committed_row(data_dir):
    services = EmbeddedServices(data_dir)
    url = services.acquire(postgres=True, redis=False).database_url
    try:
        psql(url, "CREATE TABLE kept (value text); INSERT INTO kept VALUES ('committed')")
        assert services.postgres_restart_if_down() is False  # running: nothing to do
        pid = postmaster_pid(data_dir)
        os.kill(pid, 9)  # the OOM killer's way: no shutdown checkpoint
        while psutil.pid_exists(pid):
            time.sleep(0.05)

        assert restarted_postgres(services) is True
        assert postmaster_pid(data_dir) not in (None, pid)
        assert "committed" in psql(url, "SELECT value FROM kept")
        assert services.postgres_restart_if_down() is False
    finally:
        services.release()


def test_a_data_dir_from_before_the_aof_keeps_its_snapshot(data_dir):
    import redis as redis_py

    services = EmbeddedServices(data_dir)
    url = services.acquire(postgres=False, redis=True).redis_url
    client = redis_py.Redis.from_url(url)
    client.set("from-the-snapshot", "kept")
    client.save()
    services.release()
    (data_dir / "redis" / "appendonly.aof").unlink()  # as a data dir written before the AOF

    url = services.acquire(postgres=False, redis=True).redis_url
    try:
        client = redis_py.Redis.from_url(url)
        assert client.get("from-the-snapshot") == b"kept"
        assert client.config_get("appendonly")["appendonly"] == "yes"
    finally:
        services.release()
