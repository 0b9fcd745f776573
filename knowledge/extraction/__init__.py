"""Turn an uploaded file into text with its structure.

The type is decided by the content (``kinds``); ZIP-based and OLE files are inspected
before any reader opens them (``archives``). Each format has a reader: ``pdf`` (page by
page, OCR for scans), ``images`` (scans and photos, by OCR), ``text`` (plain text,
Markdown, CSV), ``office`` (Word, PowerPoint, Excel), ``opendocument`` (ODT, ODS, ODP),
``legacy`` (Excel 97, RTF), ``convert`` (Word and PowerPoint 97, converted by LibreOffice)
and ``markup`` (HTML pages, EPUB books); ``pictures`` reads the pictures beside a
document's text. Tesseract is run by ``ocr``. Structured formats
come out as Markdown written by ``base.Outline``: their headings, slides and sheets become
the chunks' section paths. Every failure a person can fix or should know about is an
``IngestionError`` with a message written for the admin who uploaded the file.
"""

from __future__ import annotations

import dataclasses
import io
import tempfile
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.utils.translation import gettext_noop

from knowledge.extraction import pdf
from knowledge.extraction.base import Budget, Extraction, IngestionError, PageText
from knowledge.extraction.convert import converted
from knowledge.extraction.images import extract_image, extract_pictures
from knowledge.extraction.kinds import detect_kind
from knowledge.extraction.legacy import extract_rtf, extract_xls
from knowledge.extraction.mail import ReadAttachment, extract_eml
from knowledge.extraction.markup import extract_epub, extract_html
from knowledge.extraction.ocr import installed_languages
from knowledge.extraction.office import extract_docx, extract_pptx, extract_xlsx, section_words
from knowledge.extraction.opendocument import extract_odt
from knowledge.extraction.opendocument_sheets import extract_ods
from knowledge.extraction.opendocument_slides import extract_odp
from knowledge.extraction.pdf import extract_pdf
from knowledge.extraction.pictures import PictureReader, has_pictures
from knowledge.extraction.text import (
    decode_declared,
    decode_html,
    decode_text,
    extract_csv,
    extract_text_file,
)
from knowledge.models import FileKind

__all__ = [
    "Budget",
    "Extraction",
    "IngestionError",
    "PageText",
    "decode_declared",
    "decode_html",
    "decode_text",
    "detect_kind",
    "extract",
    "extract_pdf",
]

_STRUCTURED: dict[FileKind, Callable[..., Extraction]] = {
    FileKind.XLSX: extract_xlsx,
    FileKind.ODS: extract_ods,
    FileKind.XLS: extract_xls,
    FileKind.EPUB: extract_epub,
    FileKind.CSV: extract_csv,
}
# Documents whose pictures are read where they stand (``pictures``).
_WITH_PICTURES: dict[FileKind, Callable[..., Extraction]] = {
    FileKind.DOCX: extract_docx,
    FileKind.PPTX: extract_pptx,
    FileKind.ODT: extract_odt,
    FileKind.ODP: extract_odp,
}


# Old binary formats, read as LibreOffice converts them (``convert``).
_CONVERTED = {FileKind.DOC: FileKind.DOCX, FileKind.PPT: FileKind.PPTX}


def _with_details(extraction: Extraction, details: dict[str, object]) -> Extraction:
    extraction.details.update(details)
    return extraction


def _has_body_text(extraction: Extraction) -> bool:
    """Any text besides headings (a slide's "Slide 3", a notice's title)."""
    return any(
        character.isalnum()
        for page in extraction.pages
        for line in page.text.splitlines()
        if not line.startswith("#")
        for character in line
    )


def _read_with_pictures(
    kind: FileKind, path: Path, budget: Budget, ocr_languages: str
) -> Extraction:
    """A document's text with its pictures' descriptions; then, when it has pictures, read
    again with the text OCR finds in each where it stands. One with no text but pictures
    is read as its pictures, each like a scanned page."""
    read = _WITH_PICTURES[kind]
    extraction = read(path, budget=budget)
    if not _has_body_text(extraction):
        return _only_pictures(extraction, path, budget, ocr_languages)
    if not settings.KNOWLEDGE_OCR_PICTURES or not has_pictures(path):
        return extraction
    pictures = PictureReader.for_document(path, section_words().picture, budget, ocr_languages)
    if pictures.languages is None:  # Tesseract is not installed: descriptions only
        return extraction
    extraction = read(path, budget=budget, pictures=pictures)
    extraction.details.update(pictures.details())
    return extraction


