"""``make run``: the whole product on one machine, on embedded defaults.

Starts (or reuses) the embedded PostgreSQL and Redis through the settings, migrates,
creates the first admin, then has supervisord run a Celery worker, Celery beat (a process of
its own: exactly one, whatever happens to the worker) and the web server, and keeps the
embedded servers up itself (supervisord cannot: they are shared by every process of the
data dir). SIGINT or SIGTERM stops everything; leaving this process releases the embedded
servers, which stop when no other process of the same data dir still uses them.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import secrets
import shlex
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TextIO

import django
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from observability.metrics import metrics_reset
from portality.env import data_dir, env_bool, env_int, env_secret, env_str
from runtime.embedded import EmbeddedServices, detach, start_unless_external
from runtime.processes import die_with_parent


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portality.settings")
    port = env_int("PORT", 8000, minimum=1)
    # Held until this process exits; nothing is started when another run has it.
    run_lock = _one_run_per_data_dir(data_dir())
    if run_lock is None or not _port_is_free(env_str("WEB_BIND", "127.0.0.1"), port):
        return 1
    start_unless_external()
    django.setup()

    call_command("migrate", interactive=False, verbosity=1)
    # DEBUG off serves hashed, compressed files (WhiteNoise's manifest); collect them first.
    call_command("collectstatic", interactive=False, verbosity=0)
    first_admin = _ensure_first_admin()
    metrics_reset()  # the samples of an earlier run's processes are not this run's
    demo_url = _ensure_widget_demo(settings.DATA_DIR, port)
    # Children inherit this environment: on embedded defaults they attach to the same servers
    # (registering as their users) and read the same generated key. They are not handed the
    # servers' URLs as DATABASE_URL / REDIS_URL, which would make them take the database for
    # an external one (and ask for SECRET_KEY).
    supervisor = SupervisordRun(
        settings.DATA_DIR / "run" / "supervisor",
        dict(os.environ),
        {
            "worker": _worker_command(),
            "beat": _beat_command(settings.DATA_DIR),
            "web": _web_command(port),
        },
    )
    url = f"http://127.0.0.1:{port}/"
    print(f"\nPortality Brain is starting at {url}  (Ctrl-C stops everything)\n", flush=True)
    _announce_when_healthy(url, supervisor)
    if first_admin:  # after the start's log lines, where a person looks, with where to use it
        print(f"{first_admin}\n  Sign in at {url}accounts/login/\n", flush=True)
    print(f"Chat widget demo, embedded from another origin: {demo_url}", flush=True)
    status = supervisor.wait(on_tick=_keep_embedded_servers(settings))
    print(_stopped_line(settings.DATA_DIR), flush=True)
    return status


def _one_run_per_data_dir(data: Path) -> TextIO | None:
    """The data dir's run lock (an flock, released by the kernel however this process
    ends), or None after saying why not: a second ``make run`` on the same data would start
    a second beat (every periodic task twice) and workers racing on the same queue."""
    data.mkdir(parents=True, exist_ok=True)
    lock = open(data / "run.lock", "a+")  # noqa: SIM115 - held for the whole run
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip() or "?"
        lock.close()
        print(
            f"Portality Brain is already running on this data dir ({data}, process {holder}).\n"
            "Use that one, or stop it (Ctrl-C in its terminal) before starting it again; a "
            "second installation needs its own PORTALITY_DATA_DIR and PORT.",
            file=sys.stderr,
            flush=True,
        )
        return None
    lock.seek(0)
    lock.truncate()
    lock.write(f"{os.getpid()}\n")
    lock.flush()
    return lock


def _port_is_free(bind: str, port: int) -> bool:
    """Whether nothing listens on the port. granian shares a port on Linux (SO_REUSEPORT),
    so a second product started on a taken port would silently split the requests with the
    first; a plain socket cannot bind where anyone listens."""
    with socket.socket(socket.AF_INET6 if ":" in bind else socket.AF_INET) as probe:
        # Past connections of a stopped run (TIME_WAIT) do not count; a listener does.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((bind, port))
        except OSError as exc:
            print(
                f"Port {port} on {bind} is already in use ({exc.strerror}): another program, or "
                f"another Portality Brain, listens there. Stop it, or choose another port: "
                f"PORT={port + 1} make run",
                file=sys.stderr,
                flush=True,
            )
            return False
    return True


def _keep_embedded_servers(settings: object) -> Callable[[], None] | None:
    """A check, every few seconds, that restarts the embedded PostgreSQL or Redis if it
    died (PostgreSQL's WAL and Redis' append-only file bring back what they held). External
    servers are their operator's to run."""
    postgres, redis = not env_secret("DATABASE_URL"), not env_secret("REDIS_URL")
    if not (postgres or redis):
        return None
    services = EmbeddedServices(settings.DATA_DIR)  # type: ignore[attr-defined]

    def check() -> None:
        # A failed start (a killed postmaster's backends still holding its shared memory, a
        # server slow to accept) is said and tried again at the next tick: whatever it is,
        # it must not stop the supervisor, which would take the whole product down with it.
        try:
            if postgres and services.postgres_restart_if_down():
                print("The embedded PostgreSQL had stopped; it was started again.", file=sys.stderr)
            if redis and services.redis_restart_if_down():
                print("The embedded Redis had stopped; it was started again.", file=sys.stderr)
        except Exception as exc:  # noqa: BLE001 - see above
            print(
                f"Restarting an embedded server failed: {exc} Trying again in a few seconds.",
                file=sys.stderr,
                flush=True,
            )

    return check


