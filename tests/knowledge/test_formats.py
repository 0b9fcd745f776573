"""Every document format through the upload path: structure kept (headings → section
paths, slides with their notes, sheets, table rows with their column headers), searchable,
and bad files refused with a sentence before they cost anything."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest

from knowledge import uploads
from knowledge.extraction import Budget, IngestionError, detect_kind, extract
from knowledge.extraction.base import PAGE_MARK, margin_text
from knowledge.extraction.opendocument_sheets import MAX_COLUMNS, MAX_REPEATED_ROWS
from knowledge.models import DocumentStatus, FileKind
from knowledge.search import SearchOptions
from knowledge.search import search as engine_search
from licenses.principals import principal_for_admin
from tests.conftest import PDFS
from tests.documents import DOCUMENTS, KINDS, build, facts, odf_package, with_bad_checksum
from tests.factories import make_document
from text.sentences import split_sentences

BUDGET = Budget(max_pages=2000, max_content_bytes=10**8, max_seconds=60)


def blocks_of(path: Path, kind: str) -> list[str]:
    """The paragraphs, headings and items a file reads as, in order."""
    text = extract(path, kind, password="", budget=BUDGET, ocr_languages="eng").pages[0].text
    return text.split("\n\n")


MB = 1024 * 1024


def found(query: str, **options) -> list:
    principal = principal_for_admin("root", license=None)
    options.setdefault("strategy", "keyword")
    return engine_search(principal=principal, query=query, options=SearchOptions(**options)).results


def kind_of(data: bytes, filename: str, limit: int = 100 * MB) -> str:
    return detect_kind(io.BytesIO(data), filename, max_unpacked_bytes=limit)


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
class TestEveryFormatIsSearchable:
    @pytest.mark.parametrize("kind", KINDS)
    def test_facts_in_three_languages_are_found_with_their_section(self, kind):
        f = facts(kind)
        document = make_document(build(kind), filename=f"manual.{kind}")

        assert document.status == DocumentStatus.READY, document.error
        assert document.kind == kind
        for query, fact, section in (
            ("vacaciones empleados", f.es, "Política de vacaciones"),
            ("férias funcionários", f.pt, "Férias no Brasil"),
            ("parking garage closes", f.en, "Parking garage"),
        ):
            top = found(query)[0]
            assert fact in top.content, (query, top.content)
            if kind == "csv":  # a CSV has no sections: its rows carry their column names
                assert "Respuesta: " in top.content
            else:
                assert section in top.heading, (query, top.heading)

    @pytest.mark.parametrize("kind", [k for k in KINDS if k != "csv"])
    def test_a_table_row_comes_back_with_its_column_headers(self, kind):
        make_document(build(kind), filename=f"precios.{kind}")

        top = found(f"Pro {facts(kind).price}")[0]
        assert facts(kind).table_row in top.content
        assert "Planes" in top.heading

    def test_slides_keep_their_number_title_and_speaker_notes(self):
        document = make_document(build("pptx"), filename="deck.pptx")

        headings = list(document.chunks.order_by("ordinal").values_list("heading", flat=True))
        assert headings[:3] == [
            "Slide 1: Política de vacaciones",
            "Slide 2: Férias no Brasil",
            "Slide 3: Parking garage",
        ]
        notes = found("código de descuento")[0]
        assert notes.heading == "Slide 4: Planes y precios > Speaker notes"
        assert f"PROMO{facts('pptx').price}" in notes.content

    def test_sheets_are_sections_and_hidden_sheets_stay_out(self):
        document = make_document(build("xlsx"), filename="libro.xlsx")

        assert set(document.chunks.values_list("heading", flat=True)) == {
            "Sheet: Política de vacaciones",
            "Sheet: Férias no Brasil",
            "Sheet: Parking garage",
            "Sheet: Planes y precios",
            "Sheet: Días",
        }
        days = found("Dias de férias por ano")[0]
        assert "País: Brasil · Dias de férias por ano: 32" in days.content
        assert days.heading == "Sheet: Días"
        assert not found("secret never shown")
        assert document.metadata["hidden_sheets"] == 1  # the document's page says so

    def test_section_names_are_in_the_deployment_language(self, settings):
        settings.LANGUAGE_CODE = "es"
        document = make_document(build("pptx"), filename="deck.pptx")

        assert document.chunks.order_by("ordinal").first().heading.startswith("Diapositiva 1: ")

    def test_html_keeps_the_main_content_only(self):
        document = make_document(build("html"), filename="manual.html")

        text = " ".join(document.chunks.values_list("content", flat=True))
        assert "antelación" in text and "Visitors park" in text
        for boilerplate in ("Inicio", "cookies de terceros", "Aviso legal", "never read"):
            assert boilerplate not in text
        assert document.metadata["main_content"] is True

    @pytest.mark.parametrize(
        ("filename", "query", "heading", "content"),
        [
            ("handbook.docx", "oficina agosto", "Manual de la oficina > Horario de verano", "15:00"),
            ("handbook.odt", "reembolso despesas", "Manual de la oficina > Reembolso de viagens", "12 dias"),
            ("handbook.epub", "bicycles basement", "", "B2"),
            ("deck.pptx", "aire acondicionado", "Slide 1: Horario de verano > Speaker notes", "14:30"),
            ("tarifas.xlsx", "traducción", "Sheet: tarifas", "Servicio: Traducción · Tarifa: 0.08"),
            ("deck.odp", "aire acondicionado", "Slide 1: Horario de verano > Speaker notes", "14:30"),
            ("cuotas.ods", "descuento pro", "Sheet: Cuotas", "Plan: Pro · Precio: 49.00 € · Descuento: 15%"),
            ("cuotas.xls", "descuento pro", "Sheet: Cuotas", "Plan: Pro · Precio: 49.00 € · Descuento: 15%"),
            ("handbook.rtf", "oficina agosto", "Manual de la oficina > Horario de verano", "15:00"),
            ("handbook.rtf", "Revisión", "Manual de la oficina > Tarifas", "Servicio: Revisión · Tarifa: 0,03 € por palabra"),
            ("handbook.docx", "Revisión", "Manual de la oficina > Tarifas", "Servicio: Revisión · Tarifa: 0,03 € por palabra"),
            ("handbook.pdf", "oficina agosto", "Manual de la oficina > Horario de verano", "15:00"),
            ("handbook.pdf", "reembolso despesas", "Manual de la oficina > Reembolso de viagens", "12 dias"),
            ("handbook.pdf", "Revisión", "Manual de la oficina > Tarifas", "Servicio: Revisión · Tarifa: 0,03 € por palabra · Plazo: 2 días"),
        ],
    )  # fmt: skip
    def test_files_written_by_libreoffice(self, filename, query, heading, content):
        document = make_document((DOCUMENTS / filename).read_bytes(), filename=filename)

        assert document.status == DocumentStatus.READY, document.error
        top = found(query)[0]
        assert content in top.content
        assert top.heading == heading

    def test_a_pdf_named_docx_is_read_as_the_pdf_it_is(self):
        data = (PDFS / "google-doc-document.pdf").read_bytes()
        document = make_document(data, filename="informe.docx")

        assert document.kind == FileKind.PDF
        assert document.status == DocumentStatus.READY, document.error

    def test_a_docx_named_pdf_is_read_as_word(self):
        document = make_document(build("docx"), filename="manual.pdf")

        assert document.kind == FileKind.DOCX
        assert document.status == DocumentStatus.READY


class TestKinds:
    def test_the_content_decides_not_the_name(self):
        assert kind_of(build("xlsx"), "datos.docx") == FileKind.XLSX
        assert kind_of(build("odt"), "notas.txt") == FileKind.ODT
        assert kind_of(build("epub"), "libro.zip") == FileKind.EPUB
        assert kind_of(b"<!DOCTYPE html><html><p>hola</p></html>", "pagina.txt") == FileKind.HTML
        assert kind_of(b"a;b\n1;2\n", "tabla.csv") == FileKind.CSV
        assert kind_of(b"<p>hola</p>", "fragmento.htm") == FileKind.HTML

    def test_a_plain_zip_is_refused_with_what_to_do(self):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            archive.writestr("fotos/1.jpg", b"\xff\xd8\xff" + b"0" * 100)
        with pytest.raises(IngestionError, match="ZIP archive, not a document"):
            kind_of(out.getvalue(), "manual.docx")

    def test_opendocument_sheets_slides_and_templates_are_documents(self):
        """Calc and Impress files were refused with "save it as .xlsx / .pptx"."""
        for family, kind in (("spreadsheet", "ods"), ("presentation", "odp"), ("text", "odt")):
            for suffix in ("", "-template"):
                mimetype = f"application/vnd.oasis.opendocument.{family}{suffix}"
                assert kind_of(odf_package(mimetype, "<x/>"), "archivo.zip") == kind

    def test_a_drawing_says_what_to_save_it_as(self):
        drawing = odf_package("application/vnd.oasis.opendocument.graphics", "<x/>")
        with pytest.raises(IngestionError, match=r"\.odg.*PDF"):
            kind_of(drawing, "plano.odg")


class TestBadFilesAreRefusedBeforeTheyCost:
    def bomb(self, megabytes: int) -> bytes:
        """A Word file whose document part is megabytes of one repeated byte."""
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
            archive.writestr("[Content_Types].xml", "<Types/>")
            with archive.open("word/document.xml", "w", force_zip64=True) as part:
                block = b"\x20" * MB
                for _ in range(megabytes):
                    part.write(block)
        return out.getvalue()

    @pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
    def test_a_zip_bomb_disguised_as_docx_is_refused_without_expanding_it(self, tmp_path):
        bomb = self.bomb(2048)  # 2 GB of spaces in a ~2 MB file
        assert len(bomb) < 3 * MB
        path = tmp_path / "bomb.docx"
        path.write_bytes(bomb)

        tracemalloc.start()
        with pytest.raises(IngestionError, match="would expand to 2048 MB.*limit is 100 MB"):
            kind_of(bomb, "bomb.docx")
        with pytest.raises(IngestionError, match="would expand to 2048 MB"):
            extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="eng")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 20 * MB  # refused from the archive's directory, nothing expanded

    def test_a_part_that_expands_like_a_bomb_is_refused_under_the_size_limit(self):
        with pytest.raises(IngestionError, match="decompression bomb"):
            kind_of(self.bomb(50), "small-bomb.docx", limit=1024 * MB)

    def test_a_password_protected_docx_is_refused_with_what_to_do(self):
        with pytest.raises(IngestionError, match="password-protected.*remove the password"):
            kind_of((DOCUMENTS / "locked.docx").read_bytes(), "locked.docx")

    def test_an_old_office_file_of_another_program_says_to_export_a_pdf(self):
        """An OLE file that is no Word, Excel or PowerPoint document (an Outlook message):
        ``old.doc`` with its document stream renamed in the file's directory."""
        data = (
            (DOCUMENTS / "old.doc")
            .read_bytes()
            .replace("WordDocument".encode("utf-16-le"), "OutlookMesag".encode("utf-16-le"))
        )
        with pytest.raises(
            IngestionError, match=r"holds no Word, Excel or PowerPoint document.*PDF"
        ):
            kind_of(data, "mensaje.msg")

    def test_an_excel_97_workbook_and_an_rtf_are_documents(self):
        """Both were refused ("an old Microsoft Office file", "an RTF document")."""
        assert kind_of((DOCUMENTS / "cuotas.xls").read_bytes(), "cuotas.dat") == FileKind.XLS
        assert kind_of((DOCUMENTS / "handbook.rtf").read_bytes(), "manual.txt") == FileKind.RTF

    @pytest.mark.parametrize(
        ("kind", "suffix"), [("docx", "docm"), ("pptx", "pptm"), ("xlsx", "xlsm")]
    )
    def test_macro_enabled_files_are_refused(self, kind, suffix):
        with pytest.raises(IngestionError, match="contains macros"):
            kind_of(with_macros(build(kind)), f"macros.{suffix}")

    # A comment of 70 KB first hid the declaration from a look at the part's first 64 KB.
    @pytest.mark.parametrize("padding", ["", "<!--" + "x" * 70_000 + "-->"])
    def test_an_xml_entity_declaration_is_refused_before_any_parser_reads_it(
        self, tmp_path, padding
    ):
        laughs = (
            f'<?xml version="1.0"?>{padding}'
            '<!DOCTYPE w [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;">]>'
            "<w:document>&b;</w:document>"
        )
        path = tmp_path / "laughs.docx"
        path.write_bytes(replace_part(build("docx"), "word/document.xml", laughs))
        with pytest.raises(IngestionError, match="declares XML entities"):
            extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="eng")

    def test_a_damaged_docx_fails_with_a_sentence(self, tmp_path):
        path = tmp_path / "roto.docx"
        path.write_bytes(replace_part(build("docx"), "word/document.xml", "<w:document"))
        with pytest.raises(IngestionError, match="Word file is damaged"):
            extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="eng")

    def test_a_truncated_docx_fails_with_a_sentence(self):
        with pytest.raises(IngestionError, match="damaged or incomplete"):
            kind_of(build("docx")[:-200], "cortado.docx")

    def test_an_encrypted_odt_is_refused(self):
        encrypted = odf_package("application/vnd.oasis.opendocument.text", "<x/>", encrypted=True)
        with pytest.raises(IngestionError, match="OpenDocument file is password-protected"):
            kind_of(encrypted, "secreto.odt")


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_a_refused_upload_leaves_nothing_behind():
    from knowledge.models import Document  # noqa: PLC0415

    with pytest.raises(IngestionError, match="contains macros"):
        uploads.document_create(
            file=io.BytesIO(with_macros(build("docx"))), filename="m.docm", license=None
        )
    assert not Document.objects.exists()


