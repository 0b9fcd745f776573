"""PDF, page by page; OCR for pages without a text layer. PDF JavaScript is never run:
pypdf only parses."""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from django.conf import settings
from django.utils.translation import gettext_noop
from pypdf import PdfReader
from pypdf.errors import DependencyError, PyPdfError
from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject

from knowledge.extraction import ocr
from knowledge.extraction.base import (
    Budget,
    Deadline,
    Extraction,
    IngestionError,
    PageText,
    stored_file_missing,
)
from knowledge.extraction.ocr import MAX_PIXELS
from knowledge.extraction.pdf_headings import PageLines, SizedLine, marked_pages, plain
from knowledge.extraction.pdf_tables import table_rows, with_tables
from knowledge.extraction.pictures import MIN_PIXELS, PictureReader

logger = logging.getLogger(__name__)

# -- PDF ------------------------------------------------------------------------------------


def extract_pdf(path: Path, *, password: str, budget: Budget, ocr_languages: str) -> Extraction:
    if not path.exists():
        raise stored_file_missing(path)
    try:
        with open(path, "rb") as stream:  # a file handle: pypdf reads it lazily, no copy
            reader = _open_pdf(stream, password)
            page_count = _page_count(reader, budget.max_pages)
            _check_content_size(reader, budget.max_content_bytes)
            unreadable: list[int] = []
            sized: list[list[SizedLine]] = []
            pages = list(_pdf_pages(reader, budget, unreadable, sized))
            pages = [
                PageText(page.number, text)
                for page, text in zip(pages, marked_pages(sized), strict=True)
            ]
            details: dict[str, object] = {"unreadable_pages": unreadable} if unreadable else {}
            if not any(page.text.strip() for page in pages):
                pages = _ocr_pages(reader, ocr_languages, budget)
                details["ocr"] = True
            elif settings.KNOWLEDGE_OCR_PICTURES and (
                languages := ocr.installed_languages(ocr_languages)
            ):
                pages = _with_pictures(reader, pages, languages, budget, details)
    except IngestionError:
        raise
    except PyPdfError as exc:  # its read errors, and its limits on a damaged stream
        raise _damaged_pdf(str(exc)) from exc
    except _DAMAGE as exc:
        # pypdf reports some structural damage only through generic exceptions.
        # The message, not the exception's class: a person reads it (finding N9).
        logger.info("unreadable PDF %s: %r", path.name, exc)
        raise _damaged_pdf(str(exc) or "its structure could not be read") from exc
    return Extraction(pages=pages, page_count=page_count, details=details, headings=True)


ENCRYPTED = gettext_noop(
    "This PDF is encrypted: type its password in the PDF password field of the knowledge "
    "page, then press Retry."
)


def _open_pdf(stream: BinaryIO, password: str):  # noqa: ANN202 - pypdf's PdfReader
    reader = PdfReader(stream, strict=False)
    if not reader.is_encrypted:
        return reader
    if not password:
        raise IngestionError(ENCRYPTED)
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


# What pypdf raises on damage besides its own errors: it reports some only through generic
# exceptions (an AssertionError for a reference inside a page's drawing, NotImplementedError
# for a misspelled filter such as "/FlateDecod").
_DAMAGE = (
    RecursionError, ValueError, KeyError, TypeError, AttributeError, OSError, AssertionError,
    NotImplementedError,
)  # fmt: skip


def _pdf_pages(
    reader,  # noqa: ANN001 - pypdf's PdfReader
    budget: Budget,
    unreadable: list[int],
    sized: list[list[SizedLine]],
) -> Iterator[PageText]:
    """Each page's text, and its lines with their sizes in ``sized``. A page whose drawing
    is damaged is skipped and its number added to ``unreadable``: the other pages are still
    read. When none can be read, the PDF is."""
    deadline = time.monotonic() + budget.max_seconds
    count = len(reader.pages)
    for number, page in enumerate(reader.pages, start=1):
        lines = PageLines()
        try:
            text = page.extract_text(visitor_text=lines.visitor()) or ""
        except (PyPdfError, *_DAMAGE) as exc:
            if len(unreadable) + 1 == count:  # every page: the file itself is damaged
                raise
            logger.info("PDF page %s unreadable: %r", number, exc)
            unreadable.append(number)
            text, lines = "", PageLines()
        page_lines = lines.finish(text)
        if lines.may_hold_a_table():
            page_lines = with_tables(page_lines, _table_rows(page))
        sized.append(page_lines)
        yield PageText(number=number, text=text)
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


def _table_rows(page) -> dict[str, str]:  # noqa: ANN001 - pypdf's PageObject
    """The page's table rows (pdf_tables), read from pypdf's layout mode; none when that
    mode cannot place its text (its plain text is read all the same)."""
    try:
        return table_rows(page.extract_text(extraction_mode="layout") or "")
    except (PyPdfError, IndexError, ZeroDivisionError, *_DAMAGE) as exc:  # a newer pypdf path
        logger.info("PDF page laid out without its tables: %r", exc)
        return {}


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


# -- Pictures and scanned pages beside the text ---------------------------------------------


