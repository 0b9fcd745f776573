"""manage.py search "QUERY" — the hybrid search from the command line, with every score."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge.search import STRATEGIES, SearchOptions
from knowledge.search.prepared import statements_recorded
from knowledge.searching import knowledge_search
from licenses.principals import principal_for_admin, principal_for_license
from licenses.selectors import license_get_for_machine_id
from text.languages import LANGUAGE_NAMES, language_model_load
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = "Search the knowledge base as a license sees it (or global knowledge only)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query")
        parser.add_argument(
            "--license", dest="machine_id", help="search as this license (global + its own)"
        )
        parser.add_argument("--strategy", choices=STRATEGIES)
        parser.add_argument("--top-k", type=int, help="results to show, 1 to 50")
        parser.add_argument("--min-score", type=float)
        parser.add_argument("--json", action="store_true")
        parser.add_argument(
            "--sql",
            action="store_true",
            help="print the statements the search ran, with their parameters",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        principal = principal_for_admin("cli", license=None)
        if options["machine_id"]:
            license = license_get_for_machine_id(options["machine_id"])
            if license is None:
                raise CommandError(f"No license with machine_id {options['machine_id']!r}.")
            principal = principal_for_license(license)
        if options["top_k"] == 0:  # SearchOptions reads 0 as "the default": said here, a slip
            raise CommandError("top_k must be between 1 and 50; got 0.")
        language_model_load()  # the process's start, not the search's latency
        search_options = SearchOptions(
            strategy=options["strategy"] or "",
            top_k=options["top_k"] or 0,
            min_score=options["min_score"],
        )
        try:
            with statements_recorded() as statements:
                response = knowledge_search(
                    principal=principal, query=options["query"], options=search_options
                )
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        if options["sql"]:
            self._print_statements(statements)
        if options["json"]:
            payload = {**asdict(response), "options": asdict(response.options)}
            self.stdout.write(json.dumps(payload, default=str, ensure_ascii=False))
            return
        self._print(response)

    def _print_statements(self, statements: list[tuple[str, dict[str, Any]]]) -> None:
        if not statements:  # the engine runs none while no embedding model is active
            self.stdout.write(
                "-- no statement ran: nothing is searchable yet (no document has been "
                "embedded). Upload one, then ask again."
            )
        for number, (sql, params) in enumerate(statements, 1):
            self.stdout.write(f"-- statement {number} of {len(statements)}")
            self.stdout.write(sql.strip())
            self.stdout.write("-- parameters")
            self.stdout.write(json.dumps(params, default=str, ensure_ascii=False, indent=1))
            self.stdout.write("")

    def _print(self, response) -> None:  # noqa: ANN001
        options = response.options
        threshold = f"the {options.min_score} threshold"
        if options.min_score_across is not None and options.min_score_across != options.min_score:
            # "Portuguese (Brazil)" names the answer's language; a passage's is Portuguese
            languages = " and ".join(
                LANGUAGE_NAMES[code].split(" (")[0] for code in options.languages_across
            )
            threshold += f", {options.min_score_across} for {languages} passages"
        if options.days_asked:
            days = " or ".join(options.days_asked)
            threshold += f", {options.day_margin} lower for passages naming {days}"
            if options.day_spans:
                threshold += ", a range of days holding it or every day"
        self.stdout.write(
            f"{len(response.results)} result(s) in {response.scope} scope, {options.strategy}, "
            f"{response.latency_ms:.0f} ms ({response.cut_by_threshold} of {response.candidates} "
            f"candidates under {threshold})"
        )
        if response.searched_as:
            self.stdout.write(
                f"searched for {response.searched_as!r}: a word no page of the scope holds, "
                "read as the passages found spell it"
            )
        for n, r in enumerate(response.results, 1):
            pages = f" p.{r.page_start}" if r.page_start else ""
            self.stdout.write(
                f"\n{n}. {r.filename}{pages} [{r.scope}] fused {r.fused_score:.3f} "
                f"(vector {r.vector_score} #{r.vector_rank}, best sentence {r.sentence_score}, "
                f"keyword {r.keyword_score} #{r.keyword_rank})"
            )
            self.stdout.write(f"   {r.heading + ' — ' if r.heading else ''}{r.content[:240]}")
