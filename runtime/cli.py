"""What ``manage.py`` does before a command, so the README's command line works on a fresh
data dir with nothing exported: the embedded database is migrated on first use."""

from __future__ import annotations

import fcntl
import sys

import django
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# Commands that manage migrations themselves, or need no database.
_NO_AUTO_MIGRATE = {
    "check",
    "collectstatic",
    "compilemessages",
    "help",
    "makemessages",
    "makemigrations",
    "migrate",
    "showmigrations",
    "sqlmigrate",
    "squashmigrations",
    "test",
    "version",
}


def prepare(argv: list[str]) -> None:
    """Migrate the embedded database when it is behind (first use, or after an upgrade).

    Only on embedded defaults: an external database is migrated by its operator (compose's
    web service does it at start), never as a side effect of another command."""

    command = argv[1] if len(argv) > 1 else "help"
    if command.startswith("-") or command in _NO_AUTO_MIGRATE:
        return
    django.setup()
    # After django.setup(): the audit trail's models need the app registry.
    from accounts.audit import command_actor

    command_actor(command)
    if settings.EXTERNAL_DATABASE or "--help" in argv or "-h" in argv:
        return
    # One process migrates; another starting at the same moment waits, then finds nothing to do.
    lock_path = settings.DATA_DIR / "run" / "migrate.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _unapplied_migrations():
            print("Preparing the embedded database (migrations)...", file=sys.stderr, flush=True)

            call_command("migrate", interactive=False, verbosity=0)


def _unapplied_migrations() -> bool:
    executor = MigrationExecutor(connection)
    return bool(executor.migration_plan(executor.loader.graph.leaf_nodes()))
