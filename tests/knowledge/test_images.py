"""Images of documents — a scan, a phone photo of a notice, a multi-page TIFF — read by
Tesseract through the upload path; bombs and damaged files refused at upload with a
sentence, before a pixel is decoded."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

import knowledge.extraction.images  # noqa: F401 - registers the HEIC opener with Pillow
from knowledge import uploads
from knowledge.extraction import Budget, IngestionError, extract
from knowledge.models import Document, DocumentStatus, FileKind
from tests.factories import make_document
from tests.knowledge.test_formats import found, kind_of

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BUDGET = Budget(max_pages=2000, max_content_bytes=10**8, max_seconds=120)
NOTICE = [
    "Aviso a los vecinos",
    "La piscina cerrará el lunes por mantenimiento.",
    "El ascensor del bloque B se revisa el martes.",
]


def page(lines: list[str], size: tuple[int, int] = (1700, 700)) -> Image.Image:
    """A page as a scanner would give it: black text on white, 40 px letters."""
    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 40)
    for n, line in enumerate(lines):
        draw.text((80, 80 + 64 * n), line, fill=0, font=font)
    return image


def encoded(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def read(tmp_path: Path, data: bytes, name: str = "aviso.png"):
    path = tmp_path / name
    path.write_bytes(data)
    return extract(path, FileKind.IMAGE, password="", budget=BUDGET, ocr_languages="spa+eng")


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that says it is width × height and holds one empty row: tiny on disk."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" * (width + 1)))
        + chunk(b"IEND", b"")
    )


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("PNG", "aviso.png"),
        ("JPEG", "aviso.jpg"),
        ("WEBP", "aviso.webp"),
        ("HEIF", "IMG_0042.HEIC"),
    ],
)
def test_an_image_of_a_page_is_read_by_its_content(tmp_path, fmt, name):
    data = encoded(page(NOTICE).convert("RGB"), fmt)
    assert kind_of(data, "sin-extension") == FileKind.IMAGE

    text = read(tmp_path, data, name).pages[0].text
    assert "piscina cerrará el lunes" in text and "bloque B" in text


def test_a_phone_photo_stored_sideways_is_read_upright(tmp_path):
    """Phones store the sensor's pixels and an orientation tag (6: turn 90° clockwise)."""
    sideways = page(NOTICE).rotate(90, expand=True).convert("RGB")
    exif = Image.Exif()
    exif[0x0112] = 6
    text = read(tmp_path, encoded(sideways, "JPEG", exif=exif), "foto.jpg").pages[0].text
    assert "piscina cerrará el lunes" in text


def test_each_page_of_a_tiff_is_a_page(tmp_path):
    first, second = (
        page(["Primera página: normas de la piscina."]),
        page(["Segunda página: horario del gimnasio."]),
    )
    data = encoded(first, "TIFF", save_all=True, append_images=[second])

    extraction = read(tmp_path, data, "escaneo.tiff")
    assert [p.number for p in extraction.pages] == [1, 2]
    assert "piscina" in extraction.pages[0].text and "gimnasio" in extraction.pages[1].text


def test_an_image_without_text_says_so(tmp_path):
    with pytest.raises(IngestionError, match="OCR found no text in this image"):
        read(tmp_path, encoded(Image.new("L", (800, 600), 255), "PNG"))


@pytest.mark.parametrize(
    ("width", "height", "megapixels"),
    [
        (8000, 7000, "56 megapixels"),
        (20000, 20000, "400 megapixels"),
    ],  # the second past Pillow's own guard
)
def test_a_picture_too_large_to_read_is_refused_from_its_header(width, height, megapixels):
    bomb = png_header_only(width, height)
    assert len(bomb) < 100_000
    with pytest.raises(IngestionError, match=f"This image is {megapixels}; the limit is 50"):
        kind_of(bomb, "plano.png")