def with_macros(data: bytes) -> bytes:
    data = replace_part(data, "word/vbaProject.bin", "fake macros")
    return data


def replace_part(data: bytes, name: str, content: str) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in source.infolist():
            if entry.filename != name:
                archive.writestr(entry, source.read(entry))
        archive.writestr(name, content)
    return out.getvalue()


def test_body_text_that_looks_like_a_heading_stays_body_text(tmp_path):
    import docx  # noqa: PLC0415 - builds one Word file for this test

    document = docx.Document()
    document.add_heading("Prioridades", level=1)
    document.add_paragraph("# 1 prioridad: revisar el agua")
    path = tmp_path / "p.docx"
    document.save(path)

    text = (
        extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="eng").pages[0].text
    )
    assert text == "# Prioridades\n\n\\# 1 prioridad: revisar el agua"


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_the_per_format_benchmark_runs_on_a_tiny_size(tmp_path):
    """manage.py bench_formats' work on a two-passage set: a change of the readers or of the
    ingestion cannot silently break the benchmark behind BENCHMARKS.md's format figures."""
    import json  # noqa: PLC0415

    from tests.bench.formats import THROUGHPUT_FORMATS, run  # noqa: PLC0415 - bench code

    passages = [
        {"id": "p1", "title": "Piscina", "text": "La piscina del condominio abre a las ocho."},
        {"id": "p2", "title": "Ginásio", "text": "O ginásio do condomínio abre às sete horas."},
    ]
    queries = [
        {
            "id": "q1",
            "text": "¿A qué hora abre la piscina?",
            "relevant": ["p1"],
            "split": "heldout",
        },
        {"id": "q2", "text": "Quando abre o ginásio?", "relevant": ["p2"], "split": "heldout"},
    ]
    for name, rows in (("passages", passages), ("queries", queries)):
        (tmp_path / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    report = run(tmp_path, "heldout", lambda done, total: None)

    assert set(report["retrieval"]) == {"md", "docx", "html"}
    assert all(m["recall@10"] == 1.0 for m in report["retrieval"].values())
    assert set(report["extraction"]) == set(THROUGHPUT_FORMATS)


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_manage_py_ingest_reads_every_format(tmp_path):
    """The command outside checks use: every format in one call, each fact then found."""
    import json  # noqa: PLC0415
    from io import StringIO  # noqa: PLC0415

    from django.core.management import call_command  # noqa: PLC0415

    paths = []
    for kind in KINDS:
        path = tmp_path / f"manual.{kind}"
        path.write_bytes(build(kind))
        paths.append(str(path))
    out = StringIO()
    call_command("ingest", *paths, "--json", stdout=out, stderr=StringIO())

    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(line["kind"], line["status"]) for line in lines] == [(k, "ready") for k in KINDS]
    for kind in KINDS:
        hits = found(f"{facts(kind).days} días vacaciones")
        assert any(facts(kind).es in hit.content for hit in hits), kind


