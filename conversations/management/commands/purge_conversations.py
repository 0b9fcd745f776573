"""python manage.py purge_conversations [--older-than DAYS]"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from conversations.services import conversations_purge


class Command(BaseCommand):
    help = (
        "Remove stored conversations past their retention now (each license's own, else "
        "CONVERSATION_RETENTION_DAYS), keeping only their daily counts. What beat does daily."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than",
            type=int,
            metavar="DAYS",
            help="Remove every answer older than DAYS days, whatever the retention says.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["older_than"]
        if days is not None and days < 0:
            raise CommandError("--older-than takes a number of days, 0 or more.")
        purged = conversations_purge(older_than_days=days)
        self.stdout.write(
            f"Removed {purged.exchanges} answers, {purged.conversations} conversations "
            f"and {purged.gaps} open gaps left without questions; their counts are kept."
        )
