"""Tesseract, for PDFs without a text layer and for images of documents. It runs as its own
process on one image file at a time, with a time limit."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from django.utils.translation import gettext_noop

from knowledge.extraction.base import Deadline, IngestionError

IMAGE_SECONDS = 300  # one page image; a 50 MP photo takes ~30 s on one core


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
