"""manage.py bench_ingest [-k EXPR] [--json] — ingestion throughput against the raw embedder,
searchable-after-upload latency through a real worker, the worker's peak memory on a long
PDF, and embedder threads.

The measurements are pytest tests (tests/bench/test_ingest_bench.py: they need the test
session's worker and embedded servers under var/test); this command runs them and prints
the figures each wrote to var/bench/<name>.json."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

BENCH = Path(__file__).resolve().parents[2] / "test_ingest_bench.py"
FIGURES = ("ingest_throughput", "ingest_latency", "ingest_memory", "embedder_threads")


class Command(BaseCommand):
    help = "Ingestion throughput, searchable-after-upload latency and worker memory."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("-k", dest="select", default="", help="pytest -k expression")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        out = Path(settings.BASE_DIR) / "var" / "bench"
        before = {p: p.stat().st_mtime for p in out.glob("*.json")} if out.exists() else {}
        command = [sys.executable, "-m", "pytest", str(BENCH), "-q", "-s"]
        if options["select"]:
            command += ["-k", options["select"]]
        # The test session's settings (its own embedded servers), not this command's.
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
        # pytest's own output goes to stderr: stdout carries the report alone.
        done = subprocess.run(
            command, cwd=settings.BASE_DIR, env=env, stdout=sys.stderr, check=False
        )
        if done.returncode != 0:
            raise CommandError(f"the ingestion benchmark failed (pytest exit {done.returncode})")
        report = {
            p.stem: json.loads(p.read_text())
            for p in sorted(out.glob("*.json"))
            if p.stem in FIGURES and before.get(p) != p.stat().st_mtime
        }
        self.stdout.write(json.dumps(report, indent=None if options["json"] else 2))
