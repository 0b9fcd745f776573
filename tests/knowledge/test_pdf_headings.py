"""A PDF's headings, read from the size its lines are drawn at."""

from __future__ import annotations

from knowledge.chunking import blocks_from_pages
from knowledge.extraction import Budget, extract
from knowledge.extraction.base import PageText
from knowledge.extraction.pdf_headings import PageLines, SizedLine, marked_pages
from knowledge.normalize import normalize_text
from tests.conftest import PDFS
from tests.documents import DOCUMENTS

BUDGET = Budget(max_pages=2000, max_content_bytes=10**8, max_seconds=120)


def section_paths(path) -> list[str]:
    extraction = extract(path, "pdf", password="", budget=BUDGET, ocr_languages="eng")
    pages = [PageText(p.number, normalize_text(p.text)) for p in extraction.pages]
    blocks = blocks_from_pages(pages, markdown=extraction.markdown, headings=extraction.headings)
    return list(dict.fromkeys(block.heading for block in blocks))


def test_a_report_s_numbered_sections_become_its_chunks_section_paths():
    """56 pages of a real report (Times at 11 pt, sections in Arial at 14 and 12 pt)."""
    paths = section_paths(PDFS / "test_fontArialNotEmbedded.pdf")

    assert any(path.endswith("1 Introduction > 1.1 Scope and target audience") for path in paths)
    assert any(path.endswith("5 Fonts > 5.2 Font types") for path in paths)
    assert not any(path.endswith("Fonts >") for path in paths)


def test_a_title_is_not_glued_to_the_sentence_after_it():
    """«Avisos del club Las reservas se hacen…» was quoted as one sentence."""
    text = (
        extract(DOCUMENTS / "avisos.pdf", "pdf", password="", budget=BUDGET, ocr_languages="eng")
        .pages[0]
        .text
    )

    assert text.startswith("# Avisos del club\n\nLas reservas se hacen desde la aplicación")


def test_a_pdf_in_one_size_has_no_headings():
    assert section_paths(PDFS / "pdflatex-4-pages.pdf") == [""]


def lines(*sized: tuple[str, float]) -> list[SizedLine]:
    return [SizedLine(text, size) for text, size in sized]


BODY = ("El gimnasio abre de lunes a viernes de 7:00 a 22:00 y los sábados por la mañana.", 11.0)


def test_a_title_drawn_on_two_lines_is_one_heading_and_sizes_give_levels():
    (page,) = marked_pages([
        lines(
            ("Reglamento interno del club", 20.0), ("de pádel y tenis", 20.0),
            ("Horarios", 14.0), BODY, BODY, BODY, BODY,
        )
    ])  # fmt: skip

    assert page.startswith("# Reglamento interno del club de pádel y tenis\n\n## Horarios\n\n")


def test_what_only_looks_like_a_heading_is_not_one():
    """A sentence in large type, a formula's symbol, and a line that reads as Markdown."""
    (page,) = marked_pages([
        lines(
            ("Bienvenidos al club.", 16.0), ("x", 16.0), ("# 1 prioridad: el agua", 11.0),
            BODY, BODY, BODY, BODY,
        )
    ])  # fmt: skip

    assert "#" not in page.replace("\\# 1 prioridad", "")


def test_a_document_mostly_in_large_type_is_left_as_it_is():
    """When "headings" would be a third of the text, the body size was misjudged."""
    (page,) = marked_pages([
        lines(
            ("Oferta de verano", 30.0), ("Piscina y gimnasio", 26.0), ("Todo incluido", 22.0),
            ("Válida hasta el 30 de junio.", 11.0), ("Precios con IVA incluido.", 11.0),
        )
    ])  # fmt: skip

    assert "#" not in page


def test_a_line_is_as_large_as_most_of_its_letters():
    """A footnote mark after a heading, or a word set large in a sentence, changes nothing."""
    page, identity = PageLines(), [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    visit = page.visitor()
    for text, size in [
        ("Horario de verano", 18.0), ("1", 8.0), ("\n", 12.0),
        ("La oficina ", 12.0), ("CIERRA", 18.0), (" a las 15:00 en agosto.", 12.0),
    ]:  # fmt: skip
        visit(text, identity, identity, None, size)
    text = "Horario de verano1\nLa oficina CIERRA a las 15:00 en agosto."

    assert [line.size for line in page.finish(text)] == [18.0, 12.0]


def test_text_pypdf_did_not_show_the_visitor_keeps_no_sizes():
    page = PageLines()
    page.visitor()("Horario", [1, 0, 0, 1, 0, 0], [1, 0, 0, 1, 0, 0], None, 18.0)

    assert page.finish("Otro texto") == [SizedLine("Otro texto", 0.0)]
