"""Turn an uploaded file into page texts: type by content, PDF page by page, text by encoding.

Every failure a person can fix or should know about is an ``IngestionError`` with a message
written for the admin who uploaded the file. PDF JavaScript is never run: pypdf only parses.
"""

from __future__ import annotations

import codecs
import logging
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from charset_normalizer import from_bytes
from django.utils.translation import gettext_noop

from knowledge.models import FileKind
from portality.exceptions import ApplicationError

logger = logging.getLogger(__name__)

_BINARY_SIGNATURES = {
    b"\x89PNG": gettext_noop("a PNG image"),
    b"\xff\xd8\xff": gettext_noop("a JPEG image"),
    b"GIF8": gettext_noop("a GIF image"),
    b"PK\x03\x04": gettext_noop(
        "a ZIP archive (Word, Excel and OpenDocument files are ZIP archives)"
    ),
    b"\xd0\xcf\x11\xe0": gettext_noop("an old Microsoft Office file"),
    b"\x7fELF": gettext_noop("a program"),
    b"{\\rtf": gettext_noop("an RTF document"),
}
_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown")


class IngestionError(ApplicationError):
    """Bad input: the document fails with this message and nothing of it is searchable."""


@dataclass
class PageText:
    number: int | None
    text: str


@dataclass(frozen=True)
class Budget:
    """What reading one PDF may cost. Its text is read by interpreting each page's drawing
    instructions, and a small file can make that endless: 40 pages sharing one 5 MB content
    stream (a 22 KB file) took 16 s a page, and such a file can have thousands. Real documents
    hold 5-100 KB of instructions a page (BENCHMARKS.md), so the budget is counted in bytes of
    instructions to interpret (each page's, shared ones counted on every page), with a time
    limit behind it. ``between_pages`` runs after each page (the caller stops there when the
    document was forgotten meanwhile)."""

    max_pages: int
    max_content_bytes: int
    max_seconds: float
    between_pages: Callable[[], None] | None = None


@dataclass
class Extraction:
    pages: list[PageText]
    page_count: int | None
    details: dict[str, object] = field(default_factory=dict)


def detect_kind(head: bytes, filename: str) -> FileKind:
    """Decide the type from the first bytes; the name only tells Markdown from plain text."""
    if b"%PDF-" in head[:1024]:
        return FileKind.PDF
    for signature, description in _BINARY_SIGNATURES.items():
        if head.startswith(signature):
            raise IngestionError(
                gettext_noop(
                    "This file is %(t_description)s, not a supported type. Upload a PDF, plain text "
                    "(.txt) or Markdown (.md) file."
                ),
                params={"t_description": description},
            )
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise IngestionError(
            gettext_noop(
                "This file is binary, not text. Upload a PDF, plain text (.txt) or Markdown (.md) file."
            )
        )
    return FileKind.MD if filename.lower().endswith(_MARKDOWN_SUFFIXES) else FileKind.TXT


# -- text files ---------------------------------------------------------------------------