def test_a_word_file_whose_text_is_only_in_text_boxes_is_still_read(tmp_path):
    """python-docx yields no body paragraph for text inside a text box (a flyer)."""
    box = (
        '<w:p><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
        '<mc:Fallback><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent>'
        "<w:p><w:r><w:t>La fiesta de verano es el sábado 21 en la terraza.</w:t></w:r></w:p>"
        "</w:txbxContent></v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>"
    )
    path = tmp_path / "flyer.docx"
    path.write_bytes(with_body(box))

    text = (
        extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="eng").pages[0].text
    )
    assert text == "La fiesta de verano es el sábado 21 en la terraza."


def test_a_text_box_beside_body_text_is_read_once_after_its_paragraph(tmp_path):
    """Word writes a box twice (a drawing, and VML for older readers): a callout beside the
    body's text was not read at all, and reading every paragraph would have read it twice."""
    copy = (
        "<w:txbxContent><w:p><w:r><w:t>Inscripciones en secretaría hasta el viernes.</w:t>"
        "</w:r></w:p></w:txbxContent>"
    )
    body = (
        "<w:p><w:r><w:t>La fiesta de verano es el sábado 21 en la terraza.</w:t></w:r>"
        '<w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">'
        '<mc:Choice Requires="wps"><w:drawing><wps:txbx xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">'
        f"{copy}</wps:txbx></w:drawing></mc:Choice>"
        '<mc:Fallback><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox>'
        f"{copy}</v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>"
        "<w:p><w:r><w:t>Habrá música en directo.</w:t></w:r></w:p>"
    )
    path = tmp_path / "fiesta.docx"
    path.write_bytes(with_body(body))

    assert blocks_of(path, FileKind.DOCX) == [
        "La fiesta de verano es el sábado 21 en la terraza.",
        "Inscripciones en secretaría hasta el viernes.",
        "Habrá música en directo.",
    ]


def with_body(body: str) -> bytes:
    """A Word file built by python-docx whose body is ``body``'s XML."""
    document = zipfile.ZipFile(io.BytesIO(build("docx"))).read("word/document.xml").decode()
    start, end = document.index("<w:body>") + len("<w:body>"), document.index("<w:sectPr")
    return replace_part(
        build("docx"), "word/document.xml", document[:start] + body + document[end:]
    )


def test_a_sheet_formatted_to_its_last_row_stops_after_its_data(tmp_path):
    import openpyxl  # noqa: PLC0415

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Sala", "Aforo"])
    sheet.append(["Norte", 12])
    sheet.cell(row=200_000, column=1).value = None
    sheet.cell(row=200_000, column=1).number_format = "0.00"  # formatting far below the data
    path = tmp_path / "salas.xlsx"
    workbook.save(path)

    text = (
        extract(path, FileKind.XLSX, password="", budget=BUDGET, ocr_languages="eng").pages[0].text
    )
    assert text.endswith("Sala: Norte · Aforo: 12")


def test_a_sheet_reads_as_it_shows(tmp_path, settings):
    """0.15 formatted as a percentage was read "0.15" (the assistant quoted it), a price
    without its currency, TRUE in English in a Spanish deployment, a time "08:30:00"."""
    import datetime  # noqa: PLC0415

    import openpyxl  # noqa: PLC0415

    settings.LANGUAGE_CODE = "es"
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["Plan", "Precio", "Descuento", "Desde", "Hora", "Activo", "Cuota"])
    sheet.append(["Pro", 49.9, 0.15, datetime.date(2026, 3, 1), datetime.time(8, 30), True, 120])
    evening = datetime.datetime(2026, 12, 31, 18, 0)  # noqa: DTZ001 - a sheet has no zones
    sheet.append(["Básico", 9, 0.055, evening, None, False, 1.5])
    for cell, number_format in {
        "B2": '#,##0.00 "€"', "B3": "[$R$-416] #,##0.00", "C2": "0%", "C3": "0.0%",
        "D2": "dd/mm/yyyy", "G2": "#,##0", "G3": "0.00",
    }.items():  # fmt: skip
        sheet[cell].number_format = number_format
    path = tmp_path / "tarifas.xlsx"
    workbook.save(path)

    text = extract(path, FileKind.XLSX, password="", budget=BUDGET, ocr_languages="eng").pages[0]
    assert text.text.splitlines()[-3:] == [
        "Plan: Pro · Precio: 49.90 € · Descuento: 15% · Desde: 2026-03-01 · Hora: 08:30 · "
        "Activo: VERDADERO · Cuota: 120",
        "",
        "Plan: Básico · Precio: R$ 9.00 · Descuento: 5.5% · Desde: 2026-12-31 18:00 · "
        "Activo: FALSO · Cuota: 1.5",
    ]


def test_elements_nested_thousands_deep_fail_with_a_sentence(tmp_path):
    ns = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
    )
    deep = "<text:section>" * 5000 + "<text:p>hondo</text:p>" + "</text:section>" * 5000
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns}><office:body>'
        f"<office:text>{deep}</office:text></office:body></office:document-content>"
    )
    path = tmp_path / "hondo.odt"
    path.write_bytes(odf_package("application/vnd.oasis.opendocument.text", content))
    with pytest.raises(IngestionError, match="nested too deeply"):
        extract(path, FileKind.ODT, password="", budget=BUDGET, ocr_languages="eng")


def test_html_nested_past_the_parsers_limit_fails_with_a_sentence(tmp_path):
    """libxml2 drops everything past 256 levels without raising: the page read as "empty"."""
    path = tmp_path / "hondo.html"
    path.write_text("<html><body>" + "<div>" * 300 + "hondo" + "</div>" * 300 + "</body></html>")
    with pytest.raises(IngestionError, match="nested too deeply"):
        extract(path, FileKind.HTML, password="", budget=BUDGET, ocr_languages="eng")


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_a_price_list_of_figures_is_knowledge():
    """Figures between a table's pipes were refused as "the PDF's fonts have no character
    mapping" (fewer letters than half of what was visible)."""
    rows = "".join(
        f"{1000 + n};{n * 7 % 100}.50;{n % 9 + 1};2026-03-{n % 28 + 1:02d}\n" for n in range(60)
    )
    document = make_document(
        f"Código;Precio;Cantidad;Fecha\n{rows}".encode(), filename="precios.csv"
    )

    assert document.status == DocumentStatus.READY, document.error
    assert "Precio: 14.50" in found("1002")[0].content


def test_list_items_keep_their_numbers_and_bullets(tmp_path):
    """Word's and HTML's numbered steps lost their numbers ("the second step" could not be
    found) and bullets read as paragraphs; trafilatura turns an <ol> into a <ul>."""
    import docx  # noqa: PLC0415

    document = docx.Document()
    document.add_heading("Alta de socios", 1)
    for step in ("Rellena el formulario.", "Entrega el DNI en conserjería."):
        document.add_paragraph(step, style="List Number")
    document.add_paragraph("Piscina", style="List Bullet")
    word = tmp_path / "alta.docx"
    document.save(word)
    page = (
        "<html><body><main><h1>Alta de socios</h1>"
        "<ol><li>Rellena el formulario.</li><li><b>Entrega</b> el DNI en conserjería.</li></ol>"
        '<ol start="3" type="a"><li>Tercera opción</li></ol><ul><li>Piscina</li></ul>'
        "<p>Después recibirás un correo con la confirmación del alta y tu número de socio.</p>"
        "</main></body></html>"
    )
    html = tmp_path / "alta.html"
    html.write_text(page)

    for path, kind, extra in (
        (word, FileKind.DOCX, []),
        (html, FileKind.HTML, ["c) Tercera opción"]),
    ):
        text = extract(path, kind, password="", budget=BUDGET, ocr_languages="eng").pages[0].text
        blocks = text.split("\n\n")
        assert "1. Rellena el formulario." in blocks, text
        assert "2. Entrega el DNI en conserjería." in blocks, text
        assert "- Piscina" in blocks and all(b in blocks for b in extra), text


