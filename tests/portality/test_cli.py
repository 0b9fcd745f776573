"""The README's command line on a fresh data dir, with nothing exported: no SECRET_KEY,
SECRET_KEY_FILE, DEBUG, DATABASE_URL or REDIS_URL (the embedded defaults)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.process
SCRUBBED = {"SECRET_KEY", "SECRET_KEY_FILE", "DEBUG", "DATABASE_URL", "REDIS_URL"}


def scrubbed_env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED and not k.startswith("DJANGO")}
    env.update(PORTALITY_DATA_DIR=str(data_dir), **extra)
    return env


def manage(data_dir: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = scrubbed_env(data_dir, **extra)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )


@pytest.fixture(scope="module")
def fresh_data_dir(tmp_path_factory):
    # A short path: the embedded Redis socket must fit in AF_UNIX's 108 bytes.
    path = tmp_path_factory.mktemp("cli")
    yield path
    # The commands stop the embedded servers when they leave; nothing to clean but files.


def test_commands_work_with_nothing_exported_and_share_one_generated_key(fresh_data_dir):
    forged = manage(
        fresh_data_dir, "forge_license", "--user-name", "Ana", "--machine-id", "sala-01", "--json"
    )
    assert forged.returncode == 0, forged.stderr
    license = json.loads(forged.stdout)
    assert license["machine_id"] == "sala-01" and license["key"].startswith("pbk_")

    key_file = fresh_data_dir / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_text()

    note = fresh_data_dir / "normas.md"
    note.write_text("# Normas\n\nLa piscina abre a las nueve de la mañana los sábados.")
    ingested = manage(fresh_data_dir, "ingest", str(note), "--license", "sala-01", "--json")
    assert ingested.returncode == 0, ingested.stderr
    outcome = json.loads(ingested.stdout.splitlines()[-1])
    assert outcome["status"] == "ready" and outcome["chunks"] == 1
    assert key_file.read_text() == key  # the second process read the same key


def test_an_explicit_secret_key_wins_and_production_still_needs_one(fresh_data_dir, tmp_path):
    # An explicit key: no file is generated.
    other_dir = tmp_path / "d"
    shown = manage(
        other_dir,
        "shell",
        "-c",
        "from django.conf import settings; print(settings.SECRET_KEY)",
        SECRET_KEY="k" * 50,
        DATABASE_URL="postgresql://u@127.0.0.1:1/db",
        REDIS_URL="redis://127.0.0.1:1/0",
    )
    assert shown.returncode == 0, shown.stderr
    assert (
        shown.stdout.strip().splitlines()[-1] == "k" * 50
        and not (other_dir / "secret_key").exists()
    )

    # External database, DEBUG off, no key: refused, naming the variable.
    refused = manage(
        other_dir,
        "check",
        DATABASE_URL="postgresql://u@127.0.0.1:1/db",
        REDIS_URL="redis://127.0.0.1:1/0",
    )
    assert refused.returncode != 0
    assert "SECRET_KEY is not set" in refused.stderr


def test_a_command_read_through_a_closed_pipe_stops_quietly(fresh_data_dir):
    # `manage.py search … | head -5` ended in a BrokenPipeError traceback.
    reader_gone = subprocess.Popen(
        [sys.executable, "manage.py", "help"],
        cwd=ROOT,
        env=scrubbed_env(fresh_data_dir),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reader_gone.stdout.close()  # like `head` once it has its lines

    _, stderr = reader_gone.communicate(timeout=240)

    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
    assert reader_gone.returncode == 141