def decode_text(data: bytes) -> tuple[str, dict[str, object]]:
    """UTF-8 (with or without BOM), UTF-16 with BOM, else the detected legacy encoding."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", errors="replace"), {"encoding": "utf-8-sig"}
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace"), {"encoding": "utf-16"}
    try:
        return data.decode("utf-8"), {"encoding": "utf-8"}
    except UnicodeDecodeError:
        pass  # not UTF-8: detect the legacy encoding below
    best = from_bytes(data).best()
    if best is None:
        raise IngestionError(
            gettext_noop(
                "The text's character encoding could not be recognised. Save it as UTF-8 and "
                "upload it again."
            )
        )
    return str(best), {"encoding": best.encoding, "encoding_detected": True}


def stored_file_missing(path: Path) -> IngestionError:
    return IngestionError(
        gettext_noop(
            "The uploaded file is missing from storage (%(name)s); check MEDIA_ROOT on the "
            "worker, or upload the file again."
        ),
        params={"name": path.name},
    )


def extract_text_file(path: Path) -> Extraction:
    if not path.exists():
        raise stored_file_missing(path)
    text, details = decode_text(path.read_bytes())
    return Extraction(pages=[PageText(number=None, text=text)], page_count=None, details=details)


# -- PDF ------------------------------------------------------------------------------------


def extract_pdf(path: Path, *, password: str, budget: Budget, ocr_languages: str) -> Extraction:
    from pypdf.errors import PdfReadError

    if not path.exists():
        raise stored_file_missing(path)
    try:
        with open(path, "rb") as stream:  # a file handle: pypdf reads it lazily, no copy
            reader = _open_pdf(stream, password)
            page_count = _page_count(reader, budget.max_pages)
            _check_content_size(reader, budget.max_content_bytes)
            pages = list(_pdf_pages(reader, budget))
            details: dict[str, object] = {}
            if not any(page.text.strip() for page in pages):
                pages = _ocr_pages(reader, ocr_languages)
                details["ocr"] = True
    except IngestionError:
        raise
    except PdfReadError as exc:
        raise _damaged_pdf(str(exc)) from exc
    except (RecursionError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        # pypdf reports some structural damage only through generic exceptions.
        # The message, not the exception's class: a person reads it (finding N9).
        logger.info("unreadable PDF %s: %r", path.name, exc)
        raise _damaged_pdf(str(exc) or "its structure could not be read") from exc
    return Extraction(pages=pages, page_count=page_count, details=details)


def _open_pdf(stream: BinaryIO, password: str):  # noqa: ANN202 - pypdf's PdfReader
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    reader = PdfReader(stream, strict=False)
    if not reader.is_encrypted:
        return reader
    if not password:
        raise IngestionError(
            gettext_noop(
                "This PDF is encrypted: type its password in the PDF password field of the "
                "knowledge page, then press Retry."
            )
        )
    try:
        unlocked = reader.decrypt(password)
    except DependencyError as exc:
        raise IngestionError(
            gettext_noop(
                "This PDF's encryption is not supported: save it again without a password "
                "(or with standard AES encryption) and upload it again."
            ),
            extra={"technical": str(exc)},
        ) from exc
    if not unlocked:
        raise IngestionError(
            gettext_noop("The password given for this encrypted PDF is not correct.")
        )
    return reader


def _page_count(reader, max_pages: int) -> int:  # noqa: ANN001
    count = len(reader.pages)
    if count == 0:
        raise IngestionError(gettext_noop("This PDF has no pages."))
    if count > max_pages:
        raise IngestionError(
            gettext_noop(
                "This PDF has %(count)s pages; the limit is %(limit)s. Split it into smaller files."
            ),
            params={"count": count, "limit": max_pages},
        )
    return count


def _check_content_size(reader, limit: int) -> None:  # noqa: ANN001 - pypdf's PdfReader
    """Refuse before reading when the pages' drawing instructions exceed the budget. A
    stream shared by many pages is decoded once and counted on each of them."""
    from pypdf.generic import ArrayObject, IndirectObject

    sizes: dict[object, int] = {}
    total = 0
    for page in reader.pages:
        contents = page.raw_get("/Contents") if "/Contents" in page else None
        for part in contents if isinstance(contents, ArrayObject) else [contents]:
            if part is None:
                continue
            key = part.idnum if isinstance(part, IndirectObject) else id(part)
            if key not in sizes:
                sizes[key] = len(part.get_object().get_data())
            total += sizes[key]
            if total > limit:
                raise IngestionError(
                    gettext_noop(
                        "This PDF's pages hold more than %(limit)s MB of drawing instructions "
                        "to read text from (often one large drawing repeated on every page); "
                        "its text cannot be read in reasonable time. Export it again, or "
                        "split it into smaller files."
                    ),
                    params={"limit": limit // (1024 * 1024)},
                )


def _pdf_pages(reader, budget: Budget) -> Iterator[PageText]:  # noqa: ANN001
    deadline = time.monotonic() + budget.max_seconds
    count = len(reader.pages)
    for number, page in enumerate(reader.pages, start=1):
        yield PageText(number=number, text=page.extract_text() or "")
        if budget.between_pages:
            budget.between_pages()
        if time.monotonic() > deadline and number < count:
            raise IngestionError(
                gettext_noop(
                    "Reading this PDF's text took longer than %(limit)s seconds (page "
                    "%(page)s of %(count)s); split it into smaller files."
                ),
                params={"limit": int(budget.max_seconds), "page": number, "count": count},
            )


def _damaged_pdf(detail: str) -> IngestionError:
    if "cyclic" in detail.lower():
        return IngestionError(
            gettext_noop(
                "This PDF is damaged: its page tree loops back on itself, so its pages cannot be "
                "read."
            )
        )
    # The reader's own words (English, technical) go apart from the sentence people read.
    return IngestionError(
        gettext_noop(
            "This PDF is damaged or incomplete and could not be read. Open it and save or "
            "export it again as PDF, then upload that copy."
        ),
        extra={"technical": detail},
    )


# -- OCR for PDFs without a text layer ----------------------------------------------------------


def tesseract_languages() -> set[str]:
    binary = shutil.which("tesseract")
    if not binary:
        return set()
    result = subprocess.run(
        [binary, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
    )
    return {line.strip() for line in result.stdout.splitlines()[1:] if line.strip()}


def _ocr_pages(reader, wanted_languages: str) -> list[PageText]:  # noqa: ANN001
    available = tesseract_languages()
    if not available:
        raise IngestionError(
            gettext_noop(
                "This PDF has no text layer (it is a scan or its text is drawn as images or "
                "curves), and OCR is not installed on this server. Install Tesseract (Debian: "
                "tesseract-ocr tesseract-ocr-spa tesseract-ocr-por) and retry."
            )
        )
    languages = "+".join(lang for lang in wanted_languages.split("+") if lang in available) or "eng"
    pages = [
        PageText(number=n, text=_ocr_page(page, languages))
        for n, page in enumerate(reader.pages, 1)
    ]
    if not any(page.text.strip() for page in pages):
        raise IngestionError(
            gettext_noop(
                "This PDF has no text layer and OCR found no text in it (its text may be drawn "
                "as curves, or it holds no text at all)."
            )
        )
    return pages


def _ocr_page(page, languages: str) -> str:  # noqa: ANN001
    texts = []
    with tempfile.TemporaryDirectory(prefix="pb-ocr-") as tmp:
        for index, image in enumerate(page.images):
            target = Path(tmp) / f"image-{index}.png"
            try:
                image.image.save(target)
            except Exception as exc:  # noqa: BLE001 - Pillow raises many types for odd images
                logger.info("skipping an image pypdf could not decode: %s", exc)
                continue
            result = subprocess.run(
                ["tesseract", str(target), "stdout", "-l", languages],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            texts.append(result.stdout)
    return "\n\n".join(texts)


def extract(
    path: Path, kind: str, *, password: str, budget: Budget, ocr_languages: str
) -> Extraction:
    if kind == FileKind.PDF:
        return extract_pdf(path, password=password, budget=budget, ocr_languages=ocr_languages)
    return extract_text_file(path)