def test_a_numbered_item_is_one_sentence():
    assert split_sentences("1. Rellena el formulario. 2. Entrega el DNI. IV. Espera.") == [
        "1. Rellena el formulario.",
        "2. Entrega el DNI.",
        "IV. Espera.",
    ]


def test_an_odt_list_keeps_its_numbers_and_bullets(tmp_path):
    ns = (
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
        'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"'
    )
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ns}>'
        "<office:automatic-styles>"
        '<text:list-style style:name="L1">'
        '<text:list-level-style-number text:level="1" style:num-format="1"/>'
        '<text:list-level-style-number text:level="2" style:num-format="a"/>'
        '</text:list-style><text:list-style style:name="L2">'
        '<text:list-level-style-bullet text:level="1"/></text:list-style>'
        "</office:automatic-styles><office:body><office:text>"
        '<text:list text:style-name="L1">'
        "<text:list-item><text:p>Rellena el formulario.</text:p></text:list-item>"
        "<text:list-item><text:p>Entrega el DNI en conserjería.</text:p>"
        "<text:list><text:list-item><text:p>Original y copia.</text:p></text:list-item>"
        "</text:list></text:list-item></text:list>"
        '<text:list text:style-name="L2"><text:list-item><text:p>Piscina</text:p>'
        "</text:list-item></text:list>"
        "</office:text></office:body></office:document-content>"
    )
    path = tmp_path / "alta.odt"
    path.write_bytes(odf_package("application/vnd.oasis.opendocument.text", content))

    assert blocks_of(path, FileKind.ODT) == [
        "1. Rellena el formulario.",
        "2. Entrega el DNI en conserjería.",
        "a) Original y copia.",
        "- Piscina",
    ]


STEPS = [
    "# Alta de socios",
    "Para darte de alta en el club sigue estos pasos:",
    "1. Rellena el formulario de inscripción.",
    "2. Entrega el DNI en conserjería.",
    "a) Original y copia.",
    "b) Una foto reciente.",
    "3. Espera el correo de confirmación.",
    "## Servicios incluidos",
    "- Piscina",
    "- Gimnasio",
]


@pytest.mark.parametrize(
    ("name", "kind"),
    [("steps.html", FileKind.HTML), ("steps.odt", FileKind.ODT), ("steps.docx", FileKind.DOCX)],
)
def test_a_page_of_steps_reads_the_same_from_every_writer(name, kind):
    """One short page of steps, and LibreOffice's ODT and Word copies of it: the HTML ran
    together into one paragraph (trafilatura's fallback for short pages), the others lost
    their numbers."""
    assert blocks_of(DOCUMENTS / name, kind) == STEPS


def test_a_one_paragraph_article_is_still_read_as_its_main_content(tmp_path):
    """Reading a page whole is only for trafilatura's flattened fallback, not for an
    article of one paragraph among menus that are not marked as navigation."""
    menu = "".join(f'<li><a href="/{n}">Sección {n} del portal</a></li>' for n in range(12))
    article = (
        "La piscina comunitaria abre todos los días de junio a septiembre, de ocho de la "
        "mañana a nueve de la noche, y los menores de doce años deben ir acompañados. " * 4
    )
    path = tmp_path / "piscina.html"
    path.write_text(
        f'<html><body><div class="menu"><ul>{menu}</ul></div><article>'
        f"<p>{article}</p></article></body></html>"
    )
    text = extract(path, FileKind.HTML, password="", budget=BUDGET, ocr_languages="eng")
    assert "Sección 3 del portal" not in text.pages[0].text
    assert "menores de doce años" in text.pages[0].text


REGLAMENTO = [
    "# Horarios",
    "La piscina cierra a las 21:30 en verano.[^1] El gimnasio abre a las 7:00.[^2]",
    "[^1]: Del 15 de junio al 15 de septiembre, según el acuerdo de la junta de 2025.",
    "[^2]: Los festivos abre a las 9:00.",
    "Para apuntarte:",
    "1. Rellena el formulario.",
    "2. Paga la cuota.",
    "Si eres menor de edad:",
    "3. Trae la autorización firmada.",
    "Para darte de baja:",
    "1. Escribe a secretaría.",
    "2. Devuelve la tarjeta.",
    "# Encabezado y pie de página",
    "Club Deportivo Norte · Reglamento interno",
    "Conserjería: calle Mayor 5, Sevilla",
]


@pytest.mark.parametrize(
    ("name", "kind"), [("reglamento.odt", FileKind.ODT), ("reglamento.docx", FileKind.DOCX)]
)
def test_notes_tracked_changes_continued_lists_and_margins_are_read(name, kind, settings):
    """LibreOffice's ODT and Word copies of one page: footnotes and endnotes were dropped
    (the ODT reader skipped them; python-docx does not read them; now each follows the
    paragraph citing it, to be found and quoted with it), Word's tracked insertion
    was lost (python-docx reads only a paragraph's direct runs), a list continuing the one
    before it started again at 1 (ODT), and the address in the footer was never read."""
    settings.LANGUAGE_CODE = "es"
    assert blocks_of(DOCUMENTS / name, kind) == REGLAMENTO


def test_word_list_instances_continue_or_restart_as_word_numbers_them(tmp_path, settings):
    """Word's own markup for the same page: the item after "Si eres menor de edad" is in a
    second instance of the list (it continues: 3), the last list in a third one that
    overrides its start ("Restart at 1"); a heading wrapped in a content control is read and
    a table of contents is not. Counting per instance numbered the continued item 1."""
    settings.LANGUAGE_CODE = "es"
    data = (DOCUMENTS / "reglamento.docx").read_bytes()
    archive = zipfile.ZipFile(io.BytesIO(data))
    numbering = archive.read("word/numbering.xml").decode()
    numbering = numbering.replace(
        "</w:numbering>",
        '<w:num w:numId="4"><w:abstractNumId w:val="2"/><w:lvlOverride w:ilvl="0">'
        '<w:startOverride w:val="1"/></w:lvlOverride></w:num>'
        '<w:num w:numId="5"><w:abstractNumId w:val="2"/></w:num></w:numbering>',
    )
    document = archive.read("word/document.xml").decode()
    continued = document.index("Trae la autorización")
    start = document.rindex('<w:numId w:val="2"/>', 0, continued)
    document = document[:start] + '<w:numId w:val="5"/>' + document[start + 20 :]
    document = document.replace('<w:numId w:val="3"/>', '<w:numId w:val="4"/>')
    toc = (
        '<w:sdt><w:sdtPr><w:docPartObj><w:docPartGallery w:val="Table of Contents"/>'
        "</w:docPartObj></w:sdtPr><w:sdtContent><w:p><w:r><w:t>Índice: Horarios 1</w:t></w:r>"
        "</w:p></w:sdtContent></w:sdt>"
    )
    heading_start = document.index("<w:body>") + len("<w:body>")
    heading_end = document.index("</w:p>", heading_start) + len("</w:p>")
    heading = document[heading_start:heading_end]
    document = (
        document[:heading_start]
        + toc
        + f"<w:sdt><w:sdtPr/><w:sdtContent>{heading}</w:sdtContent></w:sdt>"
        + document[heading_end:]
    )
    data = replace_part(data, "word/numbering.xml", numbering)
    path = tmp_path / "reglamento.docx"
    path.write_bytes(replace_part(data, "word/document.xml", document))
    assert blocks_of(path, FileKind.DOCX) == REGLAMENTO


