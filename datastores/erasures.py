"""The erasure journal: what was forgotten, and when, outside the database.

A restore puts back a database as it was when its backup was taken, so what was forgotten
after that would come back. Each forgetting (a document, a chunk, a memory) is appended here
once it has committed — ids only, never the text that was forgotten — and ``manage.py
restore`` replays the entries newer than the backup, so a restored deployment forgets them
again (docs/production.md, "Backup and restore").

The journal is a JSON-lines file (``ERASURE_JOURNAL``, by default in the data dir), 0600,
appended under an exclusive lock and flushed to disk before the forgetting returns. Keep it
with the backups, off the data dir's disk, when the data dir itself may be lost. The apps
say how to replay their own kinds (``replayer``): this module stores, it does not know what
a document or a memory is.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError

logger = logging.getLogger(__name__)

Replay = Callable[[str], bool]  # an id → True when something was forgotten again
_REPLAYERS: dict[str, Replay] = {}
_replaying: ContextVar[bool] = ContextVar("erasures_replaying", default=False)


def replayer(kind: str, replay: Replay) -> None:
    """An app's way to forget again an entry of ``kind`` (at its ``ready``)."""
    _REPLAYERS[kind] = replay


def journal_path() -> Path:
    return Path(settings.ERASURE_JOURNAL)


def erasure_record(kind: str, ids: list[str]) -> None:
    """Append that ``ids`` of ``kind`` were forgotten now (call once it has committed)."""
    if not ids or _replaying.get():  # a replay forgets what the journal already holds
        return
    at = datetime.now(UTC).isoformat()
    lines = "".join(json.dumps({"at": at, "kind": kind, "id": str(i)}) + "\n" for i in ids)
    path = journal_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, lines.encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def erasures_since(moment: datetime, path: Path | None = None) -> list[dict[str, str]]:
    """The journal's entries after ``moment``, oldest first (a torn last line is skipped)."""
    path = path or journal_path()
    if not path.exists():
        return []
    entries = []
    for line in path.read_text().splitlines():
        try:
            entry = json.loads(line)
            at = datetime.fromisoformat(entry["at"])
        except (ValueError, KeyError, TypeError):
            logger.warning("erasure journal %s: a line that is not an entry, skipped", path)
            continue
        if at > moment:
            entries.append(entry)
    return entries


def erasures_replay(moment: datetime, path: Path | None = None) -> dict[str, int]:
    """Forget again what the journal says was forgotten after ``moment``; how many of each
    kind were still there."""
    replayed: dict[str, int] = {}
    token = _replaying.set(True)
    try:
        for entry in erasures_since(moment, path):
            _replay_one(entry, replayed)
    finally:
        _replaying.reset(token)
    return replayed


def _replay_one(entry: dict[str, str], replayed: dict[str, int]) -> None:
    replay = _REPLAYERS.get(entry["kind"])
    if replay is None:
        logger.warning("erasure journal: no app replays %r entries", entry["kind"])
        return
    try:
        again = replay(entry["id"])
    except (ValueError, ValidationError):  # an id that is no id: a hand-edited journal
        logger.warning("erasure journal: %r is not a %s id, skipped", entry["id"], entry["kind"])
        return
    if again:
        replayed[entry["kind"]] = replayed.get(entry["kind"], 0) + 1
