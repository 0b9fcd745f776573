"""Images of documents — a scan, a photo of a notice (an iPhone's HEIC too), a screenshot —
read by OCR. Each frame of a multi-page TIFF is a page. The size is read from the header
before any pixel is decoded, so a small file that would decode to gigapixels is refused at
once."""

from __future__ import annotations

import io
import logging
import re
import tempfile
import zipfile
from pathlib import Path
from typing import IO

from django.utils.translation import gettext_noop
from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError
from pillow_heif import register_heif_opener

from knowledge.extraction import ocr
from knowledge.extraction.archives import DAMAGED_ARCHIVE
from knowledge.extraction.base import (
    Budget,
    Deadline,
    Extraction,
    IngestionError,
    Outline,
    PageText,
    stored_file_missing,
)
from knowledge.extraction.ocr import MAX_PIXELS, picture_member

logger = logging.getLogger(__name__)
register_heif_opener()  # Pillow then opens an iPhone's HEIC photos like any other image


def check_image(file: IO[bytes]) -> None:
    """At upload, without decoding a pixel: an image Pillow can open, of a size OCR can
    read, whose structure is whole (``verify`` checks a PNG's chunks and their checksums)."""
    try:
        with Image.open(file) as image:
            _check_size(image.width * image.height, 1, None)
            image.verify()
    except Image.DecompressionBombError as exc:
        raise _too_large(_pixels_named_in(exc)) from exc
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise _damaged(exc) from exc
    finally:
        file.seek(0)


def extract_image(path: Path, *, budget: Budget, ocr_languages: str) -> Extraction:
    if not path.exists():
        raise stored_file_missing(path)
    languages = ocr.installed_languages(ocr_languages)
    if languages is None:
        raise IngestionError(
            gettext_noop(
                "Images are read by OCR, which is not installed on this server. Install "
                "Tesseract (Debian: tesseract-ocr tesseract-ocr-spa tesseract-ocr-por) and retry."
            )
        )
    try:
        pages = _ocr_frames(path, languages, budget, budget.deadline())
    except _UNREADABLE as exc:
        logger.info("unreadable image %s: %r", path.name, exc)
        raise _damaged(exc) from exc
    if not any(page.text.strip() for page in pages):
        raise IngestionError(
            gettext_noop(
                "OCR found no text in this image. If it shows text, upload a sharper, straight "
                "scan or photo (300 dpi, the page filling the picture)."
            )
        )
    return Extraction(pages, len(pages), {"ocr": True, "frames": len(pages)})


def extract_pictures(path: Path, *, budget: Budget, ocr_languages: str) -> Extraction | None:
    """A Word, PowerPoint or OpenDocument file with no text but pictures (a scan pasted into
    Word, photos of notices on slides): each picture read by OCR, in the order the file
    numbers them, like a scanned PDF's pages. None when it holds no picture."""
    with zipfile.ZipFile(path) as archive:
        names = sorted(filter(picture_member, archive.namelist()), key=_natural)
        if not names:
            return None
        languages = ocr.installed_languages(ocr_languages)
        if languages is None:
            raise IngestionError(
                gettext_noop(
                    "This document's text is only in pictures, which are read by OCR, and OCR is "
                    "not installed on this server. Install Tesseract (Debian: tesseract-ocr "
                    "tesseract-ocr-spa tesseract-ocr-por) and retry."
                )
            )
        if len(names) > budget.max_pages:
            raise IngestionError(
                gettext_noop(
                    "This document's text is only in its %(count)s pictures; at most %(limit)s "
                    "are read. Split it and upload the parts."
                ),
                params={"count": len(names), "limit": budget.max_pages},
            )
        deadline, texts = budget.deadline(), []  # one reading time for all its pictures
        for name in names:
            texts.append(_read_picture(_member(archive, name), languages, budget, deadline))
            deadline.check(name)
    if not any(text.strip() for text in texts):
        raise IngestionError(
            gettext_noop(
                "This document has no text, only pictures, and OCR found no text in them. If "
                "they show text, paste sharper, straight scans (300 dpi) or upload them as images."
            )
        )
    return Extraction(
        [PageText(None, text) for text in texts], None, {"ocr": True, "pictures": len(names)}
    )


