"""E-mail messages (.eml): subject, who wrote to whom, the text, and each attachment read as
the same file uploaded alone."""

from __future__ import annotations

import io
from email.message import EmailMessage

import pytest
from PIL import Image

from knowledge.extraction import Budget, IngestionError, detect_kind, extract
from knowledge.extraction.mail import MAX_ATTACHMENTS, TOO_MANY
from knowledge.models import DocumentStatus, FileKind
from tests.documents import DOCUMENTS
from tests.factories import as_owner, make_document

BUDGET = Budget(max_pages=2000, max_content_bytes=10**8, max_seconds=60)


def text_of(data: bytes, tmp_path) -> tuple[str, dict]:
    path = tmp_path / "m.eml"
    path.write_bytes(data)
    extraction = extract(path, "eml", password="", budget=BUDGET, ocr_languages="spa+eng")
    (page,) = extraction.pages
    return page.text, extraction.details


def message(
    subject: str = "Reunión de vecinos", text: str = "La reunión es el martes."
) -> EmailMessage:
    built = EmailMessage()
    built["Subject"] = subject
    built["From"] = "Ana <ana@example.org>"
    built["To"] = "vecinos@example.org"
    built["Date"] = "Fri, 27 Nov 2026 09:30:00 +0000"
    built.set_content(text)
    return built


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_a_saved_message_is_searchable_with_its_attachments_under_their_names():
    """``aviso.eml``: text and HTML, a PDF with headings, a sheet, a logo, an encrypted PDF."""
    document = make_document((DOCUMENTS / "aviso.eml").read_bytes(), filename="aviso.eml")

    assert document.status == DocumentStatus.READY, document.error
    assert document.kind == FileKind.EML
    chunks = {chunk.heading: chunk.content for chunk in document.chunks.all()}
    subject = "Horario de la piscina en diciembre"
    assert "abre de 7:00 a 21:00, también los festivos" in chunks[subject]
    assert "[EMAIL]" in chunks[subject] and "administracion@" not in chunks[subject]
    pdf = f"{subject} > Attachment: manual-oficina.pdf > Manual de la oficina > Horario de verano"
    assert "cierra a las 15:00" in chunks[pdf]
    sheet = f"{subject} > Attachment: tarifas.xlsx > Sheet: tarifas"
    assert "Servicio: Revisión · Tarifa: 0.03" in chunks[sheet]
    assert document.metadata["attachments_read"] == ["manual-oficina.pdf", "tarifas.xlsx"]
    ((name, why),) = document.unread_attachments
    assert name == "acta-cifrada.pdf" and "upload it on its own, with its password" in why
    assert not any("logo" in heading for heading in chunks)  # a logo holds nothing to read


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_the_document_page_names_the_attachments_personal_data_redacted(client, django_user_model):
    as_owner(django_user_model.objects.create_user("admin", password="pw", is_staff=True))
    client.force_login(django_user_model.objects.get(username="admin"))
    built = message()
    built.add_attachment(
        b"Cuota: 30 euros.", maintype="text", subtype="plain", filename="maria.lopez@gmail.com.txt"
    )
    built.add_attachment(
        b"\x7fELF", maintype="application", subtype="octet-stream", filename="tool.bin"
    )
    document = make_document(bytes(built), filename="aviso.eml")

    page = client.get(f"/knowledge/{document.pk}/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "1 adjunto leído" in page and "[EMAIL].txt" in page
    assert "tool.bin: Este archivo es un programa" in page
    assert "maria.lopez" not in page
    assert "maria.lopez" not in " ".join(document.chunks.values_list("heading", flat=True))


def test_an_html_message_reads_its_table_rows_with_their_headers(tmp_path):
    built = message()
    built.set_content(
        "<h2>Turnos</h2><table><tr><th>Día</th><th>Socorrista</th></tr>"
        "<tr><td>Lunes</td><td>Marta</td></tr></table>",
        subtype="html",
    )
    text, _ = text_of(bytes(built), tmp_path)

    assert "## Turnos" in text and "Día: Lunes · Socorrista: Marta" in text


def test_a_plain_message_s_section_titles_are_headings(tmp_path):
    """A title line over its section's lines is a heading, not the start of a sentence
    («Term dates Autumn term runs…» was quoted so); a greeting, a line ending with a stop
    and a paragraph of one line are not titles."""
    built = message(
        "Welcome back",
        "Dear parents and carers,\nwelcome back.\n\nTerm dates\nAutumn term runs from"
        " 3 September.\nHalf term is in October.\n\nSchool dinners\n\nBest wishes,\nMrs Okafor",
    )
    text, _ = text_of(bytes(built), tmp_path)

    assert "\n\n## Term dates\n\nAutumn term runs from 3 September. Half term is in October." in (
        text
    )
    assert "Dear parents and carers, welcome back." in text
    assert "\n\nSchool dinners\n\n" in text and "Best wishes, Mrs Okafor" in text


def test_a_plain_stub_beside_the_html_that_says_it_all_is_not_the_body(tmp_path):
    """A newsletter's plain part said "Versión en texto: consulta el boletín en HTML.", and
    that was all of it the knowledge held: its workshops, concerts and hours were in the
    HTML beside it. A plain part saying as much as the HTML is still the one read."""
    stub = message("Boletín de diciembre", "Versión en texto: consulta el boletín en HTML.")
    stub.add_alternative(
        "<h3>Talleres</h3><ul><li><b>Cerámica</b>: martes de 18:00 a 20:00, 45 € al mes.</li>"
        "<li><b>Teatro infantil</b>: sábados de 11:00 a 12:30.</li></ul>",
        subtype="html",
    )
    text, _ = text_of(bytes(stub), tmp_path)
    assert "- Cerámica: martes de 18:00 a 20:00, 45 € al mes." in text, text
    assert "Versión en texto" not in text

    whole = message("Reunión", "La reunión es el martes a las 19:00 en el local.")
    whole.add_alternative("<p>Reunión el martes, 19:00, en el local.</p>", subtype="html")
    text, _ = text_of(bytes(whole), tmp_path)
    assert "La reunión es el martes a las 19:00 en el local." in text
    assert "Reunión el martes, 19:00" not in text


def test_encoded_headers_and_an_old_charset_read_as_written(tmp_path):
    raw = (
        b"From: =?ISO-8859-1?Q?Jos=E9_P=E9rez?= <jose@example.org>\r\n"
        b"To: vecinos@example.org\r\n"
        b"Subject: =?ISO-8859-1?Q?Reuni=F3n_de_vecinos?=\r\n"
        b"MIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=iso-8859-1\r\n"
        b"Content-Transfer-Encoding: quoted-printable\r\n\r\n"
        b"La reuni=F3n ser=E1 el martes en la sala com=FAn.\r\n"
    )
    text, _ = text_of(raw, tmp_path)

    assert text.startswith("# Reunión de vecinos\n\nFrom: José Pérez")
    assert "La reunión será el martes en la sala común." in text


def test_a_forwarded_message_is_read_one_level_down(tmp_path):
    inner = message("Normas del gimnasio", "Las toallas son obligatorias.")
    inner.add_attachment(
        b"%PDF-1.4 not read", maintype="application", subtype="pdf", filename="x.pdf"
    )
    outer = message("Fwd: Normas del gimnasio", "Os reenvío las normas.")
    outer.add_attachment(inner)
    text, details = text_of(bytes(outer), tmp_path)

    assert "### Normas del gimnasio" in text and "Las toallas son obligatorias." in text
    assert "Date: 2026-11-27 09:30+00:00" in text  # as every language writes it
    assert "x.pdf" not in text and len(details["attachments_read"]) == 1


def test_attachments_past_the_limit_are_named_not_read(tmp_path):
    built = message()
    for n in range(MAX_ATTACHMENTS + 2):
        built.add_attachment(
            f"Nota {n}.".encode(), maintype="text", subtype="plain", filename=f"n{n}.txt"
        )
    text, details = text_of(bytes(built), tmp_path)

    assert len(details["attachments_read"]) == MAX_ATTACHMENTS
    assert details["attachments_unread"] == [
        {"name": "…", "template": TOO_MANY, "params": {"limit": MAX_ATTACHMENTS, "left": 2}}
    ]


def test_a_scan_sent_as_a_picture_is_read_and_a_logo_is_not(tmp_path):
    from tests.knowledge.test_pictures import scanned_page  # noqa: PLC0415 - its helper

    built = message()
    scan = scanned_page(
        ["Acta de la junta", "Se aprueba la subida de la cuota."], tmp_path / "s.png"
    )
    built.add_attachment(scan.read_bytes(), maintype="image", subtype="png", filename="acta.png")
    logo = io.BytesIO()
    Image.new("RGB", (120, 40), (20, 60, 120)).save(logo, "PNG")
    built.add_attachment(logo.getvalue(), maintype="image", subtype="png", filename="logo.png")
    text, details = text_of(bytes(built), tmp_path)

    assert "Se aprueba la subida de la cuota." in text
    assert details["attachments_read"] == ["acta.png"] and "attachments_unread" not in details


@pytest.mark.parametrize(
    ("data", "filename", "kind"),
    [
        (bytes(message()), "mensaje.txt", FileKind.EML),
        (b"Subject: lista de la compra\n\nPan y leche.", "nota.txt", FileKind.TXT),
        (b"From the desk of the director: welcome.\n", "nota.txt", FileKind.TXT),
        (b"Hola, esto es una nota.", "nota.eml", FileKind.EML),
    ],
)
def test_a_message_is_told_by_its_header_fields_or_its_name(data, filename, kind):
    assert detect_kind(io.BytesIO(data), filename, max_unpacked_bytes=10**6) == kind


def test_a_file_named_eml_that_is_no_message_fails_with_a_sentence(tmp_path):
    path = tmp_path / "nota.eml"
    path.write_bytes(b"Hola, esto es una nota.")
    with pytest.raises(IngestionError, match="not an e-mail message"):
        extract(path, "eml", password="", budget=BUDGET, ocr_languages="eng")


def outlook_message() -> bytes:
    """An OLE file with the stream every Outlook item has: ``old.doc`` with its document
    stream renamed (olefile reads compound files but does not write them)."""
    data = bytearray((DOCUMENTS / "old.doc").read_bytes())
    at = data.find("WordDocument".encode("utf-16-le"))
    name = "__properties_version1.0".encode("utf-16-le") + b"\0\0"
    data[at : at + 64] = name.ljust(64, b"\0")
    data[at + 64 : at + 66] = len(name).to_bytes(2, "little")
    return bytes(data)


def test_an_outlook_message_is_refused_with_what_to_do_instead():
    with pytest.raises(IngestionError, match=r"Outlook message \(\.msg\).*\.eml"):
        detect_kind(io.BytesIO(outlook_message()), "aviso.msg", max_unpacked_bytes=10**6)
