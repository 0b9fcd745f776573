"""manage.py embed_sentences — give every chunk its sentence vectors now, not by the worker's
catch-up (after an upgrade that introduced them, on a large corpus)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from knowledge.search import sentence_vectors
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = "Embed the sentence groups of every chunk that has none yet (the active model's)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not sentence_vectors.enabled():
            raise CommandError(
                "Sentence vectors are off (SEARCH_SENTENCE_VECTORS=0): nothing to do."
            )
        try:
            groups = sentence_vectors.sentences_embed_missing(
                progress=self._progress, from_start=True
            )
        except ApplicationError as exc:  # the embedding provider unavailable, for one
            raise CommandError(exc.message) from exc
        self.stdout.write(f"\nEmbedded {groups} sentence groups; every chunk has its vectors.")

    def _progress(self, done: int, total: int) -> None:
        self.stderr.write(f"\r  chunks {done}/{total}", ending="")
