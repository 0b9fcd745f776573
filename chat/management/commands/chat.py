"""manage.py chat "QUESTION" --license MACHINE_ID — ask the assistant as a license would."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from chat.services import chat_prepare, chat_stream
from licenses.principals import principal_for_license
from licenses.selectors import license_get_for_machine_id
from text.languages import language_model_load
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = "Ask the assistant a question in a license's scope (the answer streams to stdout)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question")
        parser.add_argument("--license", dest="machine_id", required=True)
        parser.add_argument("--session", dest="session_id")
        parser.add_argument(
            "--user", default="default", help="end-user reference within the license"
        )
        parser.add_argument("--json", action="store_true", help="print the API's answer shape")

    def handle(self, *args: Any, **options: Any) -> None:
        license = license_get_for_machine_id(options["machine_id"])
        if license is None:
            raise CommandError(f"No license with machine_id {options['machine_id']!r}.")
        principal = principal_for_license(license)
        language_model_load()  # the process's start, not the search's latency
        try:
            turn = chat_prepare(
                principal=principal,
                question=options["question"],
                session_id=options["session_id"],
                user_ref=options["user"],
            )
            parts = []
            for delta in chat_stream(turn, principal=principal, user_ref=options["user"]):
                parts.append(delta)
                if not options["json"]:
                    sys.stdout.write(delta)
                    sys.stdout.flush()
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        if options["json"]:
            payload = {
                "answer": "".join(parts),
                "citations": [asdict(c) for c in turn.citations],
                "session_id": turn.session_id,
                "answer_id": turn.answer_id,
            }
            self.stdout.write(json.dumps(payload, ensure_ascii=False))
            return
        self.stdout.write("\n")
        for c in turn.citations:
            self.stdout.write(
                f"[{c.number}] {c.document}{f', p. {c.page}' if c.page else ''} (score {c.score:.3f})"
            )
        self.stdout.write(f"session: {turn.session_id}")