def test_a_hidden_slide_is_not_read(tmp_path, settings):
    """A hidden slide (a draft, last year's prices) is not shown, printed or exported to
    PDF, as a hidden sheet is not read; the slides after it keep their numbers."""
    import pptx  # noqa: PLC0415

    settings.LANGUAGE_CODE = "en"
    deck = pptx.Presentation()
    for title in ("Cuotas 2026", "Cuotas 2025 (antiguas)", "Horarios"):
        deck.slides.add_slide(deck.slide_layouts[5]).shapes.title.text = title
    deck.slides[1].element.set("show", "0")
    path = tmp_path / "cuotas.pptx"
    deck.save(path)

    extraction = extract(path, FileKind.PPTX, password="", budget=BUDGET, ocr_languages="eng")
    assert "antiguas" not in extraction.pages[0].text
    assert "Slide 3: Horarios" in extraction.pages[0].text
    assert extraction.details["hidden_slides"] == 1


def test_slides_keep_their_bullets_and_numbers(tmp_path):
    """A content placeholder is bulleted by the slide master and a text box numbered by
    its own paragraphs: all of it read as plain paragraphs before."""
    import pptx  # noqa: PLC0415
    from lxml import etree  # noqa: PLC0415
    from pptx.util import Inches  # noqa: PLC0415

    presentation = pptx.Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])  # title and content
    slide.shapes.title.text = "Alta de socios"
    body = slide.placeholders[1].text_frame
    body.text = "Piscina"
    body.add_paragraph().text = "Gimnasio"
    box = slide.shapes.add_textbox(Inches(1), Inches(6), Inches(6), Inches(1)).text_frame
    box.text = "Pasos\ven orden:"  # a line break inside the paragraph
    for step in ("Rellena el formulario.", "Entrega el DNI."):
        paragraph = box.add_paragraph()
        paragraph.text = step
        properties = paragraph._p.get_or_add_pPr()
        properties.append(
            etree.fromstring(
                '<a:buAutoNum xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
                'type="arabicPeriod"/>'
            )
        )
    path = tmp_path / "alta.pptx"
    presentation.save(path)

    assert blocks_of(path, FileKind.PPTX) == [
        "# Slide 1: Alta de socios",
        "- Piscina",
        "- Gimnasio",
        "Pasos en orden:",
        "1. Rellena el formulario.",
        "2. Entrega el DNI.",
    ]


DIAGRAM = (
    '<dgm:dataModel xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><dgm:ptLst>'
    '<dgm:pt modelId="0" type="doc"><dgm:t><a:bodyPr/><a:p/></dgm:t></dgm:pt>'
    '<dgm:pt modelId="2"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Jefa de personal: </a:t></a:r>'
    "<a:r><a:t>Ana Ruiz</a:t></a:r></a:p></dgm:t></dgm:pt>"
    '<dgm:pt modelId="1"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Dirección: Marta Gil</a:t></a:r>'
    "</a:p></dgm:t></dgm:pt>"
    '<dgm:pt modelId="4"><dgm:t><a:bodyPr/><a:p><a:r><a:t>Jefe de mantenimiento: Luis Mora'
    "</a:t></a:r></a:p></dgm:t></dgm:pt>"
    '<dgm:pt modelId="9" type="pres"><dgm:t><a:p><a:r><a:t>forma</a:t></a:r></a:p></dgm:t></dgm:pt>'
    "</dgm:ptLst><dgm:cxnLst>"
    '<dgm:cxn modelId="c1" srcId="0" destId="1" srcOrd="0" destOrd="0"/>'
    '<dgm:cxn modelId="c3" srcId="1" destId="4" srcOrd="1" destOrd="0"/>'
    '<dgm:cxn modelId="c2" srcId="1" destId="2" srcOrd="0" destOrd="0"/>'
    '<dgm:cxn modelId="c4" type="presOf" srcId="1" destId="9"/>'
    '<dgm:cxn modelId="c5" srcId="4" destId="1" srcOrd="0" destOrd="0"/>'  # a loop back up
    "</dgm:cxnLst></dgm:dataModel>"
)
ORG_CHART = [
    "- Dirección: Marta Gil",
    "- Jefa de personal: Ana Ruiz",
    "- Jefe de mantenimiento: Luis Mora",
]
DIAGRAM_FRAME = (
    '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData '
    'uri="http://schemas.openxmlformats.org/drawingml/2006/diagram"><dgm:relIds '
    'xmlns:dgm="http://schemas.openxmlformats.org/drawingml/2006/diagram" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
    'r:dm="{rid}" r:lo="" r:qs="" r:cs=""/></a:graphicData></a:graphic>'
)


def word_drawing(graphic: str) -> Any:
    """A Word run holding ``graphic`` (a diagram's or a chart's) as an inline drawing."""
    from lxml import etree  # noqa: PLC0415

    return etree.fromstring(
        '<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">'
        '<w:drawing><wp:inline><wp:extent cx="100" cy="100"/><wp:docPr id="1" name="Dibujo"/>'
        f"{graphic}</wp:inline></w:drawing></w:r>"
    )


def read_deck_and_word(slides: Path, word: Path) -> list[str]:
    return [
        extract(path, kind, password="", budget=BUDGET, ocr_languages="eng").pages[0].text
        for path, kind in ((slides, FileKind.PPTX), (word, FileKind.DOCX))
    ]


def test_smartart_is_read_in_its_own_order(tmp_path):
    """An org chart or a process drawn as SmartArt lost all its text: it lives in a diagram
    part neither python-docx nor python-pptx reads. Its tree decides the order, not the
    file's, and a loop in it is read once."""
    import docx  # noqa: PLC0415
    import pptx  # noqa: PLC0415
    from docx.opc.packuri import PackURI as DocxPackURI  # noqa: PLC0415
    from docx.opc.part import Part as DocxPart  # noqa: PLC0415
    from lxml import etree  # noqa: PLC0415
    from pptx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE  # noqa: PLC0415
    from pptx.opc.package import Part as PptxPart  # noqa: PLC0415
    from pptx.opc.packuri import PackURI  # noqa: PLC0415

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = "Organigrama"
    data = PptxPart(
        PackURI("/ppt/diagrams/data1.xml"), CONTENT_TYPE.DML_DIAGRAM_DATA, deck.part.package,
        DIAGRAM.encode(),
    )  # fmt: skip
    rid = slide.part.relate_to(data, RELATIONSHIP_TYPE.DIAGRAM_DATA)
    frame = etree.fromstring(
        '<p:graphicFrame xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:nvGraphicFramePr>'
        '<p:cNvPr id="10" name="Diagrama 1"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr>'
        '<p:xfrm><a:off x="0" y="1000000"/><a:ext cx="100" cy="100"/></p:xfrm>'
        f"{DIAGRAM_FRAME.format(rid=rid)}</p:graphicFrame>"
    )
    slide.shapes._spTree.append(frame)
    slides = tmp_path / "organigrama.pptx"
    deck.save(slides)

    document = docx.Document()
    document.add_paragraph("Quién es quién:")
    data = DocxPart(
        DocxPackURI("/word/diagrams/data1.xml"), CONTENT_TYPE.DML_DIAGRAM_DATA, DIAGRAM.encode(),
        document.part.package,
    )  # fmt: skip
    rid = document.part.relate_to(data, RELATIONSHIP_TYPE.DIAGRAM_DATA)
    document.add_paragraph()._p.append(word_drawing(DIAGRAM_FRAME.format(rid=rid)))
    word = tmp_path / "organigrama.docx"
    document.save(word)

    read = read_deck_and_word(slides, word)
    assert read[0].split("\n\n") == ["# Slide 1: Organigrama", *ORG_CHART]
    assert read[1].split("\n\n") == ["Quién es quién:", *ORG_CHART]


