"""manage.py vector_sync [--all] [--check] — bring a remote vector backend up to date."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge.search.backends import is_remote, vector_backend
from knowledge.search.nearest import VectorBackendError
from knowledge.vector_sync import outbox_backlog, outbox_drain, outbox_enqueue_all


class Command(BaseCommand):
    help = (
        "Send the remote vector backend (SEARCH_VECTOR_BACKEND=vertex) the vector changes it "
        "has not confirmed. --all first queues every stored vector: moving a deployment's "
        "vectors there, or refilling an index. --check only says how the backend is."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--all", action="store_true", help="queue every stored vector first")
        parser.add_argument("--check", action="store_true", help="report, send nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        if not is_remote():
            raise CommandError(
                "SEARCH_VECTOR_BACKEND is pgvector: the vectors are searched in PostgreSQL, "
                "there is nothing to send. Set SEARCH_VECTOR_BACKEND=vertex and its VERTEX_* "
                "settings first (docs/scale.md)."
            )
        try:
            self.stdout.write(vector_backend().health())
        except VectorBackendError as exc:
            raise CommandError(f"The vector backend cannot be reached: {exc}") from exc
        if options["check"]:
            self._backlog()
            return
        if options["all"]:
            self.stdout.write(f"Queued {outbox_enqueue_all()} vectors.")
        while True:
            report = outbox_drain()
            self.stdout.write(f"Sent {report.upserted} vectors, removed {report.removed}.")
            if report.error or report.busy or not (report.upserted or report.removed):
                break
        self._backlog()
        if report.error:
            raise CommandError(f"The backend refused some changes; they wait: {report.error}")
        if report.busy:
            self.stdout.write("Another drain (a worker) is sending changes right now.")

    def _backlog(self) -> None:
        waiting, oldest = outbox_backlog()
        self.stdout.write(
            f"Waiting: {waiting} changes, the oldest {oldest:.0f} s old."
            if waiting
            else "Nothing waiting: the backend holds every stored vector."
        )