def _stopped_line(data_dir: Path) -> str:
    servers_stopped = detach()
    if servers_stopped is False:
        servers = "PostgreSQL and Redis keep running for other processes of this data dir"
    else:
        servers = "embedded PostgreSQL and Redis stopped"
    return (
        f"Portality Brain stopped: worker, beat and web server; {servers}. Data kept in {data_dir}."
    )


def _ensure_first_admin() -> str:
    """Create the first admin on a fresh data dir; what to tell the person (empty if one
    existed already)."""

    users = get_user_model()
    if users.objects.filter(is_superuser=True).exists():
        return ""
    username = env_str("ADMIN_USERNAME") or "admin"
    password = env_secret("ADMIN_PASSWORD")
    generated = not password
    password = password or secrets.token_urlsafe(12)
    users.objects.create_superuser(username=username, email="", password=password)
    if generated:
        return (
            f"  First admin created: username {username!r}, password {password!r}\n"
            "  (shown once: change it under Password once signed in, or set\n"
            "  ADMIN_USERNAME/ADMIN_PASSWORD before the first start to choose them)"
        )
    return f"  First admin {username!r} created from ADMIN_USERNAME/ADMIN_PASSWORD."


def _celery(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "portality", *arguments, "--loglevel=INFO"]


def _worker_command() -> list[str]:
    return _celery("worker", "--concurrency=1", "--hostname=worker@%h")


def _beat_command(data_dir: Path) -> list[str]:
    """Beat on its own, not inside the worker (``--beat``): a worker killed outright left
    its beat child running, and the replacement worker started a second one."""
    return _celery("beat", f"--schedule={data_dir / 'celerybeat-schedule'}")


def _ensure_widget_demo(data_dir: Path, port: int) -> str:
    """The widget demo page (chat's ``widget-demo`` view) and its license. The page is served
    from http://localhost:PORT while the widget talks to http://127.0.0.1:PORT: two origins
    to the browser, so the demo embeds the widget across origins as a customer's site does,
    from the product's own server."""

    origin = f"http://localhost:{port}"
    os.environ["WIDGET_DEMO_ORIGIN"] = origin  # the web server's settings read it
    os.environ["WIDGET_DEMO_API_ORIGIN"] = f"http://127.0.0.1:{port}"
    key_file = data_dir / "demo-license.key"
    call_command("demo_license", f"--origin={origin}", f"--key-file={key_file}", verbosity=0)
    if env_bool("DEMO_SAMPLE_HANDBOOK", True):
        demo_sample_add(data_dir)
    return f"{origin}/chat/widget-demo/"


SAMPLE_HANDBOOK = Path(__file__).resolve().parent.parent / "docs" / "sample" / "sample-handbook.md"
DEMO_MACHINE_ID = "demo"  # licenses.models.DEMO_MACHINE_ID (the runner imports no app)


def demo_sample_add(data_dir: Path) -> bool:
    """The first ``make run`` gives the demo license a small sample handbook (es, pt, en), so
    the demo page's first question has an answer. Once: forgotten in the console, it does
    not come back (the marker file says it was added). True when added now. Through the
    ingest command, as the runner knows no app (it sits below them)."""

    marker = data_dir / "demo-sample-added"
    if marker.exists():
        return False
    out = io.StringIO()
    # Queued for the worker (started next): the runner does not load the embedder itself.
    call_command(
        "ingest", str(SAMPLE_HANDBOOK), "--license", DEMO_MACHINE_ID, "--async", stdout=out
    )
    marker.touch()
    return True


