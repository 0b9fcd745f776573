"""Moving the test database between migrations, for tests of what a migration does to
data an earlier release left."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def latest() -> list[tuple[str, str]]:
    """Every app's latest migration: going back in one app also unapplies the apps that
    depend on it (conversations on knowledge), and they must come back too."""
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes()