def _member(archive: zipfile.ZipFile, name: str) -> bytes:
    """A picture's bytes, or none when its part is damaged: the others are still read."""
    try:
        return archive.read(name)
    except DAMAGED_ARCHIVE as exc:
        logger.info("damaged picture %s in a document: %r", name, exc)
        return b""


def _read_picture(data: bytes, languages: str, budget: Budget, deadline: Deadline) -> str:
    try:
        pages = _ocr_frames(io.BytesIO(data), languages, budget, deadline)
    except _UNREADABLE as exc:
        logger.info("unreadable picture in a document: %r", exc)
        return ""  # one broken picture among others: the rest are still read
    outline = Outline()  # paragraphs as in the picture, a "#" it reads not taken as a heading
    for page in pages:
        for paragraph in re.split(r"\n\s*\n", page.text):
            outline.paragraph(paragraph)
    return outline.text()


def _natural(name: str) -> list[object]:
    """ "image10.png" after "image9.png"."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _damaged(exc: Exception) -> IngestionError:
    return IngestionError(
        gettext_noop(
            "This image is damaged or incomplete, so it cannot be read. Save it again (PNG or "
            "JPEG) and upload that copy."
        ),
        extra={"technical": str(exc)},
    )


def _pixels_named_in(exc: Image.DecompressionBombError) -> int:
    """Past Pillow's own guard, at open: its message holds the pixel count."""
    pixels = re.search(r"\d+", str(exc))
    return int(pixels.group()) if pixels else MAX_PIXELS + 1


def _too_large(pixels: int) -> IngestionError:
    return IngestionError(
        gettext_noop(
            "This image is %(megapixels)s megapixels; the limit is %(limit)s. Scale it down "
            "(a page needs about 9 megapixels at 300 dpi) and upload it again."
        ),
        params={"megapixels": pixels // 1_000_000, "limit": MAX_PIXELS // 1_000_000},
    )


def _check_size(pixels: int, frames: int, budget: Budget | None) -> None:
    if pixels > MAX_PIXELS:
        raise _too_large(pixels)
    if budget is not None and frames > budget.max_pages:
        raise IngestionError(
            gettext_noop(
                "This image holds %(count)s pages; the limit is %(limit)s. Split it and upload "
                "the parts."
            ),
            params={"count": frames, "limit": budget.max_pages},
        )


_UNREADABLE = (UnidentifiedImageError, OSError, ValueError)


def _ocr_frames(
    source: Path | IO[bytes], languages: str, budget: Budget, deadline: Deadline
) -> list[PageText]:
    """Each frame of an image read by OCR, its size checked first; an image Pillow cannot
    read raises one of ``_UNREADABLE``."""
    try:
        with Image.open(source) as image:
            frames = getattr(image, "n_frames", 1)
            _check_size(image.width * image.height, frames, budget)
            return _read_frames(image, frames, languages, deadline)
    except Image.DecompressionBombError as exc:
        raise _too_large(_pixels_named_in(exc)) from exc


def _read_frames(
    image: Image.Image, frames: int, languages: str, deadline: Deadline
) -> list[PageText]:
    pages = []
    with tempfile.TemporaryDirectory(prefix="pb-ocr-") as tmp:
        for number, frame in enumerate(ImageSequence.Iterator(image), 1):
            _check_size(frame.width * frame.height, 1, None)  # each TIFF page has its own size
            # A phone stores a photo sideways with an orientation tag: read it upright.
            upright = ImageOps.exif_transpose(frame).convert("L")
            target = Path(tmp) / f"page-{number}.png"
            upright.save(target)
            text = ocr.read_image(target, languages, deadline)
            pages.append(PageText(number if frames > 1 else None, text))
            deadline.check(f"page {number}")
    return pages
