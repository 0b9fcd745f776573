from __future__ import annotations

import codecs
import shutil

import pytest
from django.test import SimpleTestCase

from knowledge.extraction import IngestionError, decode_text, detect_kind, extract_pdf
from knowledge.models import FileKind
from tests.conftest import PDFS

HAS_TESSERACT = shutil.which("tesseract") is not None


def pdf(name, password="", ocr="spa+por+eng"):
    return extract_pdf(PDFS / name, password=password, max_pages=2000, ocr_languages=ocr)


def text_of(extraction):
    return "\n".join(page.text for page in extraction.pages)


class DetectKindTests(SimpleTestCase):
    def test_pdf_by_magic_bytes_whatever_the_name(self):
        assert detect_kind(b"%PDF-1.7\n...", "notes.txt") == FileKind.PDF

    def test_markdown_and_text_by_name_once_content_is_text(self):
        assert detect_kind(b"# Title\n", "guide.md") == FileKind.MD
        assert detect_kind(b"hello", "readme.TXT") == FileKind.TXT

    def test_images_and_office_files_are_refused_by_content(self):
        for head, word in [
            (b"\x89PNG\r\n", "PNG"),
            (b"PK\x03\x04", "ZIP"),
            (b"\xff\xd8\xff\xe0", "JPEG"),
        ]:
            with self.assertRaisesMessage(IngestionError, word):
                detect_kind(head + b"\x00" * 20, "renamed.pdf.txt")

    def test_other_binary_is_refused(self):
        with self.assertRaisesMessage(IngestionError, "binary"):
            detect_kind(b"\x01\x02\x00\x00abc", "data.txt")

    def test_utf16_text_is_not_mistaken_for_binary(self):
        assert (
            detect_kind(codecs.BOM_UTF16_LE + "hola".encode("utf-16-le"), "a.txt") == FileKind.TXT
        )


class DecodeTextTests(SimpleTestCase):
    def test_utf8_with_and_without_bom(self):
        assert decode_text("acción".encode()) == ("acción", {"encoding": "utf-8"})
        assert decode_text(codecs.BOM_UTF8 + "ação".encode())[0] == "ação"

    def test_utf16_with_bom(self):
        text, details = decode_text("Olá, mundo".encode("utf-16"))
        assert text == "Olá, mundo"
        assert details["encoding"] == "utf-16"

    def test_legacy_encoding_is_detected_and_recorded(self):
        original = "La información de la reunión está en el acta de configuración. " * 5
        text, details = decode_text(original.encode("cp1252"))
        assert text == original
        assert details["encoding_detected"] is True


class PdfCorpusTests(SimpleTestCase):
    def test_normal_multi_page_pdf_keeps_page_numbers(self):
        extraction = pdf("pdflatex-4-pages.pdf")
        assert extraction.page_count == 4
        assert [page.number for page in extraction.pages] == [1, 2, 3, 4]
        assert len(text_of(extraction)) > 10000

    def test_encrypted_pdf_opens_with_its_password(self):
        assert "Lorem ipsum" in text_of(
            pdf("libreoffice-writer-password.pdf", password="openpassword")
        )

    def test_encrypted_pdf_without_password_says_so(self):
        with pytest.raises(IngestionError, match="encrypted.*password"):
            pdf("libreoffice-writer-password.pdf")

    def test_wrong_password_says_so(self):
        with pytest.raises(IngestionError, match="not correct"):
            pdf("encryption_openpassword.pdf", password="guess")

    def test_corrupt_pdf(self):
        with pytest.raises(IngestionError, match="damaged or incomplete.*startxref"):
            pdf("invalid.pdf")

    def test_cyclic_page_tree(self):
        with pytest.raises(IngestionError, match="loops back on itself"):
            pdf("T02-02_002_page-tree-kids-links-recursive.pdf")

    def test_premature_eof_is_recovered(self):
        assert "Hello PDF-world!" in text_of(pdf("T04_006_premature-EOF.pdf"))

    def test_javascript_is_ignored_and_text_kept(self):
        assert "JavaScript example" in text_of(pdf("javascript.pdf"))

    def test_page_limit(self):
        with pytest.raises(IngestionError, match="4 pages; the limit is 3"):
            extract_pdf(
                PDFS / "pdflatex-4-pages.pdf", password="", max_pages=3, ocr_languages="eng"
            )


class OcrTests(SimpleTestCase):
    def test_scan_without_ocr_installed_says_so(self):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(shutil, "which", lambda name: None)
            with pytest.raises(IngestionError, match="OCR is not installed"):
                pdf("francais.pdf")

    @pytest.mark.skipif(not HAS_TESSERACT, reason="tesseract not installed (.ci/run installs it)")
    @pytest.mark.slow
    def test_scan_is_read_by_ocr(self):
        extraction = pdf("francais.pdf")
        assert extraction.details["ocr"] is True
        assert "whisky au juge" in text_of(extraction)  # a French pangram, accents included

    @pytest.mark.skipif(not HAS_TESSERACT, reason="tesseract not installed (.ci/run installs it)")
    def test_text_drawn_as_curves_fails_even_with_ocr(self):
        with pytest.raises(IngestionError, match="no text layer"):
            pdf("vector.pdf")


# Every file of the shared corpus and what must become of it (extraction + quality gate).
# OCR-dependent outcomes are checked in OcrTests, where Tesseract's presence is known.
CORPUS = {
    "pdflatex-4-pages.pdf": "ok",
    "multicolumn.pdf": "ok",
    "google-doc-document.pdf": "ok",
    "GeoTopo-komprimiert.pdf": "ok",
    "habibi.pdf": "ok",
    "test_fontArialNotEmbedded.pdf": "ok",
    "javascript.pdf": "ok",
    "T04_006_premature-EOF.pdf": "ok",
    "libreoffice-writer-password.pdf": "encrypted",
    "encryption_openpassword.pdf": "encrypted",
    "invalid.pdf": "damaged",
    "T02-02_002_page-tree-kids-links-recursive.pdf": "loops back",
    "truetype_font_nomapping.pdf": "unreadable",
    "type3_font_nomapping.pdf": "unreadable",
}


SLOW_PDFS = {"GeoTopo-komprimiert.pdf"}  # 200+ pages: seconds, left to `make test`


@pytest.mark.parametrize(
    ("name", "outcome"),
    [
        pytest.param(name, outcome, marks=[pytest.mark.slow] if name in SLOW_PDFS else [])
        for name, outcome in sorted(CORPUS.items())
    ],
)
def test_corpus_outcomes(name, outcome):
    from knowledge.normalize import check_quality, normalize_text

    try:
        check_quality(normalize_text(text_of(pdf(name))))
        result = "ok"
    except IngestionError as exc:
        result = exc.message
    assert outcome in result if outcome != "ok" else result == "ok"


def test_the_corpus_table_covers_every_file():
    ocr_cases = {
        "francais.pdf",
        "epson.pdf",
        "c02-22.pdf",
        "vector.pdf",
        "veraPDFHiResWrongObjectID.pdf",
    }
    assert {p.name for p in PDFS.glob("*.pdf")} == set(CORPUS) | ocr_cases


def test_a_file_missing_from_storage_is_not_called_damaged(tmp_path):
    from knowledge.extraction import extract

    for kind in ("pdf", "txt"):
        with pytest.raises(IngestionError, match="missing from storage"):
            extract(tmp_path / "gone", kind, password="", max_pages=10, ocr_languages="eng")
