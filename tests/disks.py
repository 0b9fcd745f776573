"""A real file system with no room: a 64 KB tmpfs, mounted for one test (root may mount; the
sessions and CI run as root)."""

from __future__ import annotations

import contextlib
import gc
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_file_system(place: Path) -> Iterator[Path]:
    place.mkdir(parents=True, exist_ok=True)
    mount = ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(place)]
    if subprocess.run(mount, capture_output=True).returncode:
        pytest.skip("mounting a small file system needs root, which CI and sessions have")
    try:
        yield place
    finally:
        gc.collect()  # a failed request's temporary file is closed (and deleted) when collected
        subprocess.run(["umount", str(place)], check=True)
