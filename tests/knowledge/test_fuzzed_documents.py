"""Damaged documents of every format, made the way a fuzzer makes them: bytes changed, cut
or inserted in one part of an archive, or anywhere in the file. Each is refused with a
sentence (an IngestionError) or read; nothing else may escape, since anything else is a
500 at upload or a crashed task that tells the admin nothing. The seed is fixed, so a
failure here is a case to add to the readers' handling, not noise."""

from __future__ import annotations

import functools
import io
import random
import zipfile
from pathlib import Path

import pytest

from knowledge.extraction import Budget, IngestionError, detect_kind, extract
from tests.documents import DOCUMENTS, KINDS, build

BUDGET = Budget(max_pages=50, max_content_bytes=10**7, max_seconds=10)
CASES_PER_FILE = 12
REAL_FILES = (
    "cuotas.xls", "calendario.xls", "handbook.rtf", "normas.odp", "cuotas.ods",
    "reglamento.docx", "deck.pptx", "tarifas.xlsx", "handbook.epub",
)  # fmt: skip
INSERTED = (b"<", b">", b'"', b"&", b"999999999", b"-1", b"\x00", b"\xff\xfe")


@functools.cache
def samples() -> dict[str, bytes]:
    built = {f"built.{kind}": build(kind) for kind in KINDS}
    return built | {name: (DOCUMENTS / name).read_bytes() for name in REAL_FILES}


def damaged_part(data: bytes, rng: random.Random) -> bytes:
    """The archive rewritten whole, one part's bytes changed: it opens, its part misleads."""
    source = zipfile.ZipFile(io.BytesIO(data))
    names = source.namelist()
    victim = rng.choice(names)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            part = source.read(name)
            archive.writestr(name, _mutated(part, rng, 8) if name == victim else part)
    return out.getvalue()


def _mutated(data: bytes, rng: random.Random, changes: int) -> bytes:
    mutable = bytearray(data)
    for _ in range(rng.randint(1, changes)):
        if not mutable:
            break
        at = rng.randrange(len(mutable))
        choice = rng.random()
        if choice < 0.4:
            mutable[at] = rng.randrange(256)
        elif choice < 0.7:
            del mutable[at : at + rng.randint(1, 50)]
        else:
            mutable[at:at] = rng.choice(INSERTED)
    return bytes(mutable)


def cases() -> list[tuple[str, int]]:
    return [(name, number) for name in samples() for number in range(CASES_PER_FILE)]


@pytest.mark.parametrize(("name", "number"), cases())
def test_a_damaged_document_is_read_or_refused_with_a_sentence(tmp_path, name, number):
    rng = random.Random(f"{name}-{number}")
    data = samples()[name]
    is_archive = data[:2] == b"PK"
    damaged = damaged_part(data, rng) if is_archive and number % 3 else _mutated(data, rng, 20)
    path = tmp_path / name
    path.write_bytes(damaged)
    try:
        with path.open("rb") as file:
            kind = detect_kind(file, name, max_unpacked_bytes=10**8)
        extract(Path(path), kind, password="", budget=BUDGET, ocr_languages="eng")
    except IngestionError as exc:
        assert exc.english  # a sentence for the admin


@pytest.mark.parametrize(
    "name",
    [
        "fuzzed-no-target.pptx",
        "fuzzed-codepage.xls",
        "fuzzed-empty-workbook.xls",
        "fuzzed-encoding.xlsx",
    ],
)
def test_the_fuzzer_s_earlier_finds_are_refused_with_a_sentence(name):
    """Kept from longer runs (3,910 cases of Office, OpenDocument, EPUB, RTF and HTML; 440 of PDFs and images): each escaped as a library's own error."""
    path = DOCUMENTS / name
    with path.open("rb") as file:
        kind = detect_kind(file, name, max_unpacked_bytes=10**8)
    with pytest.raises(IngestionError, match="damaged"):
        extract(path, kind, password="", budget=BUDGET, ocr_languages="eng")


def one_page_pdf(content: bytes, filter_name: str = "") -> bytes:
    """A one-page PDF drawing ``content``, its stream marked with ``filter_name``."""
    return pdf_of([(content, filter_name)])


def pdf_of(pages: list[tuple[bytes, str]]) -> bytes:
    """A PDF whose pages draw each ``content``, its stream marked with its filter's name."""
    from pypdf import PdfWriter  # noqa: PLC0415 - builds the damaged files below
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject  # noqa: PLC0415

    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    fonts = DictionaryObject({NameObject("/F1"): writer._add_object(font)})
    for content, filter_name in pages:
        page = writer.add_blank_page(200, 200)
        stream = DecodedStreamObject()
        stream.set_data(content)
        if filter_name:
            stream[NameObject("/Filter")] = NameObject(filter_name)
        page[NameObject("/Contents")] = writer._add_object(stream)
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("content", "filter_name"),
    [
        (b"BT /F1 12 Tf 10 10 Td 1 0 R Tj (Hola) Tj ET", ""),  # pypdf: AssertionError
        (b"BT /F1 12 Tf 10 10 Td " + b"1" * 100 + b" 0 Td (Hola) Tj ET", ""),  # LimitReachedError
        (b"BT /F1 12 Tf 10 10 Td (Hola) Tj ET", "/FlateDecod"),  # NotImplementedError
    ],
)
def test_the_fuzzer_s_damaged_pdfs_are_refused_with_a_sentence(tmp_path, content, filter_name):
    """Found in 440 fuzzed PDFs and images: pages whose drawing pypdf cannot parse escaped
    as pypdf's own errors (an object reference inside a page's drawing, a number past its
    length limit, a misspelled filter)."""
    path = tmp_path / "roto.pdf"
    path.write_bytes(one_page_pdf(content, filter_name))
    with pytest.raises(IngestionError, match="PDF is damaged"):
        extract(path, "pdf", password="", budget=BUDGET, ocr_languages="eng")


def test_a_pdf_s_damaged_page_is_left_out_and_its_other_pages_read(tmp_path):
    """One damaged page refused the whole PDF; its readable pages are knowledge too."""
    path = tmp_path / "normas.pdf"
    path.write_bytes(
        pdf_of(
            [
                (b"BT /F1 12 Tf 10 100 Td (La piscina abre a las ocho.) Tj ET", ""),
                (b"BT /F1 12 Tf 10 10 Td 1 0 R Tj (Hola) Tj ET", ""),  # damaged
                (b"BT /F1 12 Tf 10 100 Td (El gimnasio cierra a las diez.) Tj ET", ""),
            ]
        )
    )
    extraction = extract(path, "pdf", password="", budget=BUDGET, ocr_languages="eng")
    assert [page.text.strip() for page in extraction.pages] == [
        "La piscina abre a las ocho.",
        "",
        "El gimnasio cierra a las diez.",
    ]
    assert extraction.details["unreadable_pages"] == [2]


def test_a_zip_whose_directory_points_before_the_file_is_refused_as_damaged():
    """Found fuzzing e-mails (a mutated .xlsx attachment): a directory offset past its real
    place shifts every member's to a negative one, and zipfile raised ValueError ("negative
    seek value") instead of its own error."""
    data = bytearray((DOCUMENTS / "tarifas.xlsx").read_bytes())
    end = data.rfind(b"PK\x05\x06")
    data[end + 16 : end + 20] = (0x7FFFFFFF).to_bytes(4, "little")
    with pytest.raises(IngestionError, match="damaged"):
        detect_kind(io.BytesIO(bytes(data)), "tarifas.xlsx", max_unpacked_bytes=10**8)