def test_an_epub_chapter_keeps_its_header_and_its_footnotes(tmp_path):
    """A book's chapter title inside <header> and its footnotes in <aside epub:type=footnote>
    were dropped as a web page's chrome, and a note's reference ran into the word before
    it ("verano1")."""
    from ebooklib import epub  # noqa: PLC0415

    book = epub.EpubBook()
    book.set_identifier("reglamento")
    book.set_title("Reglamento")
    book.set_language("es")
    chapter = epub.EpubHtml(title="Horarios", file_name="horarios.xhtml", lang="es")
    chapter.content = (
        '<section epub:type="chapter"><header><h1>Horarios</h1></header>'
        '<p>La piscina cierra a las 21:30 en verano<a epub:type="noteref" href="#n1">1</a>.</p>'
        '<aside epub:type="footnote" id="n1"><p><a href="#r1">1</a> Del 15 de junio al 15 de '
        "septiembre.</p></aside>"
        "<aside><p>Recuerda llevar gorro de baño.</p></aside></section>"
        '<aside epub:type="endnote" id="n2"><p>2. Una nota que nada cita aquí.</p></aside>'
    )
    book.add_item(chapter)
    book.toc = [chapter]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = [chapter]
    path = tmp_path / "reglamento.epub"
    epub.write_epub(str(path), book)

    assert blocks_of(path, FileKind.EPUB) == [
        "# Horarios",
        "La piscina cierra a las 21:30 en verano[^1].",
        "[^1]: Del 15 de junio al 15 de septiembre.",
        "Recuerda llevar gorro de baño.",
        "[^2]: Una nota que nada cita aquí.",
    ]


def test_line_breaks_in_html_keep_words_apart(tmp_path):
    """An address's lines ran together ("Calle Mayor 541001 Sevilla": a street number and
    a postcode made one figure), and a cell's times too ("9:0014:00"), because an
    element's text runs its children's together. A paragraph's lines are parted by a comma
    where no stop ends them, as an address is written on one line ("…Calle Mayor 5 41001
    Sevilla" read as one phrase); a paragraph's source wrapped over lines is not. A list
    item's and a table cell's lines too ("Rua das Flores, 230 Jardim América", "8h às 18h
    Sábado: 8h às 12h" had run together)."""
    page = tmp_path / "contacto.html"
    page.write_text(
        "<html><body><main><h1>Contacto</h1><p>Club Deportivo Norte<br>Calle Mayor 5<br/>"
        "41001 Sevilla</p><p>Teléfono: 954 000 000, de lunes a viernes\npor la mañana.</p>"
        "<table><tr><th>Día</th><th>Horario</th></tr><tr><td>Lunes<br>Martes</td>"
        "<td>9:00<br>14:00</td></tr></table><ul><li>Endereço: Rua das Flores, 230<br>"
        "Jardim América<br>Belo Horizonte/MG</li><li>Telefone:\n(31) 3333-4444</li></ul>"
        "</main></body></html>"
    )
    blocks = blocks_of(page, FileKind.HTML)
    assert "Club Deportivo Norte, Calle Mayor 5, 41001 Sevilla" in blocks
    assert "Teléfono: 954 000 000, de lunes a viernes por la mañana." in blocks
    assert "Día: Lunes, Martes · Horario: 9:00, 14:00" in blocks
    assert "- Endereço: Rua das Flores, 230, Jardim América, Belo Horizonte/MG" in blocks
    assert "- Telefone: (31) 3333-4444" in blocks


def test_hidden_text_in_word_is_not_read(tmp_path):
    """Text formatted as hidden (a template's instructions, a note to colleagues) is not
    shown by Word, printed or exported to PDF; it was read as the document's."""
    body = (
        '<w:p><w:r><w:t xml:space="preserve">La cuota anual es de 120 euros. </w:t></w:r>'
        "<w:r><w:rPr><w:vanish/></w:rPr><w:t>NOTA INTERNA: subirla a 150 en enero.</w:t></w:r>"
        '<w:r><w:rPr><w:vanish w:val="0"/></w:rPr><w:t>Se paga en enero.</w:t></w:r></w:p>'
    )
    path = tmp_path / "cuotas.docx"
    path.write_bytes(with_body(body))
    text = extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="eng")
    assert text.pages[0].text == "La cuota anual es de 120 euros. Se paga en enero."


def test_text_hidden_by_its_style_is_not_read(tmp_path):
    """A template's "Instructions" style hides its text as the Hidden effect on a run does;
    it was read because only a run's own setting was looked at."""
    import docx  # noqa: PLC0415 - builds one Word file for this test
    from docx.enum.style import WD_STYLE_TYPE  # noqa: PLC0415

    document = docx.Document()
    document.styles.add_style("Instrucciones", WD_STYLE_TYPE.CHARACTER).font.hidden = True
    internal = document.styles.add_style("Nota interna", WD_STYLE_TYPE.PARAGRAPH)
    internal.font.hidden = True
    document.styles.add_style("Nota breve", WD_STYLE_TYPE.PARAGRAPH).base_style = internal
    paragraph = document.add_paragraph("La cuota anual es de 120 euros. ")
    paragraph.add_run("Rellena aquí el importe del año.", style="Instrucciones")
    document.add_paragraph("NOTA INTERNA: subirla a 150 en enero.", style="Nota interna")
    document.add_paragraph("Revisar con dirección.", style="Nota breve")
    shown = document.add_paragraph("Oculto: ", style="Nota interna").add_run("Se paga en enero.")
    shown.font.hidden = False  # the run's own setting wins over its paragraph's style
    path = tmp_path / "cuotas.docx"
    document.save(path)

    text = extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="eng")
    assert text.pages[0].text.split("\n\n") == [
        "La cuota anual es de 120 euros.",
        "Se paga en enero.",
    ]


def test_rows_inside_content_controls_are_read(tmp_path):
    """A form's repeating section wraps table rows (or cells) in content controls;
    python-docx reads only a table's direct rows, so those were lost."""

    def cell(text: str) -> str:
        return f"<w:tc><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc>"

    def control(inner: str) -> str:
        return f"<w:sdt><w:sdtPr><w:tag w:val='fila'/></w:sdtPr><w:sdtContent>{inner}</w:sdtContent></w:sdt>"

    body = (
        "<w:tbl><w:tblGrid><w:gridCol/><w:gridCol/></w:tblGrid>"
        f"<w:tr>{cell('Sala')}{cell('Aforo')}</w:tr>"
        + control(f"<w:tr>{cell('Norte')}{cell('12')}</w:tr><w:tr>{cell('Sur')}{cell('30')}</w:tr>")
        + f"<w:tr>{control(cell('Este'))}{cell('8')}</w:tr>"
        + "</w:tbl>"
    )
    path = tmp_path / "salas.docx"
    path.write_bytes(with_body(body))
    text = extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="eng")
    assert text.pages[0].text.split("\n\n") == [
        "Sala: Norte · Aforo: 12",
        "Sala: Sur · Aforo: 30",
        "Sala: Este · Aforo: 8",
    ]


@pytest.mark.parametrize("kind", [FileKind.HTML, FileKind.EPUB])
def test_hidden_html_is_not_read(tmp_path, kind):
    """What a browser or a reader does not show (``hidden``, ``display: none``)."""
    from ebooklib import epub  # noqa: PLC0415

    content = (
        "<h1>Cuotas</h1><p>La cuota anual es de 120 euros y se paga en enero.</p>"
        "<div hidden><p>Borrador: subirla a 150.</p></div>"
        '<p style="display: none">Texto oculto de la plantilla.</p>'
    )
    path = tmp_path / f"cuotas.{kind}"
    if kind == FileKind.HTML:
        path.write_text(
            f"<html><head><title>Cuotas</title></head><body><main>{content}</main></body></html>"
        )
    else:
        book = epub.EpubBook()
        book.set_identifier("cuotas")
        book.set_title("Cuotas")
        book.set_language("es")
        chapter = epub.EpubHtml(title="Cuotas", file_name="cuotas.xhtml", lang="es")
        chapter.content = content
        book.add_item(chapter)
        book.spine = [chapter]
        book.add_item(epub.EpubNcx())
        book.add_item(epub.EpubNav())
        epub.write_epub(str(path), book)
    text = extract(path, kind, password="", budget=BUDGET, ocr_languages="eng").pages[0].text
    assert text.split("\n\n") == ["# Cuotas", "La cuota anual es de 120 euros y se paga en enero."]


