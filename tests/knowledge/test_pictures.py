"""Pictures beside a document's text — a screenshot in a Word guide, a scanned notice on
a slide — read where they stand by OCR, with the descriptions their authors wrote; a photo
(OCR reads noise in it), Office's own guessed descriptions and file names left out. The
Word and PowerPoint files are built here; their OpenDocument copies were written by
LibreOffice from them (tests/data/documents/README.md)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import pptx
import pytest
from docx.shared import Inches as WordInches
from PIL import Image, ImageDraw, ImageFont
from pptx.util import Inches
from pypdf import PdfWriter
from pypdf.generic import NameObject

from knowledge.extraction import Budget, extract
from knowledge.extraction.ocr import Word
from knowledge.extraction.pictures import text_paragraphs

DOCUMENTS = Path(__file__).parents[1] / "data" / "documents"
PHOTO = DOCUMENTS / "photo-board.jpg"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BUDGET = Budget(max_pages=2000, max_content_bytes=10**8, max_seconds=120)
BOOKING = ["Reservas de pistas de pádel", "Socios: hasta 7 días antes, de 8:00 a 22:00."]
OFFICE = ["Horario de la secretaría", "Lunes a viernes de 9:00 a 14:00."]
_DOC_PR = "{http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing}docPr"


def screenshot(lines: list[str], path: Path) -> Path:
    """A screenshot of an app's screen: 13 px text on a tinted background."""
    image = Image.new("RGB", (640, 40 + 26 * len(lines)), (240, 244, 250))
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        draw.text((20, 20 + 26 * n), line, fill=(40, 40, 60), font=ImageFont.truetype(FONT, 13))
    image.save(path)
    return path


def guide(tmp_path: Path) -> Path:
    """What ``avisos.odt`` was converted from: text, a described screenshot, a photo whose
    description Office generated, a screenshot described by its file name, text."""
    document = docx.Document()
    document.add_heading("Avisos del club", 1)
    document.add_paragraph("Las reservas se hacen desde la aplicación, como muestra la captura.")
    document.add_picture(str(screenshot(BOOKING, tmp_path / "reservas.png")), WordInches(5))
    document.add_paragraph("La foto muestra el cuadro eléctrico de la sala de máquinas.")
    document.add_picture(str(PHOTO), width=WordInches(4))
    document.add_picture(str(screenshot(OFFICE, tmp_path / "secretaria.png")), WordInches(5))
    document.add_paragraph("Fin de los avisos.")
    described = document.element.body.findall(f".//{_DOC_PR}")
    described[0].set("descr", "Captura de la pantalla de reservas de la aplicación")
    described[1].set(
        "descr", "Imagen que contiene electrónica\n\nDescripción generada automáticamente"
    )
    described[2].set("descr", "secretaria.png")
    path = tmp_path / "avisos.docx"
    document.save(path)
    return path


def deck(tmp_path: Path) -> Path:
    """What ``avisos.odp`` was converted from: a slide of text with a small logo, a slide
    whose content is a described screenshot, a slide of a photo."""
    presentation = pptx.Presentation()
    logo = tmp_path / "logo.png"
    Image.new("RGB", (90, 40), (20, 90, 160)).save(logo)
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Normas"
    slide.placeholders[1].text_frame.text = "Las pistas se reservan con la aplicación."
    slide.shapes.add_picture(str(logo), Inches(8.5), Inches(0.2))
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    slide.shapes.title.text = "Cómo reservar"
    shot = slide.shapes.add_picture(
        str(screenshot(BOOKING, tmp_path / "reservas.png")), Inches(1), Inches(2), Inches(7)
    )
    shot._element._nvXxPr.cNvPr.set("descr", "Captura de la pantalla de reservas")
    slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    slide.shapes.title.text = "La sala de máquinas"
    slide.shapes.add_picture(str(PHOTO), Inches(1), Inches(2), width=Inches(6))
    path = tmp_path / "avisos.pptx"
    presentation.save(path)
    return path


def read(path: Path, budget: Budget = BUDGET):
    extraction = extract(path, path.suffix[1:], password="", budget=budget, ocr_languages="spa+eng")
    return "\n\n".join(page.text for page in extraction.pages), extraction.details


def between(text: str, before: str, after: str) -> str:
    return text[text.index(before) + len(before) : text.index(after)].strip()


