"""Noisy neighbour (finding F9 of the third outside attack run), against the real product.

One license ("vecina", the victim) searches from 127.0.0.1 with two requests open at once,
first alone (**quiet**), then while another license's client (127.0.0.2, "carga") keeps
--flood searches open at once with valid credentials and a quota it never reaches
(**attacked**). Reports the victim's p50/p95 in each phase and the attacked/quiet p95 ratio
(target ≤ 3), and what the flood got through.

    .venv/bin/python -m tests.bench.noisy_neighbour [--searches 150] [--flood 32]

Uses tests/bench/load.py's product (var/bench-load) and its loopback-only helpers.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from tests.bench.load import (
    ATTACKER,
    DATA_DIR,
    TOPICS,
    free_port,
    manage,
    percentile,
    prepare_data,
    start_product,
)


def victim_key() -> str:
    key_file = DATA_DIR / "bench-victim.key"
    if key_file.exists():
        return key_file.read_text()
    forged = json.loads(
        manage("forge_license", "--user-name", "Vecina", "--machine-id", "vecina", "--json")
    )
    note = DATA_DIR / "docs" / "vecina.md"
    note.write_text("# Portería\n\nLa portería abre a las siete y cierra a las veintidós.\n")
    manage("ingest", str(note), "--license", "vecina", "--json")
    key_file.write_text(forged["key"])
    return forged["key"]


def search(port: int, key: str, query: str, source: str = "127.0.0.1") -> tuple[int, float]:
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=120, source_address=(source, 0)
    )
    body = json.dumps({"query": query})
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    started = time.perf_counter()
    try:
        connection.request("POST", "/api/v1/search", body, headers)
        response = connection.getresponse()
        response.read()
        status = response.status
    except OSError:
        status = 0
    finally:
        connection.close()
    return status, (time.perf_counter() - started) * 1000


class Flood:
    """--flood threads from the attacker's address, each searching again as soon as answered."""

    def __init__(self, port: int, key: str, threads: int) -> None:
        self.port, self.key, self.threads = port, key, threads
        self.stop = threading.Event()
        self.statuses: list[int] = []

    def run(self) -> None:
        with ThreadPoolExecutor(max_workers=self.threads) as pool:
            for n in range(self.threads):
                pool.submit(self._one, n)

    def _one(self, n: int) -> None:
        rng = random.Random(n)
        while not self.stop.is_set():
            status, _ = search(self.port, self.key, f"horario {rng.choice(TOPICS)}", ATTACKER)
            self.statuses.append(status)


def victim_phase(port: int, key: str, searches: int) -> dict:
    queries = [f"¿A qué hora abre la portería? {n % 7}" for n in range(searches)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda q: search(port, key, q), queries))
    times = [ms for _, ms in results]
    return {
        "requests": len(results),
        "statuses": {str(s): [st for st, _ in results].count(s) for s in {s for s, _ in results}},
        "p50_ms": percentile(times, 0.5),
        "p95_ms": percentile(times, 0.95),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--searches", type=int, default=150)
    parser.add_argument("--flood", type=int, default=32)
    args = parser.parse_args()

    attacker_key = prepare_data()
    victim = victim_key()
    port = free_port()
    product = start_product(port)
    report: dict = {"flood": args.flood}
    try:
        victim_phase(port, victim, 30)  # warm-up
        report["quiet"] = victim_phase(port, victim, args.searches)
        flood = Flood(port, attacker_key, args.flood)
        thread = threading.Thread(target=flood.run, daemon=True)
        thread.start()
        time.sleep(3)  # the flood is under way before the victim starts
        report["attacked"] = victim_phase(port, victim, args.searches)
        flood.stop.set()
        thread.join(60)
        report["flood_statuses"] = {
            str(s): flood.statuses.count(s) for s in sorted(set(flood.statuses))
        }
        report["p95_ratio"] = round(report["attacked"]["p95_ms"] / report["quiet"]["p95_ms"], 2)
    finally:
        os.killpg(product.pid, signal.SIGTERM)
        product.wait(60)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