def _only_pictures(
    extraction: Extraction, path: Path, budget: Budget, ocr_languages: str
) -> Extraction:
    """A document with no body text: its headings, then what OCR reads in its pictures."""
    pictures = extract_pictures(path, budget=budget, ocr_languages=ocr_languages)
    if pictures is None:
        return extraction
    return Extraction(
        [*extraction.pages, *pictures.pages],
        None,
        {**extraction.details, **pictures.details},
        markdown=True,
    )


ENCRYPTED_ATTACHMENT = gettext_noop(
    "This PDF is encrypted: save it from the message and upload it on its own, with its password."
)


def _attachment_reader(budget: Budget, ocr_languages: str) -> ReadAttachment:
    """How a message's attachments are read: as the same file uploaded alone, within what
    is left of the message's reading time. A picture only for the text OCR is sure of (a
    scan sent as a photo is read, a logo in a signature is not); a message attached as a
    file is not opened further (``mail`` reads forwards one level down)."""
    deadline = budget.deadline()
    pictures = PictureReader(
        label="",
        languages=installed_languages(ocr_languages),
        limit=budget.max_pages,
        seconds=budget.max_seconds / 2,
    )

    def read(data: bytes, name: str) -> Extraction | None:
        left = dataclasses.replace(budget, max_seconds=deadline.remaining())
        kind = detect_kind(io.BytesIO(data), name, max_unpacked_bytes=budget.max_unpacked_bytes)
        if kind == FileKind.EML:
            raise IngestionError(
                gettext_noop("A message attached as a file is not read; forward it instead.")
            )
        if kind == FileKind.IMAGE:
            found = pictures.read_text(data) if pictures.languages else []
            return Extraction([PageText(None, "\n\n".join(found))], None) if found else None
        with tempfile.TemporaryDirectory(prefix="pb-attachment-") as folder:
            path = Path(folder) / f"attachment.{kind}"  # some readers go by the extension
            path.write_bytes(data)
            try:
                return extract(path, kind, password="", budget=left, ocr_languages=ocr_languages)
            except IngestionError as error:
                if error.template == pdf.ENCRYPTED:  # no password field for an attachment
                    raise IngestionError(ENCRYPTED_ATTACHMENT) from error
                raise

    return read


def extract(
    path: Path, kind: str, *, password: str, budget: Budget, ocr_languages: str
) -> Extraction:
    if kind == FileKind.PDF:
        return extract_pdf(path, password=password, budget=budget, ocr_languages=ocr_languages)
    if kind == FileKind.IMAGE:
        return extract_image(path, budget=budget, ocr_languages=ocr_languages)
    try:
        if kind in _CONVERTED:
            target = _CONVERTED[FileKind(kind)]
            with converted(path, kind, target.value, budget.deadline()) as copy:
                extraction = _read_with_pictures(FileKind(target), copy, budget, ocr_languages)
            return _with_details(extraction, {"converted_by": "LibreOffice"})
        if kind in _WITH_PICTURES:
            return _read_with_pictures(FileKind(kind), path, budget, ocr_languages)
        if kind in _STRUCTURED:
            return _STRUCTURED[FileKind(kind)](path, budget=budget)
        if kind == FileKind.HTML:
            return extract_html(path)
        if kind == FileKind.RTF:
            return extract_rtf(path)
        if kind == FileKind.EML:
            return extract_eml(
                path,
                budget=budget,
                read_attachment=_attachment_reader(budget, ocr_languages),
                labels=section_words().mail,
            )
    except RecursionError as exc:  # elements nested hundreds deep: no real document is
        raise IngestionError(
            gettext_noop(
                "This document's structure is nested too deeply to read (hundreds of levels or "
                "more); save it again from its program, or export it as PDF."
            )
        ) from exc
    return extract_text_file(path, markdown=kind == FileKind.MD)
