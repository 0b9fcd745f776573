"""Office, OpenDocument and EPUB files are ZIP archives; old and encrypted Office files are
OLE compound files. Both are inspected before any reader opens them: what the archive
holds decides the format (never the file name), and what it would expand to is checked
against the budget from its directory, so a 40 KB file that would unpack to 2 GB is refused
in milliseconds without expanding a byte of it."""

from __future__ import annotations

import struct
import zipfile
import zlib
from typing import IO

import olefile
from django.utils.translation import gettext_noop

from knowledge.extraction.base import IngestionError

# A part is a ZIP bomb when it expands far more than any real document part: Office XML
# compresses 5-20:1, a spreadsheet of repeated values up to ~60:1 (checked on real files).
MAX_RATIO = 200
RATIO_FLOOR_BYTES = 1024 * 1024  # small parts may compress any amount
MAX_ENTRIES = 10_000
# What reading a damaged archive's parts raises: a bad checksum or header (BadZipFile), a
# broken compressed stream (zlib.error), a part cut short (EOFError), a compression method
# or ZIP version Python does not read (NotImplementedError), an offset past its end (OSError),
# a part's name in its header that is not UTF-8 (UnicodeDecodeError).
# zipfile's own errors, and ValueError: a directory offset past its real place shifts every
# member's to a negative one ("negative seek value", found fuzzing).
DAMAGED_ARCHIVE = (
    zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, OSError, UnicodeDecodeError,
    ValueError,
)  # fmt: skip
# XML entity declarations are what entity-expansion attacks are made of; no Office,
# OpenDocument or EPUB part needs them, so a part declaring one is refused outright.
_ENTITY = b"<!ENTITY"

OPENDOCUMENT = "application/vnd.oasis.opendocument."
_MIMETYPES = {
    "application/vnd.oasis.opendocument.text": "odt",
    "application/vnd.oasis.opendocument.spreadsheet": "ods",
    "application/vnd.oasis.opendocument.presentation": "odp",
    # templates hold what their documents do
    "application/vnd.oasis.opendocument.text-template": "odt",
    "application/vnd.oasis.opendocument.spreadsheet-template": "ods",
    "application/vnd.oasis.opendocument.presentation-template": "odp",
    "application/epub+zip": "epub",
}
_OFFICE_MAIN_PARTS = {
    "word/document.xml": "docx",
    "ppt/presentation.xml": "pptx",
    "xl/workbook.xml": "xlsx",
}
_OTHER_OPENDOCUMENTS = {
    "graphics": gettext_noop(
        "This is an OpenDocument drawing (.odg). Export it as PDF and upload that."
    ),
}


def zip_kind(file: IO[bytes], max_unpacked_bytes: int) -> str:
    """The format of a ZIP-based document ("docx", "pptx", "xlsx", "odt", "ods", "odp" or
    "epub"), after
    checking that it is safe to open. Refuses anything else with a sentence."""
    archive = open_zip(file)
    with archive:
        check_inventory(archive, max_unpacked_bytes)
        names = set(archive.namelist())
        try:
            if "mimetype" in names:
                return _opendocument_kind(archive, names)
            for part, kind in _OFFICE_MAIN_PARTS.items():
                if part in names:
                    _refuse_macros(archive, names)
                    return kind
        except DAMAGED_ARCHIVE as exc:
            raise damaged_archive(exc) from exc
    raise IngestionError(
        gettext_noop(
            "This file is a ZIP archive, not a document. Upload the documents inside it one by "
            "one (Word, PowerPoint, Excel, OpenDocument, EPUB, PDF, HTML, CSV, text)."
        )
    )


def open_zip(file: IO[bytes]) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(file)
    except (*DAMAGED_ARCHIVE, ValueError) as exc:
        raise IngestionError(
            gettext_noop(
                "This file is damaged or incomplete (its archive directory cannot be read). "
                "Open it and save it again, then upload that copy."
            ),
            extra={"technical": str(exc)},
        ) from exc


def damaged_archive(exc: Exception) -> IngestionError:
    """A part of the archive that cannot be read back (a file damaged in transit)."""
    return IngestionError(
        gettext_noop(
            "This file is damaged or incomplete (a part of it cannot be read back). Open it "
            "and save it again, then upload that copy."
        ),
        extra={"technical": f"{type(exc).__name__}: {exc}"[:500]},
    )


