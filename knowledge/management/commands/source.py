"""manage.py source add|check|list|forget — web sources from the shell.

source add URL [--license M] [--mode page|sitemap|site] [--every HOURS] --json
source check (ID | --all) --json      fetch now; changed pages are ingested here
source list --json
source forget ID                      the source and every document its pages became
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge import sources
from knowledge.management.scope import license_or_global
from knowledge.models import Source, SourceMode
from web.exceptions import ApplicationError

CHECK_WAIT_SECONDS = 300


class Command(BaseCommand):
    help = "Add, check, list and forget web sources (pages kept as knowledge, re-checked)."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser("add", help="add a page, a sitemap or a site")
        add.add_argument("url")
        add.add_argument("--license", dest="machine_id", help="machine_id; global when omitted")
        add.add_argument("--mode", default=SourceMode.PAGE, choices=SourceMode.values)
        add.add_argument("--every", type=int, default=24, help="hours between checks")
        add.add_argument("--max-pages", type=int, default=50)
        add.add_argument("--max-depth", type=int, default=2, help="links followed (site mode)")
        add.add_argument("--json", action="store_true")
        check = actions.add_parser("check", help="check now and ingest what changed")
        check.add_argument("source_id", nargs="?")
        check.add_argument("--all", action="store_true")
        check.add_argument("--json", action="store_true")
        listing = actions.add_parser("list", help="every source with its last check")
        listing.add_argument("--json", action="store_true")
        forget = actions.add_parser("forget", help="forget a source and its documents")
        forget.add_argument("source_id")
        forget.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            getattr(self, f"_{options['action']}")(options)
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc

    def _add(self, options: dict[str, Any]) -> None:
        source = sources.source_add(
            url=options["url"],
            license=license_or_global(options["machine_id"]),
            mode=options["mode"],
            every_hours=options["every"],
            max_pages=options["max_pages"],
            max_depth=options["max_depth"],
        )
        self._out(
            options,
            source_row(source),
            f"Added {source.url} as source {source.pk}: `source check {source.pk}` fetches it "
            "now; otherwise the scheduler does within five minutes.",
        )

    def _check(self, options: dict[str, Any]) -> None:
        if options["all"]:
            ids = list(Source.objects.values_list("pk", flat=True))
        elif options["source_id"]:
            ids = [self._source(options["source_id"]).pk]
        else:
            raise CommandError("Give a source id, or --all.")
        failed = False
        for source_id in ids:
            result: dict[str, Any]
            try:
                # Beside a running product, the scheduler may be checking it already: wait.
                result = sources.source_check(
                    source_id=source_id, enqueue=False, wait_seconds=CHECK_WAIT_SECONDS
                ).as_dict()
            except ApplicationError as exc:
                result, failed = {"error": exc.message}, True
            row = {"id": str(source_id), **result}
            self._out(options, row, f"{source_id}: {result}")
        if failed:
            raise CommandError("At least one source could not be checked (its error is above).")

    def _list(self, options: dict[str, Any]) -> None:
        rows = [source_row(s) for s in Source.objects.select_related("license")]
        if options["json"]:
            self.stdout.write(json.dumps(rows, ensure_ascii=False))
            return
        for row in rows:
            self.stdout.write(
                f"{row['id']}  {row['scope']:<12} {row['mode']:<8} {row['pages']:>4} pages  "
                f"last {row['last_checked_at'] or 'never'}  {row['url']}"
            )

    def _forget(self, options: dict[str, Any]) -> None:
        source = self._source(options["source_id"])
        forgotten = sources.source_forget(source=source)
        row = {"id": options["source_id"], "documents_forgotten": forgotten}
        self._out(options, row, f"Forgot {source.url} and {forgotten} document(s).")

    def _out(self, options: dict[str, Any], row: dict[str, Any], text: str) -> None:
        self.stdout.write(json.dumps(row, ensure_ascii=False) if options["json"] else text)

    def _source(self, source_id: str) -> Source:
        try:
            return Source.objects.get(pk=source_id)
        except (Source.DoesNotExist, ValueError, ValidationError) as exc:
            raise CommandError(
                f"No source with id {source_id!r} (`source list` shows their ids)."
            ) from exc


def source_row(source: Source) -> dict[str, Any]:
    return {
        "id": str(source.pk),
        "url": source.url,
        "scope": source.license.machine_id if source.license else "global",
        "mode": source.mode,
        "every_hours": source.every_hours,
        "pages": source.pages.count(),
        "last_checked_at": source.last_checked_at.isoformat() if source.last_checked_at else None,
        "next_check_at": source.next_check_at.isoformat() if source.next_check_at else None,
        "last_result": source.last_result,
        "error": source.error,
    }