def _with_pictures(
    reader, pages: list[PageText], languages: str, budget: Budget, details: dict[str, object]
) -> list[PageText]:  # noqa: ANN001 - pypdf's PdfReader
    """Each page's text, then what OCR is sure of in its pictures: a screenshot in a guide
    exported from Word, or a scanned page (a signed annex) among text pages, whose only text
    is its picture's. ``details`` gets how many pictures were read and left, and which pages
    were scanned."""
    pictures = PictureReader(
        label="", languages=languages, limit=budget.max_pages, seconds=budget.max_seconds / 2
    )
    decoded: set[object] = set()  # a logo on every page is one image object: decoded once
    read, scanned = [], []
    for page, text in zip(reader.pages, pages, strict=True):
        found = [
            paragraph
            for picture in _page_pictures(page, decoded)
            for paragraph in pictures.read_text(picture)
        ]
        if found and not _has_words(text.text):
            scanned.append(text.number)
        read.append(PageText(text.number, "\n\n".join([text.text, *map(plain, found)]).strip()))
        if budget.between_pages:
            budget.between_pages()
    details.update(pictures.details())
    if scanned:
        details["scanned_pages"] = scanned
    return read


def _has_words(text: str) -> bool:
    return any(character.isalnum() for character in text)


def _page_pictures(page, decoded: set[object]) -> Iterator[bytes]:  # noqa: ANN001
    """The pictures a page draws that OCR might read, each image object once: checked by
    the size its dictionary declares before pypdf decodes a pixel (icons and images past
    ``MAX_PIXELS`` are not decoded at all). Inline images are small: left out."""
    try:
        if not _holds_pictures(page, set()):
            return  # most pages: no need to parse their drawing a second time
        keys = page.images.keys()
    except (PyPdfError, *_DAMAGE) as exc:
        logger.info("a PDF page's pictures could not be listed: %r", exc)
        return
    # What the page's drawing names with "Do", parsed by pypdf while listing its images: a
    # generator may give every page one shared list of all the document's images.
    drawn = getattr(page, "_content_stream_images", None)
    for key in keys:
        first = key if isinstance(key, str) else key[0]
        if isinstance(drawn, dict) and first not in drawn:
            continue  # listed, but drawn on another page
        image = _image_object(page, key)
        if image is None:
            continue
        identity = image.indirect_reference or id(image)
        pixels = _whole(image.get("/Width")) * _whole(image.get("/Height"))
        if identity in decoded or not MIN_PIXELS <= pixels <= MAX_PIXELS:
            continue
        decoded.add(identity)
        try:
            yield page.images[key].data
        except Exception as exc:  # noqa: BLE001 - pypdf and Pillow raise many types for odd images
            logger.info("a PDF picture pypdf could not decode: %r", exc)


def _holds_pictures(holder, visited: set[object]) -> bool:  # noqa: ANN001 - a page or a form
    """Whether a page's resources (or a form's in them) hold an image of a size OCR might
    read, by the sizes the image dictionaries declare: nothing is parsed or decoded."""
    resources = holder.get("/Resources")
    xobjects = resources.get_object().get("/XObject") if resources is not None else None
    if xobjects is None:
        return False
    for reference in xobjects.get_object().values():
        key = reference if isinstance(reference, IndirectObject) else id(reference)
        if key in visited:  # a form drawing itself: no real file, but one could
            continue
        visited.add(key)
        xobject = reference.get_object()
        if not isinstance(xobject, DictionaryObject):
            continue
        if xobject.get("/Subtype") == "/Image":
            pixels = _whole(xobject.get("/Width")) * _whole(xobject.get("/Height"))
            if MIN_PIXELS <= pixels <= MAX_PIXELS:
                return True
        elif xobject.get("/Subtype") == "/Form" and _holds_pictures(xobject, visited):
            return True
    return False


def _image_object(page, key: str | list[str]) -> DictionaryObject | None:  # noqa: ANN001
    """The image dictionary a key of ``page.images`` names ("/Im0", or ["/Fm0", "/Im1"]
    inside a form), or None for an inline image or one that cannot be found."""
    names = [key] if isinstance(key, str) else list(key)
    holder = page
    try:
        for name in names:
            if name.startswith("~"):  # an inline image
                return None
            holder = holder["/Resources"].get_object()["/XObject"].get_object()[name].get_object()
    except (KeyError, TypeError, AttributeError) as exc:
        logger.info("a PDF picture could not be found: %r", exc)
        return None
    return holder if isinstance(holder, DictionaryObject) else None


def _whole(value: object) -> int:
    try:
        return max(0, int(value))  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return 0


# -- OCR for PDFs without a text layer ----------------------------------------------------------


def _ocr_pages(reader, wanted_languages: str, budget: Budget) -> list[PageText]:  # noqa: ANN001
    languages = ocr.installed_languages(wanted_languages)
    if languages is None:
        raise IngestionError(
            gettext_noop(
                "This PDF has no text layer (it is a scan or its text is drawn as images or "
                "curves), and OCR is not installed on this server. Install Tesseract (Debian: "
                "tesseract-ocr tesseract-ocr-spa tesseract-ocr-por) and retry."
            )
        )
    deadline = budget.deadline()
    pages = []
    for number, page in enumerate(reader.pages, 1):
        pages.append(PageText(number=number, text=plain(_ocr_page(page, languages, deadline))))
        deadline.check(f"page {number}")
    if not any(page.text.strip() for page in pages):
        raise IngestionError(
            gettext_noop(
                "This PDF has no text layer and OCR found no text in it (its text may be drawn "
                "as curves, or it holds no text at all)."
            )
        )
    return pages


def _ocr_page(page, languages: str, deadline: Deadline) -> str:  # noqa: ANN001
    texts = []
    with tempfile.TemporaryDirectory(prefix="pb-ocr-") as tmp:
        for index, image in enumerate(page.images):
            target = Path(tmp) / f"image-{index}.png"
            try:
                image.image.save(target)
            except Exception as exc:  # noqa: BLE001 - Pillow raises many types for odd images
                logger.info("skipping an image pypdf could not decode: %s", exc)
                continue
            texts.append(ocr.read_image(target, languages, deadline))
    return "\n\n".join(texts)