def test_a_truncated_image_is_refused_at_upload_or_when_read(tmp_path):
    png = encoded(page(NOTICE), "PNG")
    with pytest.raises(IngestionError, match="image is damaged or incomplete"):
        kind_of(png[: len(png) // 2], "cortada.png")  # a PNG's chunks are checked at once
    jpeg = encoded(page(NOTICE), "JPEG")
    with pytest.raises(IngestionError, match="image is damaged or incomplete"):
        read(tmp_path, jpeg[: len(jpeg) // 2], "cortada.jpg")  # a JPEG's only when decoded


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_a_scanned_notice_becomes_searchable_knowledge():
    document = make_document(encoded(page(NOTICE), "PNG"), filename="aviso-vecinos.png")

    assert document.status == DocumentStatus.READY, document.error
    assert document.kind == FileKind.IMAGE and document.metadata["ocr"] is True
    top = found("piscina mantenimiento")[0]
    assert "cerrará el lunes por mantenimiento" in top.content
    assert top.page_start is None  # one picture, no page number to cite


@pytest.mark.django_db
@pytest.mark.usefixtures("media_root")
def test_a_bomb_upload_leaves_nothing_behind():
    with pytest.raises(IngestionError, match="megapixels"):
        uploads.document_create(
            file=io.BytesIO(png_header_only(20000, 20000)),
            filename="plano.png",
            license=None,
            enqueue=False,
        )
    assert not Document.objects.exists()


def test_ocr_stops_when_the_reading_time_is_up(tmp_path):
    """The chunk preview gives a reading 20 s (a person waits): one page image could hold
    the request for Tesseract's whole 300 s; it now gets the time left."""
    dense = page([" ".join(NOTICE)] * 50, size=(2480, 3508))
    path = tmp_path / "a4.png"
    path.write_bytes(encoded(dense, "PNG"))
    hurried = Budget(max_pages=10, max_content_bytes=10**8, max_seconds=1)

    with pytest.raises(IngestionError, match="one page image took longer than 1 seconds"):
        extract(path, FileKind.IMAGE, password="", budget=hurried, ocr_languages="spa+eng")


def test_a_scan_pasted_into_word_or_slides_is_read_by_ocr(tmp_path):
    """A Word file or a deck whose only text is in pictures was refused as "empty"; its
    headings are kept and each picture is read like a scanned page, in order."""
    import docx  # noqa: PLC0415
    import pptx  # noqa: PLC0415
    from pptx.util import Inches  # noqa: PLC0415

    scan = tmp_path / "scan.png"
    page(NOTICE).save(scan)
    second = tmp_path / "second.png"
    page(["Horario de la conserjería: de nueve a dos."]).save(second)
    document = docx.Document()
    document.add_heading("Comunicados", 1)
    document.add_picture(str(scan), width=docx.shared.Inches(6))
    document.add_picture(str(second), width=docx.shared.Inches(6))
    word = tmp_path / "comunicados.docx"
    document.save(word)
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[6])  # blank
    slide.shapes.add_picture(str(scan), Inches(0.5), Inches(0.5), width=Inches(9))
    slides = tmp_path / "comunicados.pptx"
    deck.save(slides)

    text = extract(word, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="spa+eng")
    blocks = "\n\n".join(page.text for page in text.pages)
    assert blocks.startswith("# Comunicados\n\n") and text.details["pictures"] == 2
    assert "La piscina cerrará el lunes por mantenimiento." in blocks
    assert blocks.index("mantenimiento") < blocks.index("conserjería")
    text = extract(slides, FileKind.PPTX, password="", budget=BUDGET, ocr_languages="spa+eng")
    assert "El ascensor del bloque B se revisa el martes." in text.pages[-1].text


def test_a_word_file_of_blank_pictures_says_what_ocr_found(tmp_path):
    import docx  # noqa: PLC0415

    blank = tmp_path / "blank.png"
    Image.new("L", (600, 400), 255).save(blank)
    document = docx.Document()
    document.add_picture(str(blank))
    path = tmp_path / "fotos.docx"
    document.save(path)
    with pytest.raises(IngestionError, match="only pictures, and OCR found no text"):
        extract(path, FileKind.DOCX, password="", budget=BUDGET, ocr_languages="spa+eng")


def test_a_document_of_more_pictures_than_pages_allowed_is_refused_before_ocr(tmp_path):
    import docx  # noqa: PLC0415

    document = docx.Document()
    for number in range(3):  # three different pictures: Word stores a repeated one once
        picture = tmp_path / f"aviso-{number}.png"
        page([*NOTICE, f"Aviso número {number}"]).save(picture)
        document.add_picture(str(picture))
    path = tmp_path / "avisos.docx"
    document.save(path)
    small = Budget(max_pages=2, max_content_bytes=10**8, max_seconds=120)
    with pytest.raises(IngestionError, match="only in its 3 pictures; at most 2 are read"):
        extract(path, FileKind.DOCX, password="", budget=small, ocr_languages="spa+eng")