def test_a_note_nothing_cites_is_kept_at_the_end(tmp_path, settings):
    settings.LANGUAGE_CODE = "es"
    data = (DOCUMENTS / "reglamento.docx").read_bytes()
    document = zipfile.ZipFile(io.BytesIO(data)).read("word/document.xml").decode()
    document = document.replace('<w:endnoteReference w:id="2"/>', "")
    path = tmp_path / "reglamento.docx"
    path.write_bytes(replace_part(data, "word/document.xml", document))
    blocks = blocks_of(path, FileKind.DOCX)
    assert blocks[1:3] == [
        "La piscina cierra a las 21:30 en verano.[^1] El gimnasio abre a las 7:00.",
        "[^1]: Del 15 de junio al 15 de septiembre, según el acuerdo de la junta de 2025.",
    ]
    assert blocks[-5:-3] == ["# Notas", "[^2]: Los festivos abre a las 9:00."]


@pytest.mark.parametrize(
    ("line", "read"),
    [
        ("Club Norte — Página # de # — Confidencial", "Club Norte · Confidencial"),
        ("Club Norte\tPágina #\tConfidencial", "Club Norte · Confidencial"),
        # these lost the club's name, or kept the number's brackets or separators
        ("Club Norte—#—Confidencial", "Club Norte · Confidencial"),
        ("Club Norte, página #", "Club Norte"),
        ("Club Norte (#)", "Club Norte"),
        ("Informe anual 2026 - pág. #/#", "Informe anual 2026"),
        ("Folha # do #", ""),
        ("Calle Mayor 5-7, 41001 Sevilla", "Calle Mayor 5-7, 41001 Sevilla"),
    ],
)
def test_a_page_number_leaves_a_header_s_words_as_they_were(line, read):
    """``#`` stands for where Word or LibreOffice puts a page number."""
    assert margin_text(line.replace("#", PAGE_MARK)) == read


FEES = [
    "Cuotas por plan",
    "Plan: Básico · 2025: 9.50 € · 2026: 10.00 €",
    "Plan: Pro · 2025: 49.00 € · 2026: 55.00 €",
]


def test_a_chart_s_figures_are_read(tmp_path):
    """A chart's title, categories, series and figures (as its number format shows them)
    live in a part of their own that neither library reads as text: a deck's "fees by
    plan" chart was read as nothing."""
    import docx  # noqa: PLC0415
    import pptx  # noqa: PLC0415
    from docx.opc.packuri import PackURI  # noqa: PLC0415
    from docx.opc.part import Part  # noqa: PLC0415
    from lxml import etree  # noqa: PLC0415
    from pptx.chart.data import CategoryChartData  # noqa: PLC0415
    from pptx.enum.chart import XL_CHART_TYPE  # noqa: PLC0415
    from pptx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE  # noqa: PLC0415
    from pptx.util import Inches  # noqa: PLC0415

    figures = CategoryChartData(number_format='#,##0.00 "€"')
    figures.categories = ["Básico", "Pro"]
    figures.add_series("2025", (9.5, 49))
    figures.add_series("2026", (10, 55))
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    slide.shapes.title.text = "Cuotas"
    chart = slide.shapes.add_chart(
        XL_CHART_TYPE.COLUMN_CLUSTERED, Inches(1), Inches(2), Inches(6), Inches(4), figures
    ).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = "Cuotas por plan"
    axis_title = chart.category_axis.axis_title  # the categories' name heads their column
    axis_title.text_frame.text = "Plan"
    slides = tmp_path / "cuotas.pptx"
    deck.save(slides)

    chart_xml = etree.tostring(chart._chartSpace)
    document = docx.Document()
    document.add_paragraph("Las cuotas suben en 2026.")
    part = Part(
        PackURI("/word/charts/chart1.xml"), CONTENT_TYPE.DML_CHART, chart_xml,
        document.part.package,
    )  # fmt: skip
    rid = document.part.relate_to(part, RELATIONSHIP_TYPE.CHART)
    chart = (
        '<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
        '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/chart">'
        '<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
        f'r:id="{rid}"/></a:graphicData></a:graphic>'
    )
    document.add_paragraph()._p.append(word_drawing(chart))
    word = tmp_path / "cuotas.docx"
    document.save(word)

    read = read_deck_and_word(slides, word)
    assert read[0].split("\n\n") == ["# Slide 1: Cuotas", *FEES]
    assert read[1].split("\n\n") == ["Las cuotas suben en 2026.", *FEES]


def test_a_damaged_chart_loses_only_its_own_text(tmp_path):
    """A chart's part that is not XML made the whole Word file "damaged"."""
    import docx  # noqa: PLC0415
    from docx.opc.packuri import PackURI  # noqa: PLC0415
    from docx.opc.part import Part  # noqa: PLC0415
    from lxml import etree  # noqa: PLC0415
    from pptx.opc.constants import CONTENT_TYPE, RELATIONSHIP_TYPE  # noqa: PLC0415

    document = docx.Document()
    document.add_paragraph("Las cuotas suben en 2026.")
    part = Part(
        PackURI("/word/charts/chart1.xml"), CONTENT_TYPE.DML_CHART, b"\x89PNG not a chart",
        document.part.package,
    )  # fmt: skip
    rid = document.part.relate_to(part, RELATIONSHIP_TYPE.CHART)
    drawing = etree.fromstring(
        '<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
        '<c:chart xmlns:c="http://schemas.openxmlformats.org/drawingml/2006/chart" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
        f'r:id="{rid}"/></w:r>'
    )
    document.add_paragraph()._p.append(drawing)
    path = tmp_path / "cuotas.docx"
    document.save(path)

    extraction = extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="eng")
    assert extraction.pages[0].text == "Las cuotas suben en 2026."


@pytest.mark.parametrize(
    ("office", "copy", "hidden"),
    [
        ("normas.pptx", "normas.odp", "hidden_slides"),
        ("cuotas.xlsx", "cuotas.ods", "hidden_sheets"),
        ("cuotas.xlsx", "cuotas.xls", "hidden_sheets"),
        ("calendario.xlsx", "calendario.xls", "hidden_sheets"),  # dates, times, TRUE
    ],
)
def test_impress_calc_and_excel_97_files_read_as_their_office_copies(office, copy, hidden):
    """The same deck or workbook, saved by LibreOffice as .odp, .ods or Excel 97's .xls,
    reads word for word as the PowerPoint or Excel file it came from: slides and notes,
    lists, a table, a merged title, figures and dates as the sheet shows them, and the
    hidden slide or sheet left out."""
    read = [
        extract(
            DOCUMENTS / name, name.split(".")[1], password="", budget=BUDGET, ocr_languages="eng"
        )
        for name in (office, copy)
    ]
    assert read[1].pages[0].text == read[0].pages[0].text
    assert read[1].details[hidden] == read[0].details[hidden]
    assert "2019" not in read[1].pages[0].text  # the hidden slide's or sheet's


@pytest.mark.parametrize(
    "rtf",
    [
        r"{\rtf1\ansi \uc Hola}",  # a count that is not there
        r"{\rtf1\ansi \u99999999 Hola}",  # a character past Unicode
        r"{\rtf1\ansi\ansicpg99999 Se\'f1al}",  # a code page nobody has
        r"{\rtf1{\pict\bin Hola}}",  # binary data of no length
        "{\\rtf1" + "{" * 50_000 + "Hola",  # groups never closed
        r"{\rtf1{\stylesheet{\s1 heading 1;}\pard\s1 Hola\par}",  # a stylesheet never closed
    ],
)
def test_a_hostile_rtf_is_read_or_refused_with_a_sentence(tmp_path, rtf):
    path = tmp_path / "raro.rtf"
    path.write_text(rtf, encoding="latin-1")
    try:
        extraction = extract(path, FileKind.RTF, password="", budget=BUDGET, ocr_languages="eng")
    except IngestionError as exc:
        assert "RTF file is damaged" in exc.english
    else:
        assert isinstance(extraction.pages[0].text, str)