@pytest.mark.parametrize("made", ["docx", "odt"])
def test_a_guide_s_screenshots_are_read_where_they_stand(tmp_path, made):
    path = guide(tmp_path) if made == "docx" else DOCUMENTS / "avisos.odt"
    text, details = read(path)

    screen = between(text, "como muestra la captura.", "La foto muestra")
    assert screen.startswith("Picture: Captura de la pantalla de reservas de la aplicación\n\n")
    assert "Socios: hasta 7 días antes, de 8:00 a 22:00." in screen
    # the photo gives nothing (neither OCR's noise nor Office's guess); a file name is no
    # description; the screenshot after it is read in its place
    assert between(text, "sala de máquinas.", "Fin de los avisos.") == (
        "Horario de la secretaría\n\nLunes a viernes de 9:00 a 14:00."
    )
    assert "generada" not in text and "secretaria.png" not in text
    assert details["pictures_read"] == 2 and details["pictures_unread"] == 0


@pytest.mark.parametrize("made", ["pptx", "odp"])
def test_a_slide_s_screenshot_is_read_under_its_slide(tmp_path, made):
    path = deck(tmp_path) if made == "pptx" else DOCUMENTS / "avisos.odp"
    text, details = read(path)

    slide = between(text, "# Slide 2: Cómo reservar", "# Slide 3: La sala de máquinas")
    assert slide.startswith("Picture: Captura de la pantalla de reservas\n\n")
    assert "Socios: hasta 7 días antes" in slide
    assert text.endswith("# Slide 3: La sala de máquinas")  # a photo: no text
    assert details["pictures_read"] == 1 and details["slides"] == 3


def test_a_picture_repeated_is_read_once(tmp_path):
    picture = screenshot(OFFICE, tmp_path / "secretaria.png")
    document = docx.Document()
    for section in ("Primera planta", "Segunda planta"):
        document.add_paragraph(f"{section}: el horario es el de la captura.")
        document.add_picture(str(picture))
    path = tmp_path / "plantas.docx"
    document.save(path)

    text, details = read(path)
    assert text.count("Lunes a viernes de 9:00 a 14:00.") == 1 and details["pictures_read"] == 1


def test_a_damaged_picture_loses_only_itself(tmp_path):
    source = guide(tmp_path)
    damaged = tmp_path / "dañado.docx"
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(damaged, "w") as copy:
        for item in original.infolist():
            data = original.read(item.filename)
            if item.filename.startswith("word/media/") and data.startswith(b"\x89PNG"):
                data = data[:200]  # cut short: Pillow cannot decode it
            copy.writestr(item, data)

    text, details = read(damaged)
    assert "Fin de los avisos." in text and "Picture: Captura de la pantalla" in text
    assert "Lunes a viernes" not in text and details["pictures_read"] == 0


def test_pictures_past_the_page_limit_or_their_time_are_counted_not_read(tmp_path):
    """Pictures get half the reading time and no more than the page limit: the text after
    them is always read, and the document's page says how many were left."""
    document = docx.Document()
    for number in range(12):
        document.add_picture(str(screenshot([*OFFICE, f"Aviso {number}"], tmp_path / "a.png")))
    document.add_paragraph("Fin de los avisos.")
    path = tmp_path / "avisos.docx"
    document.save(path)

    text, details = read(path, Budget(max_pages=1, max_content_bytes=10**8, max_seconds=120))
    assert text.count("Lunes a viernes") == 1 and details == {
        "pictures_read": 1,
        "pictures_unread": 11,
    }
    text, details = read(path, Budget(max_pages=100, max_content_bytes=10**8, max_seconds=3))
    assert text.endswith("Fin de los avisos.")
    assert (
        details["pictures_unread"] >= 6
        and details["pictures_read"] + details["pictures_unread"] == 12
    )