def _web_command(port: int) -> list[str]:
    # The address is WEB_BIND's (127.0.0.1 unless set), read by runtime.server.
    return [sys.executable, "-m", "runtime.server", f"--port={port}"]


class SupervisordRun:
    """supervisord, started and stopped by make run. It supervises nothing itself: the
    restarts, their backoff and the stop escalation are supervisord's. What it adds is what
    make run owns: Ctrl-C (or a closed terminal) turned into an orderly stop, and a tick
    for the embedded servers' keeper. Under supervisord, a worker, beat or web server that
    exits is started again (one that fails within its first seconds after a pause one
    second longer each time, given up on after ten such failures: a crash loop is a
    configuration to fix); their output is make run's. Ctrl-C stops them all: supervisord
    asks each to stop, and kills what has not within 30 s."""

    def __init__(self, run_dir: Path, env: dict[str, str], programs: dict[str, list[str]]) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        run_dir.chmod(0o700)
        config = run_dir / "supervisord.conf"
        config.write_text(supervisord_config(run_dir, programs))
        _append_only_output()
        self.stopping = False
        # Ctrl-C, a stop, or its terminal closed (SIGHUP, which would otherwise end this
        # process at once and leave the embedded servers running): everything stops in order.
        for stop in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(stop, self._on_signal)
        # A session of its own: Ctrl-C reaches this process, which stops supervisord in
        # order, not every process at once.
        self.process = subprocess.Popen(
            [sys.executable, "-m", "supervisor.supervisord", "--configuration", str(config)],
            env=env,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def wait(self, on_tick: Callable[[], None] | None) -> int:
        """Until Ctrl-C (0), or supervisord ends on its own (1); ``on_tick`` every 2 s."""
        last_tick = 0.0
        while not self.stopping:
            if self.process.poll() is not None:
                print(f"supervisord exited (code {self.process.returncode}).", file=sys.stderr)
                return 1
            if on_tick and time.monotonic() - last_tick > 2:
                last_tick = time.monotonic()
                on_tick()
            time.sleep(0.2)
        self.stop()
        return 0

    def stop(self) -> None:
        print("Stopping worker, beat and web server...", flush=True)
        self.process.terminate()
        try:
            self.process.wait(60)  # its own 30 s per process, and then some
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _append_only_output() -> None:
    """supervisord writes its processes' lines through a file of its own opened on this
    process's output (/dev/fd/1), in append mode. Output sent to a file (``make run >
    run.log``) must then be appended to here as well: writing at this process's own
    offset, its lines overwrote theirs and left holes of NUL bytes."""
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            if stat.S_ISREG(os.fstat(fd).st_mode):
                fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)


def supervisord_config(run_dir: Path, programs: dict[str, list[str]]) -> str:
    """supervisord's configuration: in the foreground, its own lines (a process exited,
    started again, given up on) on make run's output, each program's output there too; as
    the user running make run (``user`` says so, or as root it warns that it is one), and
    with no control socket: make run is its only controller."""
    run = str(run_dir).replace("%", "%%")  # supervisord expands %(name)s in its values
    sections = [
        f"""[supervisord]
nodaemon = true
logfile = /dev/null
logfile_maxbytes = 0
pidfile = {run}/supervisord.pid
childlogdir = {run}
user = {os.getuid()}
"""
    ]
    for name, command in programs.items():
        # Through runtime.processes: a supervisord killed outright takes its processes along.
        line = shlex.join([sys.executable, "-m", "runtime.processes", *command])
        sections.append(
            f"""[program:{name}]
command = {line.replace("%", "%%")}
autorestart = true
startsecs = 5
startretries = 10
stopasgroup = true
killasgroup = true
stopwaitsecs = 30
redirect_stderr = true
stdout_logfile = /dev/fd/1
stdout_logfile_maxbytes = 0
"""
        )
    return "\n".join(sections)


def _announce_when_healthy(url: str, supervisor: SupervisordRun) -> None:
    """Print the URL once everything is up. Checks in this process until the worker answers,
    so a normal start does not fill the web server's log with 503s from /healthz."""
    # After django.setup(): the health checks read the models.
    from observability.health import is_healthy, system_health

    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not supervisor.stopping:
        if is_healthy(system_health()) and _web_answers(url + "healthz"):
            print(f"\nReady: {url}  (health: {url}healthz)\n", flush=True)
            return
        time.sleep(0.5)
    if not supervisor.stopping:
        print(f"Not healthy after 90 s: see {url}healthz", file=sys.stderr, flush=True)


def _web_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=3) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False  # not listening yet: poll again


if __name__ == "__main__":
    sys.exit(main())
