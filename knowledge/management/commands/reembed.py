"""manage.py reembed --model NAME — move every chunk to another embedding model, search kept up."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge.embeddings import get_provider
from knowledge.reembedding import reembed
from web.exceptions import ApplicationError

PROVIDERS = {"local": "local", "e5-small@384": "local", "gemini": "gemini"}


class Command(BaseCommand):
    help = "Embed every chunk with a new model, switch search to it when complete, drop the old vectors."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--model",
            required=True,
            help="local (e5-small@384) or gemini (GEMINI_EMBEDDING_MODEL@GEMINI_EMBEDDING_DIMENSIONS)",
        )
        parser.add_argument("--batch-size", type=int, default=32)

    def handle(self, *args: Any, **options: Any) -> None:
        name = PROVIDERS.get(options["model"]) or (
            "gemini" if options["model"].startswith("gemini") else None
        )
        if name is None:
            raise CommandError(f"Unknown model {options['model']!r}: use local or gemini.")
        try:
            provider = get_provider(name)
            if options["model"] not in (name, provider.model):
                raise CommandError(
                    f"The configured {name} provider produces {provider.model}, not {options['model']}."
                )
            report = reembed(
                provider=provider, batch_size=options["batch_size"], progress=self._progress
            )
        except ApplicationError as exc:
            raise CommandError(exc.message) from exc
        recall = (
            f"{report.recall_at_10:.3f}" if report.recall_at_10 is not None else "n/a (no chunks)"
        )
        self.stdout.write(
            f"\nActive model: {report.model} (was {report.previous_model or 'none'}). "
            f"Embedded {report.embedded} chunks and {report.sentence_vectors} sentence groups; "
            f"new index recall@10 on a sample: {recall}; "
            f"deleted {report.deleted_old} old vectors."
        )

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  embedded {done}/{total}", ending="")
