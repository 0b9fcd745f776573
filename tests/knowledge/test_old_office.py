"""Old Word and PowerPoint files (.doc, .ppt), converted by a real LibreOffice and read as
their .docx and .pptx copies are; refused at upload, with what to do, where LibreOffice is
not installed or is switched off; a converter that hangs is killed with its helpers."""

from __future__ import annotations

import io
import shutil
import time
from pathlib import Path

import olefile
import pytest

from knowledge import uploads
from knowledge.extraction import Budget, IngestionError, convert, extract
from knowledge.models import Document, DocumentStatus, FileKind
from tests.factories import make_document
from tests.knowledge.test_formats import found, kind_of
from tests.website import Website

DOCUMENTS = Path(__file__).parents[1] / "data" / "documents"
BUDGET = Budget(max_pages=2000, max_content_bytes=10**8, max_seconds=120)


def read(path: Path, kind: str):
    return extract(path, kind, password="", budget=BUDGET, ocr_languages="eng")


@pytest.mark.parametrize(
    ("old", "kind", "new"),
    [("old.doc", FileKind.DOC, "handbook.docx"), ("normas.ppt", FileKind.PPT, "normas.pptx")],
)
def test_an_old_file_reads_as_its_new_copy(old, kind, new):
    """``old.doc`` is ``handbook.docx`` and ``normas.ppt`` is ``normas.pptx``, saved by
    LibreOffice in the old formats: headings, lists, notes, tables and a hidden slide."""
    assert kind_of((DOCUMENTS / old).read_bytes(), f"sin-extension-{old}.bin") == kind
    converted = read(DOCUMENTS / old, kind)
    original = read(DOCUMENTS / new, new.rsplit(".", 1)[1])
    assert converted.pages[0].text == original.pages[0].text
    assert converted.details == {**original.details, "converted_by": "LibreOffice"}


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_an_uploaded_doc_is_searchable_under_its_headings():
    document = make_document((DOCUMENTS / "old.doc").read_bytes(), filename="manual.doc")

    assert document.status == DocumentStatus.READY, document.error
    assert document.kind == FileKind.DOC and document.get_kind_display() == "Word 97–2003"
    top = found("oficina agosto")[0]
    assert top.heading == "Manual de la oficina > Horario de verano" and "15:00" in top.content


@pytest.mark.django_db
def test_without_libreoffice_an_old_file_is_refused_at_upload_with_what_to_do(settings):
    settings.KNOWLEDGE_LIBREOFFICE = "off"
    with pytest.raises(IngestionError, match=r"LibreOffice is not installed.*\.docx or \.pptx"):
        uploads.document_create(
            file=io.BytesIO((DOCUMENTS / "old.doc").read_bytes()),
            filename="manual.doc",
            license=None,
            enqueue=False,
        )
    assert not Document.objects.exists()


def test_a_doc_libreoffice_cannot_convert_gets_a_sentence(tmp_path):
    broken = tmp_path / "roto.doc"
    shutil.copyfile(DOCUMENTS / "old.doc", broken)
    ole = olefile.OleFileIO(str(broken), write_mode=True)
    ole.write_stream("WordDocument", b"\xff" * ole.get_size("WordDocument"))
    ole.close()

    with pytest.raises(IngestionError, match="could not convert.*damaged or password-protected"):
        read(broken, FileKind.DOC)


def test_a_hung_converter_is_killed_with_its_helpers(tmp_path):
    """LibreOffice starts helper processes (oosplash, soffice.bin): when the time is up the
    whole process group is killed, not only the one started."""
    helper_pid = tmp_path / "helper.pid"
    hanging = tmp_path / "soffice"
    hanging.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {helper_pid}\nsleep 300\n")
    hanging.chmod(0o755)

    started = time.monotonic()
    with pytest.raises(IngestionError, match="took longer than 1 seconds"):
        convert._run(str(hanging), DOCUMENTS / "old.doc", "docx", tmp_path, 1)
    assert time.monotonic() - started < 10
    status = Path(f"/proc/{int(helper_pid.read_text())}/status")
    time.sleep(0.2)
    # gone, or dead and waiting for its new parent (init) to collect it
    assert not status.exists() or "State:\tZ" in status.read_text()


def test_a_linked_picture_is_not_fetched_while_converting(tmp_path):
    """LibreOffice fetched a linked picture's URL as it converted: an uploaded .doc could make
    the worker request any address it reaches. ``linked-picture.doc`` links one on a local
    site (its port written into the file here); nothing may reach it."""
    site = Website()
    server = site.start()
    try:
        port = str(site.port)
        assert len(port) == 5  # written over the file's "18765", byte for byte
        data = (DOCUMENTS / "linked-picture.doc").read_bytes()
        for encoding in ("ascii", "utf-16-le"):
            data = data.replace("18765".encode(encoding), port.encode(encoding))
        path = tmp_path / "enlazada.doc"
        path.write_bytes(data)

        extraction = read(path, FileKind.DOC)
    finally:
        server.shutdown()
    assert "Texto con una imagen enlazada." in extraction.pages[0].text
    assert site.paths_requested() == []
