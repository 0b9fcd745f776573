"""Tesseract, for PDFs without a text layer and for images of documents. It runs as its own
process on one image file at a time, with a time limit."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from django.utils.translation import gettext_noop

from knowledge.extraction.base import Deadline, IngestionError

# A 50-megapixel phone photo is the largest real page image; Pillow's own guard (178 MP)
# would let through images that take minutes to read.
MAX_PIXELS = 50_000_000
# Where Office and OpenDocument files keep their pictures, and the kinds OCR can read there
# (drawings as EMF/WMF/SVG hold no scanned text).
_MEDIA_FOLDERS = ("word/media/", "ppt/media/", "Pictures/")
_PICTURES = (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".gif", ".bmp", ".webp")
IMAGE_SECONDS = 300  # one page image; a 50 MP photo takes ~30 s on one core


def picture_member(name: str) -> bool:
    """Whether an Office or OpenDocument archive's member is a picture OCR can read."""
    return name.startswith(_MEDIA_FOLDERS) and name.lower().endswith(_PICTURES)


def tesseract_languages() -> set[str]:
    binary = shutil.which("tesseract")
    if not binary:
        return set()
    result = subprocess.run(
        [binary, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
    )
    return {line.strip() for line in result.stdout.splitlines()[1:] if line.strip()}


def installed_languages(wanted: str) -> str | None:
    """Tesseract's ``-l`` for the wanted languages it has ("spa+por+eng"); English when it
    has none of them; None when Tesseract is not installed."""
    available = tesseract_languages()
    if not available:
        return None
    return "+".join(lang for lang in wanted.split("+") if lang in available) or "eng"


def read_image(path: Path, languages: str, deadline: Deadline) -> str:
    """The text Tesseract reads in one image file, within the reading's time left (the
    chunk preview's 20 s, where a person waits) and never more than ``IMAGE_SECONDS``."""
    seconds = min(IMAGE_SECONDS, deadline.remaining())
    try:
        result = subprocess.run(
            ["tesseract", str(path), "stdout", "-l", languages],
            capture_output=True,
            text=True,
            timeout=seconds,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise IngestionError(
            gettext_noop(
                "Reading the text of one page image took longer than %(limit)s seconds. Scan "
                "it at a lower resolution (300 dpi is enough) and upload it again."
            ),
            params={"limit": int(seconds)},
        ) from exc
    return result.stdout


@dataclass(frozen=True)
class Word:
    """A word Tesseract read, the paragraph it stands in (block, paragraph) and how sure
    it is."""

    paragraph: tuple[int, int]
    confidence: float
    text: str


def read_words(path: Path, languages: str, seconds: float) -> list[Word] | None:
    """The words Tesseract reads in one image file, in reading order, with its confidence
    in each (0-100); None when it took longer than ``seconds``."""
    try:
        result = subprocess.run(
            ["tesseract", str(path), "stdout", "-l", languages, "tsv"],
            capture_output=True,
            text=True,
            timeout=seconds,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    # Tesseract's TSV: level, page, block, paragraph, line, word, box, conf, text; a
    # word is level 5. A text holding a quote or a tab is not quoted: split on tabs only.
    words = []
    for row in result.stdout.splitlines()[1:]:
        fields = row.split("\t")
        if len(fields) == 12 and fields[0] == "5" and fields[11].strip():
            try:
                confidence = float(fields[10])
                paragraph = (int(fields[2]), int(fields[3]))
            except ValueError:
                continue
            words.append(Word(paragraph, confidence, fields[11].strip()))
    return words
