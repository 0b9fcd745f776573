"""The type of an upload, decided by its content; the name only tells apart formats that are
all plain text (Markdown, CSV, HTML without a doctype)."""

from __future__ import annotations

import codecs
import re
from typing import IO

from django.utils.translation import gettext_noop

from knowledge.extraction.archives import ole_kind, zip_kind
from knowledge.extraction.base import IngestionError
from knowledge.extraction.convert import libreoffice, no_converter
from knowledge.extraction.images import check_image
from knowledge.models import FileKind

HEAD_BYTES = 4096
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")
_OLE = b"\xd0\xcf\x11\xe0"
# Images of documents, read by OCR: PNG, JPEG, TIFF (both byte orders), WebP and HEIC.
_IMAGE_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*")
_HEIC_BRANDS = {b"heic", b"heix", b"heim", b"heis", b"mif1", b"msf1"}
_BINARY_SIGNATURES = {
    b"GIF8": gettext_noop("a GIF image"),
    b"\x7fELF": gettext_noop("a program"),
    b"MZ": gettext_noop("a Windows program"),
    b"\x1f\x8b": gettext_noop("a gzip archive"),
    b"Rar!": gettext_noop("a RAR archive"),
    b"7z\xbc\xaf": gettext_noop("a 7-Zip archive"),
}
_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown")
_CSV_SUFFIXES = (".csv", ".tsv")
_HTML_SUFFIXES = (".html", ".htm", ".xhtml")
_MAIL_SUFFIXES = (".eml",)
# A header field of a message (RFC 5322): a name of printable characters but the colon.
_HEADER_FIELD = re.compile(rb"^([!-9;-~]+):")
_MESSAGE_FIELDS = {b"from", b"to", b"date", b"subject", b"message-id", b"mime-version"}
_HTML_START = re.compile(
    rb"^\s*(<\?xml[^>]*>\s*)?(<!--.*?-->\s*)*<(!doctype\s+html|html)\b", re.I | re.S
)


def detect_kind(
    file: IO[bytes], filename: str, *, max_unpacked_bytes: int, text_hint: str = ""
) -> FileKind:
    """Read the file's first bytes (and a ZIP's directory) to tell what it is. ``text_hint``
    names the kind of a text file whose name says nothing (a web page's URL: "html")."""
    file.seek(0)
    head = file.read(HEAD_BYTES)
    file.seek(0)
    if b"%PDF-" in head[:1024]:
        return FileKind.PDF
    if head.startswith(_ZIP):
        return FileKind(zip_kind(file, max_unpacked_bytes))
    if head.startswith(_OLE):
        kind = FileKind(ole_kind(file))
        if kind in (FileKind.DOC, FileKind.PPT) and libreoffice() is None:
            raise no_converter()
        return kind
    if head.startswith(b"{\\rtf"):
        return FileKind.RTF
    if head.startswith(_IMAGE_SIGNATURES) or _is_webp_or_heic(head):
        check_image(file)
        return FileKind.IMAGE
    for signature, description in _BINARY_SIGNATURES.items():
        if head.startswith(signature):
            raise IngestionError(
                gettext_noop(
                    "This file is %(t_description)s, not a supported type. Upload a PDF, Word "
                    "(.docx, .doc), PowerPoint (.pptx, .ppt), Excel (.xlsx, .xls), OpenDocument "
                    "(.odt, .ods, .odp), EPUB, RTF, HTML, CSV, e-mail (.eml), plain text (.txt) "
                    "or Markdown (.md) file, or an image of a page (PNG, JPEG, TIFF, WebP, HEIC)."
                ),
                params={"t_description": description},
            )
    if b"\x00" in head and not head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise IngestionError(
            gettext_noop(
                "This file is binary, not text, and not a supported document. Upload a PDF, "
                "Word (.docx, .doc), PowerPoint (.pptx, .ppt), Excel (.xlsx, .xls), OpenDocument "
                "(.odt, .ods, .odp), EPUB, RTF, HTML, CSV, e-mail (.eml), plain text (.txt) or "
                "Markdown (.md) file, or an image of a page (PNG, JPEG, TIFF, WebP, HEIC)."
            )
        )
    if text_hint in FileKind.values:
        return FileKind(text_hint)
    return _text_kind(head, filename.lower())


def _is_webp_or_heic(head: bytes) -> bool:
    """WebP is a RIFF file of type WEBP; HEIC an ISO media file whose ftyp box names HEIF."""
    return (head[:4] == b"RIFF" and head[8:12] == b"WEBP") or (
        head[4:8] == b"ftyp" and head[8:12] in _HEIC_BRANDS
    )


def _text_kind(head: bytes, name: str) -> FileKind:
    if name.endswith(_MAIL_SUFFIXES) or _is_message(head):
        return FileKind.EML
    if _HTML_START.match(head.removeprefix(codecs.BOM_UTF8)) or name.endswith(_HTML_SUFFIXES):
        return FileKind.HTML
    if name.endswith(_CSV_SUFFIXES):
        return FileKind.CSV
    return FileKind.MD if name.endswith(_MARKDOWN_SUFFIXES) else FileKind.TXT


def _is_message(head: bytes) -> bool:
    """A saved e-mail: it opens with header fields (continued on indented lines) up to a
    blank line, among them who sent it and at least one other a message has."""
    fields: set[bytes] = set()
    for line in head.split(b"\n")[:-1]:  # the last may be cut off
        line = line.rstrip(b"\r")
        if not line:
            break
        if line[:1] in (b" ", b"\t") and fields:
            continue
        field = _HEADER_FIELD.match(line)
        if field is None:
            return False
        fields.add(field.group(1).lower())
    return b"from" in fields and len(fields & _MESSAGE_FIELDS) >= 2
