"""manage.py ingest PATH... — bulk-load files through the same pipeline as uploads; a
directory stands for the files under it."""

from __future__ import annotations

import json
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection

from knowledge import ingestion, reingestion, selectors, uploads, vector_sync
from knowledge.chunk_options import ChunkOptions
from knowledge.management.scope import license_or_global
from knowledge.models import (
    Document,
    DocumentStatus,
    FileKind,
    Language,
    Redaction,
    SourceType,
    SplitMode,
)
from knowledge.search import sentence_vectors
from licenses.models import License
from web.exceptions import ApplicationError


class Command(BaseCommand):
    help = (
        "Ingest documents — PDF, DOCX, DOC, PPTX, PPT, XLSX, XLS, ODT, ODS, ODP, EPUB, RTF, HTML, "
        "CSV, EML, TXT, MD and images of pages (PNG, JPEG, TIFF, WebP, HEIC) — in this process with a "
        "progress bar, or --async to queue. A directory stands for every file under it (hidden "
        "ones skipped). --again queues those already ingested to be read again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="*", type=Path, help="files or directories")
        parser.add_argument(
            "--license", dest="machine_id", help="machine_id of the license; global when omitted"
        )
        parser.add_argument("--source-type", default=SourceType.OTHER, choices=SourceType.values)
        parser.add_argument("--language", default=Language.AUTO, choices=Language.values)
        parser.add_argument("--password", default="", help="password of encrypted PDFs")
        parser.add_argument(
            "--redaction",
            default=Redaction.DEFAULT,
            choices=Redaction.values,
            help="personal data: the scope's policy (default), keep_contacts (the "
            "organisation's allow-listed e-mails and phones stay), all, or none",
        )
        parser.add_argument(
            "--chunk-size",
            type=int,
            help="tokens per chunk (default: the scope's, else the type's)",
        )
        parser.add_argument("--chunk-overlap", type=int, help="tokens shared by consecutive chunks")
        parser.add_argument(
            "--split",
            choices=SplitMode.values,
            help="structure (headings, paragraphs, sentences) or fixed (windows of tokens)",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="a file named as an uploaded document of the scope is its new version, in "
            "its place (its options kept); without it, another document",
        )
        parser.add_argument("--json", action="store_true", help="one JSON line per file")
        parser.add_argument(
            "--async", dest="run_async", action="store_true", help="queue for the workers"
        )
        parser.add_argument(
            "--retry-stuck", action="store_true", help="requeue documents stuck in processing"
        )
        parser.add_argument(
            "--again",
            action="store_true",
            help="queue the ready documents already ingested to be read again (after an "
            "upgrade that reads more of their format): every scope's, or --license's",
        )
        parser.add_argument(
            "--kind",
            action="append",
            default=[],
            choices=FileKind.values,
            help="with --again: only documents of this kind (repeatable)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["again"]:
            self._read_again(options)
            return
        if options["kind"]:
            raise CommandError("--kind chooses the documents --again reads again.")
        if options["retry_stuck"]:
            requeued = reingestion.documents_requeue_stuck()
            self.stdout.write(f"Requeued {len(requeued)} stuck document(s).")
            if not options["paths"]:
                return
        if not options["paths"]:
            raise CommandError("Give at least one file to ingest (or --retry-stuck).")
        license = license_or_global(options["machine_id"])
        files = files_under(options["paths"])
        if not files:
            raise CommandError("No files to ingest: the directories given are empty.")
        outcomes = [self._ingest_one(path, license, options) for path in files]
        if any(outcome["status"] == DocumentStatus.FAILED for outcome in outcomes):
            sys.exit(1)

    def _read_again(self, options: dict[str, Any]) -> None:
        if options["paths"]:
            raise CommandError("--again reads again the documents already ingested: give no files.")
        machine_id = options["machine_id"]
        queued = reingestion.documents_read_again(
            kinds=options["kind"],
            license=license_or_global(machine_id) if machine_id else None,
            every_scope=not machine_id,
        )
        self.stdout.write(
            f"Queued {len(queued)} document(s) to be read again; the workers read them in the "
            "background (their chunks stay searchable meanwhile)."
        )

    def _ingest_one(
        self, path: Path, license: License | None, options: dict[str, Any]
    ) -> dict[str, Any]:
        outcome: dict[str, Any] = {
            "file": str(path),
            "document_id": None,
            "status": DocumentStatus.FAILED,
            "chunks": 0,
            "duplicate_chunks_skipped": 0,
            "error": "",
            "duplicate": False,
            "kind": None,
            "split": None,
            "chunk_size": None,
            "chunk_overlap": None,
        }
        try:
            creation, replaced = self._create(path, license, options)
            document = creation.document
            outcome["document_id"] = str(document.pk)
            outcome.update(
                kind=document.kind,
                split=document.split,
                chunk_size=document.chunk_size,
                chunk_overlap=document.chunk_overlap,
            )
            if not creation.created:  # the same bytes are already in this scope
                outcome.update(duplicate=True, duplicate_of=document.filename)
            if replaced:
                outcome["new_version_of"] = replaced
            if not options["run_async"] and not document.is_finished:
                document = self._run_with_progress(document, quiet=options["json"])
            outcome.update(
                status=document.status,
                chunks=document.chunk_count,
                error=document.error,
                duplicate_chunks_skipped=document.metadata.get("duplicate_chunks_skipped", 0),
            )
        except ApplicationError as exc:
            outcome["error"] = exc.message
        except OSError as exc:  # the file, not the product: missing, unreadable
            outcome["error"] = f"cannot be read: {exc.strerror or exc}"
        if not options["run_async"] and outcome["status"] == DocumentStatus.READY:
            outcome.update(self._sentences(outcome["document_id"]))
        self._report(outcome, as_json=options["json"])
        return outcome

    def _sentences(self, document_id: str) -> dict[str, Any]:
        """The sentence pass the worker runs after an upload, here in this process. The
        document is searchable already; if this fails, the worker's catch-up does it."""
        try:
            return {
                "sentence_groups": sentence_vectors.document_embed_sentences(
                    document_id=document_id
                )
            }
        except ApplicationError as exc:
            return {"sentence_groups": 0, "sentence_error": exc.message}

    def _create(
        self, path: Path, license: License | None, options: dict[str, Any]
    ) -> tuple[uploads.DocumentCreation, str]:
        """The new document, or with --replace the document of the same name that takes the
        file as its new version (and the name it had)."""
        with open(path, "rb") as handle:
            namesake = self._namesake(path, license, options) if options["replace"] else None
            if namesake and namesake.sha256 != uploads.file_sha256(handle):
                name = namesake.filename  # the call below reads the document again
                document = reingestion.document_new_version(
                    document=namesake,
                    file=handle,
                    filename=path.name,
                    pdf_password=options["password"],
                    enqueue=options["run_async"],
                )
                return uploads.DocumentCreation(document=document, created=True), name
            creation = uploads.document_create(
                file=handle,
                filename=path.name,
                license=license,
                source_type=options["source_type"],
                language=options["language"],
                pdf_password=options["password"],
                redaction=options["redaction"],
                chunking=ChunkOptions(
                    size=options["chunk_size"],
                    overlap=options["chunk_overlap"],
                    split=options["split"] or "",
                ),
                enqueue=options["run_async"],
            )
            return creation, ""

    def _namesake(
        self, path: Path, license: License | None, options: dict[str, Any]
    ) -> Document | None:
        """The scope's uploaded document shown under this file's name, as uploaded."""
        shown = uploads.shown_filename(path.name, license, options["redaction"])
        return selectors.document_named(license=license, filename=shown)

    def _run_with_progress(self, document: Document, *, quiet: bool) -> Document:
        done = threading.Event()
        # A bar redrawn with "\r" is for a person at a terminal; in a pipe or a log it is noise.
        drawing = None
        if not quiet and self.stderr.isatty():
            drawing = threading.Thread(
                target=self._draw_progress, args=(document.pk, done), daemon=True
            )
            drawing.start()
        try:
            result = ingestion.document_ingest(document_id=document.pk)
            vector_sync.send_now(f"document {document.pk}")  # as the worker does
        except Exception as exc:
            ingestion.document_mark_crashed(document_id=document.pk, error=exc)
            result = None
        finally:
            done.set()
            if drawing:
                drawing.join()  # the bar is wiped before the file's line is written
        return result or Document.objects.get(pk=document.pk)

    def _draw_progress(self, document_id: uuid.UUID, done: threading.Event) -> None:
        try:
            while not done.wait(0.5):
                row = Document.objects.filter(pk=document_id).values("progress", "stage").first()
                if row:
                    bar = "#" * (row["progress"] // 4)
                    self.stderr.write(
                        f"\r  [{bar:<25}] {row['progress']:3d}% {row['stage']:<12}", ending=""
                    )
            self.stderr.write("\r" + " " * 60 + "\r", ending="")
        finally:
            connection.close()

    def _report(self, outcome: dict[str, Any], *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(outcome, ensure_ascii=False))
        elif outcome["status"] == DocumentStatus.FAILED:
            self.stdout.write(self.style.ERROR(f"{outcome['file']}: failed — {outcome['error']}"))
        elif outcome["duplicate"]:
            self.stdout.write(
                f"{outcome['file']}: duplicate of {outcome['duplicate_of']} in this scope "
                f"({outcome['status']}), not stored again"
            )
        else:
            chunks = outcome["chunks"]
            version = (
                f" (new version of {outcome['new_version_of']})"
                if "new_version_of" in outcome
                else ""
            )
            # "ready, 0 chunks" read as a failure: its passages were all in the scope already.
            shared = outcome["duplicate_chunks_skipped"]
            skipped = f" ({shared} already in this scope, not stored again)" if shared else ""
            self.stdout.write(
                f"{outcome['file']}{version}: {outcome['status']}, "
                f"{chunks} chunk{'s' if chunks != 1 else ''}{skipped}"
            )


def files_under(paths: list[Path]) -> list[Path]:
    """Each path as given, a directory standing for the files under it, in name order:
    hidden files and directories (".git", ".DS_Store") are not knowledge."""
    files: list[Path] = []
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        files.extend(
            sorted(
                found
                for found in path.rglob("*")
                if found.is_file()
                and not any(part.startswith(".") for part in found.relative_to(path).parts)
            )
        )
    return files