def test_without_tesseract_only_descriptions_are_read(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract on it
    text, details = read(guide(tmp_path))
    assert "Picture: Captura de la pantalla de reservas" in text
    assert "Socios" not in text and "pictures_read" not in details


@pytest.mark.parametrize(
    ("confidences", "kept"),
    [
        ([95, 92, 90, 91, 96], True),  # a screenshot's sentence
        ([88, 91], True),  # a short banner, every word sure
        ([88, 41], False),  # one sure word beside noise: a photo
        ([45, 72, 30, 52, 74, 61, 20, 33], False),  # a photo's shapes read as words
    ],
)
def test_a_picture_is_text_when_enough_of_its_words_read_sure(confidences, kept):
    words = [Word((1, 1), c, f"palabra{n}") for n, c in enumerate(confidences)]
    assert bool(text_paragraphs(words)) is kept


def scanned_page(lines: list[str], path: Path) -> Path:
    """A page as a scanner gives it, saved as a PDF of one image (200 dpi)."""
    image = Image.new("L", (1700, 2200), 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(lines):
        draw.text((120, 200 + 70 * n), line, fill=0, font=ImageFont.truetype(FONT, 40))
    image.save(path, resolution=200)
    return path


def test_a_pdf_s_screenshots_are_read_on_their_page():
    """``avisos.pdf`` is the guide exported by LibreOffice: its text, then what OCR is sure
    of in its pictures, on the page that draws them; the photo gives nothing."""
    extraction = extract(
        DOCUMENTS / "avisos.pdf", "pdf", password="", budget=BUDGET, ocr_languages="spa+eng"
    )
    (page,) = extraction.pages
    assert page.text.index("Fin de los avisos.") < page.text.index("Socios: hasta 7 días")
    assert "Lunes a viernes de 9:00 a 14:00." in page.text
    assert extraction.details == {"pictures_read": 2, "pictures_unread": 0}


def test_a_scanned_page_among_text_pages_is_read_by_ocr(tmp_path):
    """A signed annex scanned onto the end of a contract was lost: OCR ran only when no
    page had text. Its page is read, cited by its number, and named on the document."""
    writer = PdfWriter()
    writer.append(DOCUMENTS / "avisos.pdf")
    annex = ["Anexo firmado", "El socio acepta las normas de uso de las pistas."]
    writer.append(scanned_page(annex, tmp_path / "anexo.pdf"))
    path = tmp_path / "contrato.pdf"
    writer.write(path)

    extraction = extract(path, "pdf", password="", budget=BUDGET, ocr_languages="spa+eng")
    text, annex_page = extraction.pages
    assert annex_page.number == 2 and "acepta las normas de uso" in annex_page.text
    assert "Avisos del club" in text.text and "acepta" not in text.text
    assert extraction.details["scanned_pages"] == [2] and extraction.details["pictures_read"] == 3


def test_a_picture_a_page_lists_but_another_draws_is_read_on_the_drawing_page(tmp_path):
    """Some generators give every page one list of all the document's pictures: a picture is
    read where the page's drawing shows it, not where it is first listed."""
    writer = PdfWriter()
    writer.append(DOCUMENTS / "avisos.pdf")
    writer.append(scanned_page(["Anexo firmado", "Firmado en Valencia."], tmp_path / "a.pdf"))
    first, second = writer.pages
    shared = first["/Resources"]["/XObject"].get_object()
    for name, image in second["/Resources"]["/XObject"].get_object().items():
        shared[NameObject(f"/Scan{name[1:]}")] = image  # listed on page 1, drawn on page 2
    path = tmp_path / "compartido.pdf"
    writer.write(path)

    extraction = extract(path, "pdf", password="", budget=BUDGET, ocr_languages="spa+eng")
    assert "Valencia" not in extraction.pages[0].text
    assert "Firmado en Valencia." in extraction.pages[1].text


def how_to(tmp_path: Path) -> Path:
    """What ``pasos.odt`` was converted from: a "Step | Screenshot" table."""
    document = docx.Document()
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Paso", "Captura"
    table.cell(1, 0).text = "Abre la pantalla de reservas."
    picture = screenshot(BOOKING, tmp_path / "reservas.png")
    table.cell(1, 1).paragraphs[0].add_run().add_picture(str(picture), width=WordInches(3))
    path = tmp_path / "pasos.docx"
    document.save(path)
    return path


@pytest.mark.parametrize("made", ["docx", "odt"])
def test_a_how_to_s_screenshots_in_table_cells_are_read_with_their_row(tmp_path, made):
    """Each screenshot's text is read in its row, after its column's header, with the step
    it shows."""
    text, details = read(how_to(tmp_path) if made == "docx" else DOCUMENTS / "pasos.odt")
    assert text.startswith("Paso: Abre la pantalla de reservas. · Captura: Reservas de pistas")
    assert "Socios: hasta 7 días antes" in text and details["pictures_read"] == 1


def test_pictures_ocr_can_be_switched_off(tmp_path, settings):
    """An operator whose catalogues are all photos saves the second a picture takes."""
    settings.KNOWLEDGE_OCR_PICTURES = False
    text, details = read(guide(tmp_path))
    assert "Picture: Captura de la pantalla de reservas" in text and "Socios" not in text
    extraction = extract(
        DOCUMENTS / "avisos.pdf", "pdf", password="", budget=BUDGET, ocr_languages="spa+eng"
    )
    assert "Socios" not in extraction.pages[0].text and extraction.details == {}
