"""Chunking an upload or a scope chooses: size and overlap in tokens, and the split mode.

An upload's own choice wins; what it leaves empty comes from its scope's default (a
license's own, else global's), and sizes still empty from the document type's built-in
ones (``chunking.CHUNK_SIZES``). The choice is resolved when the file is accepted and kept
on the document, so a retry or a re-ingestion cuts it the same way and a later change of
the default applies to the next upload only."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_noop

from knowledge.chunking import CHUNK_SIZES, ChunkSize
from knowledge.models import ChunkingDefault, Document, SplitMode
from knowledge.selectors import chunking_default_effective
from licenses.models import License
from web.exceptions import ApplicationError

MIN_CHUNK_TOKENS = 32
# The embedder reads at most its own input limit (512 tokens for the local e5, 2048 for
# Gemini's); a larger size is capped there when the document is cut.
MAX_CHUNK_TOKENS = 2048


@dataclass(frozen=True)
class ChunkOptions:
    size: int | None = None
    overlap: int | None = None
    split: str = ""  # "" = the scope's default


def chunk_options_check(options: ChunkOptions) -> None:
    """Refuse, with a sentence, sizes no chunker can honour."""
    if options.split and options.split not in SplitMode.values:
        raise ApplicationError(
            gettext_noop("The split mode must be “structure” or “fixed”."),
        )
    if options.size is not None and not MIN_CHUNK_TOKENS <= options.size <= MAX_CHUNK_TOKENS:
        raise ApplicationError(
            gettext_noop("The chunk size must be between %(min)s and %(max)s tokens."),
            params={"min": MIN_CHUNK_TOKENS, "max": MAX_CHUNK_TOKENS},
        )
    if options.overlap is not None and options.overlap < 0:
        raise ApplicationError(gettext_noop("The chunk overlap cannot be negative."))
    size = options.size or 0
    if options.overlap and size and options.overlap > size // 2:
        raise ApplicationError(
            gettext_noop(
                "The chunk overlap (%(overlap)s tokens) must be at most half the chunk size "
                "(%(half)s tokens)."
            ),
            params={"overlap": options.overlap, "half": size // 2},
        )


def chunk_options_resolve(license: License | None, options: ChunkOptions) -> ChunkOptions:
    """The upload's choice, completed with its scope's default."""
    chunk_options_check(options)
    default = chunking_default_effective(license)
    return ChunkOptions(
        size=options.size if options.size is not None else default.chunk_size,
        overlap=options.overlap if options.overlap is not None else default.chunk_overlap,
        split=options.split or default.split,
    )


def chunking_default_set(*, license: License | None, options: ChunkOptions) -> ChunkingDefault:
    """A scope's default for the next uploads (empty sizes: the document type's)."""
    chunk_options_check(options)
    default, _ = ChunkingDefault.objects.update_or_create(
        license=license,
        defaults={
            "chunk_size": options.size,
            "chunk_overlap": options.overlap,
            "split": options.split or SplitMode.STRUCTURE,
        },
    )
    return default


def chunking_default_reset(*, license: License) -> None:
    """The license follows global's default again."""
    ChunkingDefault.objects.filter(license=license).delete()


def chunk_size_for(document: Document) -> ChunkSize:
    built_in = CHUNK_SIZES.get(document.source_type, CHUNK_SIZES["other"])
    target = document.chunk_size or built_in.target
    overlap = document.chunk_overlap if document.chunk_overlap is not None else built_in.overlap
    return ChunkSize(target, min(overlap, target // 2), fixed=document.split == SplitMode.FIXED)