def check_inventory(archive: zipfile.ZipFile, max_unpacked_bytes: int) -> None:
    """From the archive's directory alone: entries, total size, compression ratio."""
    entries = archive.infolist()
    if len(entries) > MAX_ENTRIES:
        raise IngestionError(
            gettext_noop(
                "This file holds %(count)s parts; a document has far fewer (the limit is "
                "%(limit)s). It is not a document this server will open."
            ),
            params={"count": len(entries), "limit": MAX_ENTRIES},
        )
    total = sum(entry.file_size for entry in entries)
    if total > max_unpacked_bytes:
        raise IngestionError(
            gettext_noop(
                "This file would expand to %(size)s MB when opened; the limit is %(limit)s MB. "
                "Remove large images or split it, then upload it again."
            ),
            params={"size": total // 1048576, "limit": max_unpacked_bytes // 1048576},
        )
    for entry in entries:
        if entry.flag_bits & 0x1:
            raise IngestionError(
                gettext_noop(
                    "This file is encrypted (password-protected). Save a copy without a "
                    "password and upload that."
                )
            )
        ratio = entry.file_size / max(entry.compress_size, 1)
        if entry.file_size > RATIO_FLOOR_BYTES and ratio > MAX_RATIO:
            raise IngestionError(
                gettext_noop(
                    "This file is a decompression bomb: one of its parts expands %(ratio)s "
                    "times (real documents stay under %(limit)s). It was not opened."
                ),
                params={"ratio": int(ratio), "limit": MAX_RATIO},
            )


def check_xml_parts(archive: zipfile.ZipFile) -> None:
    """Refuse a part that declares XML entities before any XML parser sees it. The whole
    part is read (its size was bounded by ``check_inventory``): a comment of 70 KB before
    the declaration hid it from a look at the first 64 KB."""
    for entry in archive.infolist():
        if not entry.filename.lower().endswith((".xml", ".rels", ".opf", ".ncx", "html", ".htm")):
            continue
        try:
            declares = _declares_entities(archive, entry)
        except DAMAGED_ARCHIVE as exc:
            raise damaged_archive(exc) from exc
        if declares:
            raise IngestionError(
                gettext_noop(
                    "This file declares XML entities (in %(part)s), which documents never need "
                    "and attacks on XML readers use. It was not opened."
                ),
                params={"part": entry.filename[:80]},
            )


def _declares_entities(archive: zipfile.ZipFile, entry: zipfile.ZipInfo) -> bool:
    tail = b""
    with archive.open(entry) as part:
        while block := part.read(1024 * 1024):
            if _ENTITY in tail + block:
                return True
            tail = block[-len(_ENTITY) :]
    return False


def _opendocument_kind(archive: zipfile.ZipFile, names: set[str]) -> str:
    mimetype = archive.read("mimetype")[:200].decode("ascii", errors="replace").strip()
    if mimetype in _MIMETYPES:
        if "META-INF/encryption.xml" in names:
            raise IngestionError(
                gettext_noop(
                    "This EPUB is protected by DRM (its chapters are encrypted), so its text "
                    "cannot be read. Upload a copy without DRM."
                )
            )
        if mimetype.startswith(OPENDOCUMENT) and _odf_encrypted(archive, names):
            raise IngestionError(
                gettext_noop(
                    "This OpenDocument file is password-protected. Save a copy without a "
                    "password (File › Save As, untick “Save with password”) and upload that."
                )
            )
        return _MIMETYPES[mimetype]
    for family, message in _OTHER_OPENDOCUMENTS.items():
        if mimetype == f"{OPENDOCUMENT}{family}":
            raise IngestionError(message)
    raise IngestionError(
        gettext_noop(
            "This archive's type (%(mimetype)s) is not a supported document. Upload Word, "
            "PowerPoint, Excel, OpenDocument, EPUB, PDF, HTML, CSV or text files."
        ),
        params={"mimetype": mimetype[:80] or "?"},
    )


def _odf_encrypted(archive: zipfile.ZipFile, names: set[str]) -> bool:
    manifest = "META-INF/manifest.xml"
    return manifest in names and b"encryption-data" in archive.read(manifest)


def _refuse_macros(archive: zipfile.ZipFile, names: set[str]) -> None:
    content_types = archive.read("[Content_Types].xml") if "[Content_Types].xml" in names else b""
    if any(name.lower().endswith("vbaproject.bin") for name in names) or (
        b"macroEnabled" in content_types
    ):
        raise IngestionError(
            gettext_noop(
                "This Office file contains macros (.docm, .pptm or .xlsm). Macros are never run "
                "here: save it as a regular .docx, .pptx or .xlsx file (without macros) and "
                "upload that."
            )
        )


def ole_kind(file: IO[bytes]) -> str:
    """An OLE compound file's format: "xls", "doc" or "ppt" for Office 97–2003's workbooks,
    documents and presentations. Anything else is refused with why: an encrypted Office
    file, or another program's."""
    file.seek(0)
    try:
        ole = olefile.OleFileIO(file)
    except (OSError, ValueError, IndexError, EOFError, struct.error) as exc:  # its directory
        raise damaged_archive(exc) from exc
    try:
        if ole.exists("EncryptedPackage"):
            raise password_protected_office()
        if ole.exists("Workbook") or ole.exists("Book"):
            return "xls"
        if ole.exists("WordDocument"):
            return "doc"
        if ole.exists("PowerPoint Document"):
            return "ppt"
        if ole.exists("__properties_version1.0"):  # every Outlook item has this stream
            raise IngestionError(
                gettext_noop(
                    "This is an Outlook message (.msg), which is not read. In Outlook, save it "
                    "as HTML (File › Save As), or print it to PDF, and upload that; a mail "
                    "program or webmail that downloads messages as .eml gives a file read "
                    "with its attachments."
                )
            )
    finally:
        ole.close()
    raise IngestionError(
        gettext_noop(
            "This old Office-style file holds no Word, Excel or PowerPoint document: it is "
            "another program's (an Outlook message, a Visio drawing…) or damaged. Open it, "
            "export it as PDF and upload that."
        )
    )


def password_protected_office() -> IngestionError:
    return IngestionError(
        gettext_noop(
            "This Office file is password-protected, so its text cannot be read. Open it, "
            "remove the password (File › Info › Protect › Encrypt with password, empty) and "
            "upload that copy."
        )
    )