def test_an_rtf_s_headings_are_read_by_their_style_name_or_outline_level(tmp_path):
    """striprtf keeps no styles: an RTF's headings were read as paragraphs, so its chunks had
    no section path. A heading style is known by its name in the writer's language (Word in
    Spanish: "Título 2", escaped) or by the outline level Word gives it."""
    rtf = (
        r"{\rtf1\ansi\ansicpg1252{\stylesheet{\s0 Normal;}"
        r"{\s1\outlinelevel0\b Encabezado principal;}{\s2\b T\'edtulo 2;}}"
        r"\pard\plain\s1 Reglamento del club\par"
        r"\pard\plain\s2 Horario de la piscina\par"
        r"\pard\plain\s0 Abre a las 9:00. Escribe \\s1 en la consola.\par"
        r"\trowd\cellx2000\cellx4000\pard\intbl\s2 Plan\cell\pard\intbl Precio\cell\row"
        r"\trowd\cellx2000\cellx4000\pard\intbl Pro\cell\pard\intbl 49 \'80\cell\row}"
    )
    path = tmp_path / "reglamento.rtf"
    path.write_text(rtf, encoding="latin-1")

    text = extract(path, FileKind.RTF, password="", budget=BUDGET, ocr_languages="eng")
    assert text.pages[0].text == (
        "# Reglamento del club\n\n## Horario de la piscina\n\n"
        "Abre a las 9:00. Escribe \\s1 en la consola.\n\nPlan: Pro · Precio: 49 €"
    )


def test_a_sheet_repeating_a_row_or_cell_a_million_times_is_not_expanded(tmp_path):
    """Calc writes a formatted sheet's empty rest as one row "repeated 1,048,576 times"; a
    hostile file repeats a filled one as often, or writes a count that is not a number."""
    table = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
    content = (
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        f'xmlns:table="{table}" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">'
        "<office:body><office:spreadsheet><table:table table:name='Hoja'>"
        "<table:table-row><table:table-cell><text:p>Sala</text:p></table:table-cell>"
        "<table:table-cell><text:p>Aforo</text:p></table:table-cell></table:table-row>"
        "<table:table-row table:number-rows-repeated='1048576'>"
        "<table:table-cell table:number-columns-repeated='16384'><text:p>x</text:p></table:table-cell>"
        "</table:table-row>"
        "<table:table-row table:number-rows-repeated='mil'><table:table-cell><text:p>Norte</text:p>"
        "</table:table-cell><table:table-cell table:number-columns-repeated='-3'><text:p>12</text:p>"
        "</table:table-cell></table:table-row>"
        "<table:table-row table:number-rows-repeated='1048000'><table:table-cell "
        "table:number-columns-repeated='1024'/></table:table-row>"
        "</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    path = tmp_path / "hoja.ods"
    path.write_bytes(odf_package("application/vnd.oasis.opendocument.spreadsheet", content))

    text = (
        extract(path, FileKind.ODS, password="", budget=BUDGET, ocr_languages="eng").pages[0].text
    )
    lines = text.split("\n\n")
    assert lines[-1] == "Sala: Norte · Aforo: 12"
    assert len(lines) == 1 + MAX_REPEATED_ROWS + 1
    assert lines[1].count("x") == MAX_COLUMNS


# The part each format's reader needs first, and one it reads later.
MAIN_PARTS = {
    "docx": ("[Content_Types].xml", "word/document.xml"),
    "pptx": ("[Content_Types].xml", "ppt/slides/slide1.xml"),
    "xlsx": ("[Content_Types].xml", "xl/worksheets/sheet1.xml"),
    "odt": ("mimetype", "content.xml"),
    "ods": ("mimetype", "content.xml"),
    "odp": ("mimetype", "content.xml"),
    "epub": ("mimetype", "EPUB/content.opf"),
}


@pytest.mark.parametrize(("kind", "part"), [(k, p) for k, ps in MAIN_PARTS.items() for p in ps])
def test_a_file_damaged_in_transit_is_refused_with_a_sentence(tmp_path, kind, part):
    """A fuzzer's damaged files (a part whose checksum fails, a broken compressed stream)
    escaped as zipfile and zlib errors: the upload answered 500, or the worker's task
    crashed and the document said "unexpected error" instead of what to do."""
    data = with_bad_checksum(build(kind), part)
    path = tmp_path / f"roto.{kind}"
    path.write_bytes(data)
    with pytest.raises(IngestionError, match="damaged"):
        extract(path, kind_of(data, path.name), password="", budget=BUDGET, ocr_languages="eng")


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("b.epub", lambda data: replace_part(data, "EPUB/content.opf", "<package/>")),
        ("cuotas.xls", lambda data: data[:0x4C] + b"\x01\xff" * 10 + data[0x60:]),  # MSAT
        ("cuotas.xls", lambda data: data[: len(data) // 2]),
        ("b.xlsx", lambda data: replace_part(data, "xl/worksheets/sheet1.xml", "<worksheet><x")),
    ],
)
def test_a_damaged_book_or_workbook_is_refused_with_a_sentence(tmp_path, name, damage):
    """EbookLib failed with AttributeError, xlrd with CompDocError or struct.error, openpyxl
    with a ParseError."""
    original = build(name[2:]) if name.startswith("b.") else (DOCUMENTS / name).read_bytes()
    path = tmp_path / name
    path.write_bytes(damage(original))
    with pytest.raises(IngestionError, match="damaged"):
        extract(
            path, kind_of(path.read_bytes(), name), password="", budget=BUDGET, ocr_languages="eng"
        )


def test_a_page_with_control_characters_is_read(tmp_path):
    """libxml2 keeps a control character it parsed and refuses it when set back."""
    path = tmp_path / "raro.html"
    path.write_bytes(b"<html><body><p>Horario\x06 de verano</p><p>Abre a las 8.</p></body></html>")
    assert blocks_of(path, FileKind.HTML) == ["Horario de verano", "Abre a las 8."]


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_a_document_damaged_past_its_upload_check_fails_with_a_sentence():
    """The upload reads only what tells the format: a damaged body part surfaced in the
    worker, whose task crashed ("stopped by an unexpected error… tell whoever runs the
    product", though saving the file again is the fix)."""
    document = make_document(
        with_bad_checksum(build("docx"), "word/document.xml"), filename="roto.docx"
    )
    assert document.status == DocumentStatus.FAILED
    assert "a part of it cannot be read back" in document.error


# Extracts a file in a process of its own, held to a memory limit once its imports are done;
# prints what extracting it raised. (A fork of the test session could hang: it inherits the
# session's threads' locks, held by threads that no longer exist in the child.)
_EXTRACT_WITHIN_MEMORY = """
import resource, sys
from pathlib import Path
import django
django.setup()
from knowledge.extraction import Budget, IngestionError, extract
from knowledge.models import FileKind
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    extract(Path(sys.argv[1]), FileKind.XLS, password="",
            budget=Budget(max_pages=2000, max_content_bytes=10**8, max_seconds=60),
            ocr_languages="eng")
    print("read")
except IngestionError as exc:
    print(exc.english)
except MemoryError:
    print("MemoryError")
"""


def test_a_workbook_whose_sectors_loop_is_refused_without_eating_memory():
    """A 7 KB fuzzed .xls: xlrd's compound-file reader followed its looping sector chain,
    holding 6 GB within two minutes. Run in a process held to 2 GB, so a regression fails
    here instead of exhausting the machine."""
    import os  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _EXTRACT_WITHIN_MEMORY,
            str(DOCUMENTS / "looping.xls"),
            str(2 * 1024**3),
        ],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Excel file is damaged" in done.stdout, done.stderr[-2000:]
