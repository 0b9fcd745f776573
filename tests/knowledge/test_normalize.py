from __future__ import annotations

from django.test import SimpleTestCase

from knowledge.extraction import IngestionError, PageText
from knowledge.normalize import (
    check_quality,
    normalize_text,
    remove_repeated_margins,
)


class NormalizeTests(SimpleTestCase):
    def test_ligatures_fold_with_nfkc(self):
        assert normalize_text("2. Auﬂage, ﬁnal") == "2. Auflage, final"

    def test_ordinal_indicators_stay_as_written(self):
        """NFKC reads them as letters: a newcomer's "portão nº 4500012345" was quoted back
        as "portão no …"."""
        text = "Portão nº 4500012345, 2ª via, 3ºB, ｎº ５"
        assert normalize_text(text) == "Portão nº 4500012345, 2ª via, 3ºB, nº 5"

    def test_hyphenated_line_breaks_join(self):
        assert normalize_text("la configu-\nración del sistema") == "la configuración del sistema"

    def test_soft_wraps_join_but_paragraphs_stay(self):
        assert normalize_text("una línea\ncontinúa aquí.\n\n\n\nOtro párrafo.") == (
            "una línea continúa aquí.\n\nOtro párrafo."
        )

    def test_whitespace_and_control_characters(self):
        assert normalize_text("a\u00a0\u00a0b\t\tc\x07 d\u200b") == "a b c d"

    def test_characters_that_show_nothing_are_removed(self):
        """A number or a word split by a joiner or turned by a direction override is whole
        to its reader, and to search."""
        text = "Llama al 612\u200d345\u2060678, dia\u200cbetes \u202eal revés\u202c y\ufeff ya"
        assert normalize_text(text) == "Llama al 612345678, diabetes al revés y ya"

    def test_repeated_headers_and_page_numbers_are_removed(self):
        pages = [
            PageText(
                n, f"Manual de Operaciones\nContenido propio de la página {n}.\nPágina {n} de 5"
            )
            for n in range(1, 6)
        ]
        cleaned = remove_repeated_margins(pages)
        assert all("Manual de Operaciones" not in page.text for page in cleaned)
        assert all("de 5" not in page.text for page in cleaned)
        assert "Contenido propio de la página 3." in cleaned[2].text


class QualityGateTests(SimpleTestCase):
    def test_empty_text_is_refused(self):
        with self.assertRaisesMessage(IngestionError, "empty"):
            check_quality("  \n ", pdf=True)

    def test_symbol_garbage_is_refused(self):
        for garbage in ['"7+%-', "/g437/g258", "\ue000\ue001\ue002 abc"]:
            with self.assertRaisesMessage(IngestionError, "unreadable"):
                check_quality(garbage, pdf=True)

    def test_short_real_text_passes(self):
        check_quality("JavaScript example", pdf=True)

    def test_a_table_of_figures_is_language(self):
        """A price list (a CSV or a sheet, written as a Markdown table) is figures between
        pipes and rules: it was refused as 'the PDF's fonts have no character mapping'."""
        rows = "\n".join(f"| {1000 + n} | {n * 3}.50 | 2026-03-1{n} |" for n in range(10))
        check_quality(f"| Código | Precio | Fecha |\n|---|---|---|\n{rows}", pdf=False)

    def test_symbols_outside_a_pdf_are_not_blamed_on_fonts(self):
        with self.assertRaisesMessage(IngestionError, "mostly symbols") as refused:
            check_quality("#$%& *+!? @@@ ~~~ ^^^", pdf=False)
        assert "font" not in str(refused.exception)
