"""Load run against the real product (`make run`'s processes), loopback only, bounded.

Two phases on one running product, side by side: **quiet** (searches and chats from one
client, 127.0.0.1, with at most --concurrency open at once) and **attacked** (the same load
while another address, 127.0.0.2, holds --half-open half-sent requests, re-opened as the
server closes them, and keeps --uploads anonymous 49 MB uploads going, each sent again
once refused). /healthz is polled every 200 ms throughout. Reports each phase's statuses and
latencies, the attacked/quiet p95 ratio, server errors, and how much the product's processes
grew in memory (resident set, the runner and every child) while attacked.

    .venv/bin/python -m tests.bench.load [--searches 200] [--chats 50] [--half-open 1000]

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
# BENCH_DATA_DIR: another data dir (the test that runs this benchmark on a tiny size).
DATA_DIR = Path(os.environ.get("BENCH_DATA_DIR") or ROOT / "var" / "bench-load")
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
        ADMIN_PASSWORD="bench-admin-pass",
        CHAT_RATE_PER_LICENSE_PER_MINUTE="1000000",
        CHAT_RATE_PER_USER_PER_MINUTE="1000000",
        SEARCH_RATE_PER_LICENSE_PER_MINUTE="1000000",
        SEARCH_RATE_PER_USER_PER_MINUTE="1000000",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "runtime.runner"],
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


ATTACKER = "127.0.0.2"  # another loopback address: another client to the server


class HalfOpenSockets:
    """Sockets that send half a request and wait; each is re-opened when the server drops it."""

    def __init__(self, port: int, count: int) -> None:
        self.port, self.count, self.stop = port, count, threading.Event()
        self.opened = 0

    def run(self) -> None:
        sockets: list[socket.socket] = []
        while not self.stop.is_set():
            sockets = [s for s in sockets if self._alive(s)]
            while len(sockets) < self.count and not self.stop.is_set():
                sock = socket.create_connection(
                    ("127.0.0.1", self.port), timeout=5, source_address=(ATTACKER, 0)
                )
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
            sock.recv(1)  # data or b"" (closed): the server is done with it
            waiting = False
        except BlockingIOError:
            waiting = True  # nothing to read yet
        except OSError:
            waiting = False  # reset by the server
        if not waiting:
            sock.close()
        return waiting


class AnonymousUploads:
    """``count`` anonymous clients each sending a 49 MB upload as fast as the server takes
    it, again as soon as it is answered or dropped."""

    SIZE = 49 * 1024 * 1024

    def __init__(self, port: int, count: int) -> None:
        self.port, self.count, self.stop = port, count, threading.Event()
        self.sent = 0
        self.answers: dict[str, int] = {}
        self.lock = threading.Lock()

    def run(self) -> None:
        workers = [threading.Thread(target=self._one, daemon=True) for _ in range(self.count)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()

    def _one(self) -> None:
        piece = b"x" * 65536
        head = (
            b"POST /knowledge/upload HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; "
            b"boundary=b\r\nContent-Length: %d\r\n\r\n" % self.SIZE
        )
        while not self.stop.is_set():
            answer = b""
            try:
                with socket.create_connection(
                    ("127.0.0.1", self.port), timeout=10, source_address=(ATTACKER, 0)
                ) as sock:
                    sock.sendall(head)
                    for _ in range(self.SIZE // len(piece)):
                        if self.stop.is_set():
                            break
                        sock.sendall(piece)
                    answer = sock.recv(32)
            except OSError:
                pass  # refused and closed mid-body: the point
            status = answer.split(b" ")[1].decode() if answer.count(b" ") else "closed"
            with self.lock:
                self.sent += 1
                self.answers[status] = self.answers.get(status, 0) + 1
            time.sleep(0.05)


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


def product_memory_mb(process: subprocess.Popen[bytes]) -> float:
    import psutil

    root = psutil.Process(process.pid)
    total = 0
    for member in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.Error):
            total += member.memory_info().rss
    return total / 1048576


class MemoryWatch:
    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process, self.stop, self.peak = process, threading.Event(), 0.0

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak = max(self.peak, product_memory_mb(self.process))
            time.sleep(0.25)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


def load(base: str, key: str, args: argparse.Namespace, seed: int) -> dict:
    rng = random.Random(seed)
    jobs = [("search", {"query": f"horario {rng.choice(TOPICS)}"}) for _ in range(args.searches)]
    jobs += [
        ("chat", {"message": f"¿A qué hora abre {rng.choice(TOPICS)}?", "user": f"u{n}"})
        for n in range(args.chats)
    ]
    rng.shuffle(jobs)
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        results = list(
            pool.map(lambda job: (job[0], *post(f"{base}/api/v1/{job[0]}", key, job[1])), jobs)
        )
    report: dict = {"wall_s": round(time.perf_counter() - started, 2)}
    for kind in ("search", "chat"):
        mine = [(status, ms) for k, status, ms in results if k == kind]
        report[kind] = {
            "requests": len(mine),
            "statuses": {
                str(s): [st for st, _ in mine].count(s) for s in sorted({st for st, _ in mine})
            },
            "p50_ms": percentile([ms for _, ms in mine], 0.5),
            "p95_ms": percentile([ms for _, ms in mine], 0.95),
        }
    every = [ms for _, _, ms in results]
    report["p95_ms"] = percentile(every, 0.95)
    report["server_errors"] = sum(1 for _, status, _ in results if status >= 500 or status == 0)
    return report


def health_report(timings: list[float], statuses: list[int]) -> dict:
    return {
        "polls": len(timings),
        "statuses": {str(s): statuses.count(s) for s in sorted(set(statuses))},
        "median_ms": round(statistics.median(timings), 1),
        "max_ms": round(max(timings), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--searches", type=int, default=200)
    parser.add_argument("--chats", type=int, default=50)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--half-open", type=int, default=1000)
    parser.add_argument("--uploads", type=int, default=10)
    args = parser.parse_args()

    key = prepare_data()
    port = free_port()
    product = start_product(port)
    base = f"http://127.0.0.1:{port}"
    report: dict = {}
    try:
        load(base, key, args, seed=1)  # warm-up: models, pools and caches loaded
        for phase in ("quiet", "attacked"):
            stop = threading.Event()
            health_ms: list[float] = []
            health_status: list[int] = []
            poller = threading.Thread(
                target=poll_health, args=(base, stop, health_ms, health_status), daemon=True
            )
            poller.start()
            half_open = HalfOpenSockets(port, args.half_open)
            uploads = AnonymousUploads(port, args.uploads)
            watch = MemoryWatch(product)
            before_mb = product_memory_mb(product)
            attacks = [half_open, uploads] if phase == "attacked" else []
            threads = [threading.Thread(target=a.run, daemon=True) for a in [*attacks, watch]]
            for thread in threads:
                thread.start()
            if attacks:
                time.sleep(3)  # the attack is under way before the load starts
            report[phase] = load(base, key, args, seed=7)
            for part in [*attacks, watch]:
                part.stop.set()
            stop.set()
            for thread in [*threads, poller]:
                thread.join(30)
            report[phase]["healthz"] = health_report(health_ms, health_status)
            report[phase]["memory_growth_mb"] = round(watch.peak - before_mb, 1)
            if attacks:
                report[phase]["half_open_sockets_opened"] = half_open.opened
                report[phase]["uploads_sent"] = uploads.sent
                report[phase]["upload_answers"] = uploads.answers
    finally:
        os.killpg(product.pid, signal.SIGTERM)
        product.wait(60)
    report["p95_ratio_attacked_to_quiet"] = round(
        report["attacked"]["p95_ms"] / report["quiet"]["p95_ms"], 2
    )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
