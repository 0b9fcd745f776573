"""Pictures beside a document's text, read where they stand: the description its author
wrote for readers who cannot see it (alt text), and the text OCR finds in a screenshot, a
scanned notice or a table pasted as a picture. A photo read by OCR gives noise ("pra ™
mx"), so a picture's text is kept only when Tesseract is sure of enough of its words.

Word, PowerPoint and OpenDocument readers call ``PictureReader.write`` at each picture, the
PDF reader ``read_text`` for each page's. A document with no text at all is read by
``images.extract_pictures`` instead, every picture as a page."""

from __future__ import annotations

import hashlib
import io
import logging
import re
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path

from PIL import Image, ImageOps, UnidentifiedImageError

from knowledge.extraction import ocr
from knowledge.extraction.archives import DAMAGED_ARCHIVE
from knowledge.extraction.base import Budget, Outline, one_line
from knowledge.extraction.ocr import MAX_PIXELS, picture_member

logger = logging.getLogger(__name__)

# Smaller than this is an icon, a bullet or a logo: no sentence fits in it.
MIN_PIXELS = 20_000
MIN_SIDE = 16
# A word Tesseract is sure of (0-100), and how many a picture needs to be text: clean
# screenshot text reads at 90+, a photo's shapes at 30-60 with one or two "words" above 70.
SURE = 70
KEPT = 50  # a word below this in a picture that is text is a speck or an icon: left out
ENOUGH_WORDS = 5
FEW_WORDS_IF_ALL_SURE = 2  # a short banner ("Horario de verano") when all of it reads sure

# Office writes a description it generated itself ("Text, letter. Description automatically
# generated"): a guess at the picture, not its author's words.
_GENERATED_ALT = re.compile(
    r"(description|descripción|descrição)\s+(automatically\s+generated|generated|generada|gerada)",
    re.IGNORECASE,
)
_FILE_NAME = re.compile(
    r"^\S+\.(png|jpe?g|gif|bmp|tiff?|emf|wmf|svg|webp|heic)$", re.IGNORECASE
)  # what a program fills in when nobody wrote a description


def has_pictures(path: Path) -> bool:
    """Whether an Office or OpenDocument file keeps any picture OCR could read."""
    try:
        with zipfile.ZipFile(path) as archive:
            return any(picture_member(name) for name in archive.namelist())
    except DAMAGED_ARCHIVE:
        return False


@dataclass
class PictureReader:
    """Reads the pictures of one document as its reader meets them. Pictures get half of
    the document's reading time, so the text after them is always read; those left when
    it is spent, or past ``limit``, are counted as not read. A picture repeated (a logo on
    every slide) is read once."""

    label: str  # "Picture", in the deployment's language: before an author's description
    languages: str | None  # Tesseract's -l; None: descriptions only (or it is not installed)
    limit: int
    seconds: float
    archive: Path | None = None  # an OpenDocument file, whose pictures are named by path
    started: float = field(default_factory=time.monotonic)
    seen: set[str] = field(default_factory=set)
    tried: int = 0  # pictures given to OCR
    read: int = 0  # pictures whose text was kept
    unread: int = 0  # left for lack of time or past the limit

    @classmethod
    def descriptions_only(cls, label: str) -> PictureReader:
        """Reads what authors wrote about their pictures, and no picture."""
        return cls(label=label, languages=None, limit=0, seconds=0)

    @classmethod
    def for_document(
        cls, path: Path, label: str, budget: Budget, ocr_languages: str
    ) -> PictureReader:
        return cls(
            label=label,
            languages=ocr.installed_languages(ocr_languages),
            limit=budget.max_pages,
            seconds=budget.max_seconds / 2,
            archive=path,
        )

    def write(self, outline: Outline, picture: bytes | None, description: str = "") -> None:
        """A picture's description, then the text OCR reads in it, as paragraphs."""
        for paragraph in self.texts(picture, description):
            outline.paragraph(paragraph)

    def texts(self, picture: bytes | None, description: str = "") -> list[str]:
        """A picture's description ("Picture: …"), then the paragraphs OCR reads in it."""
        described = authored(description)
        return [f"{self.label}: {described}"] * bool(described) + self.read_text(picture)

    def read_text(self, picture: bytes | None) -> list[str]:
        """The paragraphs OCR is sure of in a picture; none for one already read."""
        if picture is None or self.languages is None:
            return []
        digest = hashlib.sha256(picture).hexdigest()
        if digest in self.seen:
            return []
        self.seen.add(digest)
        return self._text(picture)

    def member(self, name: str) -> bytes | None:
        """An OpenDocument picture's bytes by its path in the archive ("Pictures/1.png")."""
        if self.archive is None or not picture_member(name):
            return None
        try:
            with zipfile.ZipFile(self.archive) as archive:
                return archive.read(name)
        except (KeyError, *DAMAGED_ARCHIVE) as exc:
            logger.info("picture %s missing or damaged in a document: %r", name, exc)
            return None

    def details(self) -> dict[str, object]:
        return {"pictures_read": self.read, "pictures_unread": self.unread}

    def _text(self, picture: bytes) -> list[str]:
        left = self.started + self.seconds - time.monotonic()
        if self.tried >= self.limit or left < 1:
            self.unread += 1
            return []
        self.tried += 1
        try:
            words = _ocr_words(picture, self.languages or "eng", left)
        except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
            logger.info("unreadable picture in a document: %r", exc)
            return []  # a vector drawing or a damaged picture: the rest is still read
        if words is None:
            self.unread += 1
            return []
        paragraphs = text_paragraphs(words)
        self.read += bool(paragraphs)
        return paragraphs


def authored(description: str) -> str:
    """A picture's description as its author wrote it; "" for one a program filled in."""
    text = one_line(description)
    if _GENERATED_ALT.search(text) or _FILE_NAME.match(text):
        return ""
    return text


def _ocr_words(picture: bytes, languages: str, seconds: float) -> list[ocr.Word] | None:
    """Tesseract's words in a picture; [] for one too small to hold a sentence or too large
    to read, None when out of time."""
    with Image.open(io.BytesIO(picture)) as image:
        pixels = image.width * image.height
        if pixels < MIN_PIXELS or min(image.size) < MIN_SIDE or pixels > MAX_PIXELS:
            return []
        upright = ImageOps.exif_transpose(image).convert("L")
    with tempfile.TemporaryDirectory(prefix="pb-ocr-") as tmp:
        target = Path(tmp) / "picture.png"
        upright.save(target)
        return ocr.read_words(target, languages, seconds)


def text_paragraphs(words: list[ocr.Word]) -> list[str]:
    """The picture's paragraphs as Tesseract found them, without the words it was unsure
    of; none when too few words read sure for the picture to be text."""
    sure = [w for w in words if w.confidence >= SURE and sum(map(str.isalnum, w.text)) >= 3]
    all_sure = bool(words) and all(w.confidence >= SURE for w in words)
    if len(sure) < ENOUGH_WORDS and not (all_sure and len(sure) >= FEW_WORDS_IF_ALL_SURE):
        return []
    paragraphs = []
    for _, in_paragraph in groupby(words, key=lambda w: w.paragraph):
        kept = [w.text for w in in_paragraph if w.confidence >= KEPT]
        if text := " ".join(kept):
            paragraphs.append(text)
    return paragraphs
