"""Same quality whatever the format: the shared sets' passages ingested as Markdown, Word and
HTML (one document per passage, its title as the heading), each format in a license of its
own, and held-out questions asked of each; and how fast each reader extracts text, on one
document holding every passage of a set (a heading and a paragraph each; a slide, a sheet
row or an EPUB chapter each where the format has those)."""

from __future__ import annotations

import csv
import io
import statistics
import tempfile
import time
import zipfile
from collections.abc import Callable
from html import escape
from pathlib import Path

import docx
import openpyxl
import pptx
from ebooklib import epub

from knowledge import ingestion, uploads
from knowledge.extraction import Budget, extract
from knowledge.models import Document, DocumentStatus
from knowledge.search import search as chunk_search
from knowledge.search import sentence_vectors
from knowledge.search.types import SearchOptions
from licenses.models import License
from licenses.principals import principal_for_license
from licenses.services import license_forge
from tests.bench.retrieval import DEPTH, Dataset, load_dataset, query_metrics

RETRIEVAL_FORMATS = ("md", "docx", "html")
THROUGHPUT_FORMATS = ("md", "docx", "pptx", "xlsx", "csv", "html", "odt", "epub")
Sections = list[tuple[str, str]]


def document_bytes(kind: str, sections: Sections) -> bytes:
    return _WRITERS[kind](sections)


def _markdown(sections: Sections) -> bytes:
    return "\n\n".join(f"# {title}\n\n{text}" for title, text in sections).encode()


def _html(sections: Sections) -> bytes:
    body = "".join(f"<h1>{escape(t)}</h1><p>{escape(x)}</p>" for t, x in sections)
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body><main>{body}</main></body></html>".encode()


def _docx(sections: Sections) -> bytes:
    document = docx.Document()
    for title, text in sections:
        document.add_heading(title, level=1)
        document.add_paragraph(text)
    return _saved(document)


def _pptx(sections: Sections) -> bytes:
    presentation = pptx.Presentation()
    for title, text in sections:
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text_frame.text = text
    return _saved(presentation)


def _xlsx(sections: Sections) -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Título", "Texto"])
    for row in sections:
        sheet.append(list(row))
    return _saved(workbook)


def _csv(sections: Sections) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["Título", "Texto"])
    writer.writerows(sections)
    return out.getvalue().encode()


def _odt(sections: Sections) -> bytes:
    ns = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
    )
    body = "".join(
        f'<text:h text:outline-level="1">{escape(t)}</text:h><text:p>{escape(x)}</text:p>'
        for t, x in sections
    )
    content = f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns}><office:body><office:text>{body}</office:text></office:body></office:document-content>'
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text", zipfile.ZIP_STORED)
        archive.writestr("content.xml", content)
    return out.getvalue()


def _epub(sections: Sections) -> bytes:
    book = epub.EpubBook()
    book.set_identifier("bench")
    book.set_title("bench")
    chapters = []
    for n, (title, text) in enumerate(sections):
        chapter = epub.EpubHtml(title=title, file_name=f"c{n}.xhtml")
        chapter.content = f"<h1>{escape(title)}</h1><p>{escape(text)}</p>"
        book.add_item(chapter)
        chapters.append(chapter)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = chapters
    out = io.BytesIO()
    epub.write_epub(out, book)
    return out.getvalue()


def _saved(document) -> bytes:  # noqa: ANN001 - python-docx, python-pptx or openpyxl
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


_WRITERS: dict[str, Callable[[Sections], bytes]] = {
    "md": _markdown,
    "html": _html,
    "docx": _docx,
    "pptx": _pptx,
    "xlsx": _xlsx,
    "csv": _csv,
    "odt": _odt,
    "epub": _epub,
}


# -- retrieval per format -------------------------------------------------------------------


def format_license(dataset: Dataset, kind: str) -> License:
    machine_id = f"bench-formats-{dataset.name}-{kind}".lower()
    existing = License.objects.filter(machine_id=machine_id).first()
    return existing or license_forge(user_name="Benchmark", machine_id=machine_id).license


def ingest_as(
    dataset: Dataset, kind: str, license: License, progress: Callable[[int, int], None]
) -> None:
    """Idempotent like the retrieval benchmark's: a passage already ingested is skipped."""
    for n, passage in enumerate(dataset.passages, 1):
        data = document_bytes(kind, [(passage["title"], passage["text"])])
        creation = uploads.document_create(
            file=io.BytesIO(data),
            filename=f"{passage['id']}.{kind}",
            license=license,
            enqueue=False,
        )
        if creation.document.status != DocumentStatus.READY:
            ingestion.document_ingest(document_id=creation.document.pk)
        progress(n, len(dataset.passages))
    sentence_vectors.sentences_embed_missing()
    failed = Document.objects.filter(license=license).exclude(status=DocumentStatus.READY).count()
    if failed:
        raise RuntimeError(f"{failed} {kind} passages failed to ingest")


def evaluate(dataset: Dataset, license: License) -> dict[str, float]:
    per_query = []
    for query in dataset.queries:
        response = chunk_search(
            principal=principal_for_license(license),
            query=query["text"],
            options=SearchOptions(top_k=3 * DEPTH, min_score=-1.0, relative_cut=0.0),
        )
        ranking: list[str] = []
        for result in response.results:
            passage_id = Path(result.filename).stem
            if passage_id not in ranking:
                ranking.append(passage_id)
        per_query.append(query_metrics(ranking[:DEPTH], set(query["relevant"])))
    return {
        key: round(statistics.fmean(m[key] for m in per_query), 4)
        for key in ("ndcg@10", "recall@10", "mrr@10")
    }


def throughput(dataset: Dataset, kind: str, repeats: int = 3) -> dict[str, float]:
    """Extraction alone (no embedding): the best of ``repeats`` runs on one document holding
    every passage of the set."""
    data = document_bytes(kind, [(p["title"], p["text"]) for p in dataset.passages])
    budget = Budget(
        max_pages=10_000, max_content_bytes=10**9, max_seconds=600, max_unpacked_bytes=10**9
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"all.{kind}"
        path.write_bytes(data)
        seconds = min(
            _timed(lambda: extract(path, kind, password="", budget=budget, ocr_languages="eng"))
            for _ in range(repeats)
        )
    return {
        "file_mb": round(len(data) / 1048576, 3),
        "seconds": round(seconds, 3),
        "mb_per_s": round(len(data) / 1048576 / seconds, 2),
        "sections_per_s": round(len(dataset.passages) / seconds, 1),
    }


def _timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def run(
    directory: Path, split: str, progress: Callable[[int, int], None], *, limit: int | None = None
) -> dict:
    dataset = load_dataset(directory, split)
    if limit:  # a tiny run (the test of this command): the first passages and their questions
        dataset.passages = dataset.passages[:limit]
        kept = {p["id"] for p in dataset.passages}
        dataset.queries = [q for q in dataset.queries if set(q["relevant"]) & kept]
    retrieval = {}
    for kind in RETRIEVAL_FORMATS:
        license = format_license(dataset, kind)
        ingest_as(dataset, kind, license, progress)
        retrieval[kind] = evaluate(dataset, license)
    markdown = retrieval["md"]["ndcg@10"]
    for figures in retrieval.values():
        figures["ndcg@10_vs_md"] = round(figures["ndcg@10"] / markdown, 3) if markdown else 0.0
    return {
        "dataset": dataset.name,
        "split": split,
        "passages": len(dataset.passages),
        "queries": len(dataset.queries),
        "retrieval": retrieval,
        "extraction": {kind: throughput(dataset, kind) for kind in THROUGHPUT_FORMATS},
    }
