"""What reading pictures costs: each file extracted with its pictures read (by OCR where
they stand) and with descriptions only, best of ``--repeats``, side by side."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any
from unittest import mock

from django.core.management.base import BaseCommand, CommandError, CommandParser

from knowledge.extraction import Budget, detect_kind, extract, ocr


class Command(BaseCommand):
    help = "Extraction time of documents with their pictures read, and without."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path)
        parser.add_argument("--repeats", type=int, default=3)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        rows = [self._measure(path, options["repeats"]) for path in options["files"]]
        if options["json"]:
            self.stdout.write(json.dumps({"files": rows}))
            return
        for row in rows:
            self.stdout.write(
                f"{row['file']}: {row['with_pictures_s']} s with pictures, "
                f"{row['without_s']} s without ({row['ratio']}×); {row['details']}"
            )

    def _measure(self, path: Path, repeats: int) -> dict[str, object]:
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        with path.open("rb") as file:
            kind = detect_kind(file, path.name, max_unpacked_bytes=100 * 1024 * 1024)
        budget = Budget(max_pages=2000, max_content_bytes=10**9, max_seconds=900)

        def read() -> dict[str, object]:
            return extract(
                path, kind, password="", budget=budget, ocr_languages="spa+por+eng"
            ).details

        details = read()
        with_pictures = min(_seconds(read) for _ in range(repeats))
        # Without: the PDF reader and the picture reader find no Tesseract (a scanned PDF
        # then fails: measure documents with text).
        with mock.patch.object(ocr, "installed_languages", return_value=None):
            without = min(_seconds(read) for _ in range(repeats))
        return {
            "file": path.name,
            "with_pictures_s": round(with_pictures, 2),
            "without_s": round(without, 2),
            "ratio": round(with_pictures / without, 2),
            "details": details,
        }


def _seconds(work: Any) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started
