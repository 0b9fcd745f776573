"""The chunk preview: what an upload would become with the chosen chunking, before anything
is stored or embedded. It runs the ingestion's own reading (extract → normalise → redact →
chunk) on a temporary copy, with a short time budget since a person waits for it."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from knowledge.chunk_options import ChunkOptions, chunk_options_resolve
from knowledge.chunking import Piece
from knowledge.ingestion import ingestion_budget, read_document
from knowledge.models import Document, Language, Redaction, SourceType
from knowledge.search import vector_index
from knowledge.uploads import check_choices, upload_checked
from licenses.models import License

PREVIEW_SECONDS = 20
PREVIEW_CHUNKS = 10


@dataclass(frozen=True)
class ChunkPreview:
    kind: str
    language: str
    total: int
    pieces: list[Piece]
    options: ChunkOptions  # as resolved with the scope's default


def chunks_preview(
    *,
    file: IO[bytes],
    filename: str,
    license: License | None,
    source_type: str = SourceType.OTHER,
    language: str = Language.AUTO,
    redaction: str = Redaction.DEFAULT,
    pdf_password: str = "",
    chunking: ChunkOptions | None = None,
    limit: int = PREVIEW_CHUNKS,
) -> ChunkPreview:
    check_choices(source_type=source_type, language=language, redaction=redaction)
    options = chunk_options_resolve(license, chunking or ChunkOptions())
    _size, kind = upload_checked(file, filename)
    document = Document(
        license=license,
        filename=filename,
        kind=kind,
        source_type=source_type,
        language=language,
        redaction=redaction,
        pdf_password=pdf_password,
        chunk_size=options.size,
        chunk_overlap=options.overlap,
        split=options.split,
    )
    with tempfile.NamedTemporaryFile(
        prefix="pb-preview-", suffix=Path(filename).suffix[:10]
    ) as copy:
        file.seek(0)
        shutil.copyfileobj(file, copy)
        copy.flush()
        extracted = read_document(
            document,
            Path(copy.name),
            vector_index.active_provider(),
            budget=ingestion_budget(max_seconds=PREVIEW_SECONDS),
            on_stage=lambda stage, progress: None,
        )
    return ChunkPreview(
        kind, extracted.language, len(extracted.pieces), extracted.pieces[:limit], options
    )


def preview_payload(preview: ChunkPreview) -> dict[str, object]:
    """The preview as the console and the API show it."""
    return {
        "kind": preview.kind,
        "language": preview.language,
        "total_chunks": preview.total,
        "chunk_size": preview.options.size,
        "chunk_overlap": preview.options.overlap,
        "split": preview.options.split,
        "chunks": [
            {
                "ordinal": ordinal,
                "section": piece.heading,
                "page": piece.page_start,
                "tokens": piece.token_count,
                "content": piece.text,
            }
            for ordinal, piece in enumerate(preview.pieces)
        ],
    }
