"""Load run against the real product (`make run`'s processes), loopback only, bounded.

200 searches and 50 chats at once, while 64 slow clients hold half-sent requests open
(re-opened as the front door times them out) and /healthz is polled every 200 ms. Reports
statuses, server errors, latencies and the slowest /healthz answer.

    .venv/bin/python -m tests.bench.load [--searches 200] [--chats 50] [--slow 64]

The product runs on its own data dir (var/bench-load), filled on the first run with 60
short documents in a license's scope.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "var" / "bench-load"
TOPICS = ["piscina", "gimnasio", "salón de fiestas", "lavandería", "garaje", "biblioteca"]


def manage(*args: str) -> str:
    env = {**os.environ, "PORTALITY_DATA_DIR": str(DATA_DIR)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return done.stdout


def prepare_data() -> str:
    key_file = DATA_DIR / "bench-license.key"
    if key_file.exists():
        return key_file.read_text()
    DATA_DIR.mkdir(parents=True, exist_ok=True)
    forged = json.loads(
        manage("forge_license", "--user-name", "Carga", "--machine-id", "carga", "--json")
    )
    docs = DATA_DIR / "docs"
    docs.mkdir(exist_ok=True)
    for n in range(60):
        topic = TOPICS[n % len(TOPICS)]
        (docs / f"norma-{n}.md").write_text(
            f"# Norma {n}: {topic}\n\nEl uso de {topic} del bloque {n} abre a las {7 + n % 5} "
            f"horas y cierra a las {20 + n % 3}. Hay que reservar con {1 + n % 7} días de "
            f"antelación y respetar el aforo de {10 + n} personas.\n"
        )
    manage("ingest", *[str(p) for p in sorted(docs.glob("*.md"))], "--license", "carga", "--json")
    key_file.write_text(forged["key"])
    return forged["key"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_product(port: int) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO")}
    env.update(
        PORTALITY_DATA_DIR=str(DATA_DIR),
        PORT=str(port),
        DEMO_PORT=str(free_port()),
        ADMIN_PASSWORD="bench-admin-pass",
        CHAT_RATE_PER_LICENSE_PER_MINUTE="1000000",
        CHAT_RATE_PER_USER_PER_MINUTE="1000000",
        SEARCH_RATE_PER_LICENSE_PER_MINUTE="1000000",
        SEARCH_RATE_PER_USER_PER_MINUTE="1000000",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "portality.runner"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        # Not listening yet, or a 503 while it starts: ask again.
        with (
            contextlib.suppress(OSError),
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r,
        ):
            if r.status == 200:
                return process
        time.sleep(0.5)
    os.killpg(process.pid, signal.SIGTERM)
    raise RuntimeError("the product did not become healthy")


def post(url: str, key: str, body: dict) -> tuple[int, float]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    except OSError:
        status = 0  # no answer at all
    return status, (time.perf_counter() - started) * 1000


class SlowClients:
    """Sockets that send half a request and wait; each is re-opened when the server drops it."""

    def __init__(self, port: int, count: int) -> None:
        self.port, self.count, self.stop = port, count, threading.Event()
        self.opened = 0

    def run(self) -> None:
        sockets: list[socket.socket] = []
        while not self.stop.is_set():
            sockets = [s for s in sockets if self._alive(s)]
            while len(sockets) < self.count:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
                sock.setblocking(False)
                sockets.append(sock)
                self.opened += 1
            time.sleep(0.2)
        for sock in sockets:
            sock.close()

    @staticmethod
    def _alive(sock: socket.socket) -> bool:
        """True while the server still waits for the rest of the request."""
        try:
            sock.recv(1)  # data (its 408) or b"" (closed): the server is done with it
            waiting = False
        except BlockingIOError:
            waiting = True  # nothing to read yet
        except OSError:
            waiting = False  # reset by the server
        if not waiting:
            sock.close()
        return waiting


def poll_health(
    base: str, stop: threading.Event, timings: list[float], statuses: list[int]
) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=10) as response:
                statuses.append(response.status)
        except urllib.error.HTTPError as error:
            statuses.append(error.code)
        except OSError:
            statuses.append(0)
        timings.append((time.perf_counter() - started) * 1000)
        time.sleep(0.2)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--slow", type=int, default=64)
    args = parser.parse_args()

    key = prepare_data()
    port = free_port()
    product = start_product(port)
    base = f"http://127.0.0.1:{port}"
    slow = SlowClients(port, args.slow)
    stop = threading.Event()
    health_ms: list[float] = []
    health_status: list[int] = []
    threads = [
        threading.Thread(target=slow.run, daemon=True),
        threading.Thread(
            target=poll_health, args=(base, stop, health_ms, health_status), daemon=True
        ),
    ]
    try:
        for thread in threads:
            thread.start()
        time.sleep(2)  # the slow clients are all open before the load starts
        rng = random.Random(7)
        jobs = [
            ("search", {"query": f"horario {rng.choice(TOPICS)}"}) for _ in range(args.searches)
        ]
        jobs += [
            ("chat", {"message": f"¿A qué hora abre {rng.choice(TOPICS)}?", "user": f"u{n}"})
            for n in range(args.chats)
        ]
        rng.shuffle(jobs)
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            results = list(
                pool.map(lambda job: (job[0], *post(f"{base}/api/v1/{job[0]}", key, job[1])), jobs)
            )
        elapsed = time.perf_counter() - started
        time.sleep(1)
    finally:
        stop.set()
        slow.stop.set()
        os.killpg(product.pid, signal.SIGTERM)
        product.wait(60)

    report = {"wall_s": round(elapsed, 2), "slow_clients_opened": slow.opened}
    for kind in ("search", "chat"):
        mine = [(status, ms) for k, status, ms in results if k == kind]
        report[kind] = {
            "requests": len(mine),
            "statuses": {
                str(s): sum(1 for st, _ in mine if st == s) for s in sorted({st for st, _ in mine})
            },
            "p50_ms": percentile([ms for _, ms in mine], 0.5),
            "p95_ms": percentile([ms for _, ms in mine], 0.95),
            "max_ms": round(max(ms for _, ms in mine), 1),
        }
    report["healthz"] = {
        "polls": len(health_ms),
        "statuses": {str(s): health_status.count(s) for s in sorted(set(health_status))},
        "p50_ms": percentile(health_ms, 0.5),
        "max_ms": round(max(health_ms), 1),
        "median_of_all": round(statistics.median(health_ms), 1),
    }
    report["server_errors"] = sum(1 for _, status, _ in results if status >= 500 or status == 0)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
