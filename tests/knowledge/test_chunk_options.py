"""Chunking an admin shapes: size, overlap and split mode per upload and as a scope's
default, a preview of the first chunks before anything is stored, and the command's flags."""

from __future__ import annotations

import io
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from knowledge.chunk_options import ChunkOptions, chunking_default_set
from knowledge.chunking import Block, Chunker, ChunkSize
from knowledge.models import Document, SplitMode
from knowledge.preview import chunks_preview
from tests.documents import build
from tests.factories import as_owner, make_document, make_license
from web.exceptions import ApplicationError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_embedder", "media_root")]

# 12 sections of 40 words each (the fake embedder counts a word as a token).
LONG = "\n\n".join(
    f"## Sección {n}\n\n" + " ".join(f"palabra{n}_{i}" for i in range(40)) + "." for n in range(12)
)


def contents(document: Document) -> list[str]:
    return list(document.chunks.order_by("ordinal").values_list("content", flat=True))


class TestPerUpload:
    def test_size_overlap_and_mode_change_the_chunks(self):
        by_structure = make_document(LONG, filename="a.md")
        fixed = make_document(
            LONG + " ",  # other bytes: not a duplicate of the first
            filename="b.md",
            chunking=ChunkOptions(size=100, overlap=20, split=SplitMode.FIXED),
        )

        # By structure every section is its own chunk; fixed windows cross the headings.
        assert by_structure.chunk_count == 12
        assert fixed.chunk_count == 6  # 480 words in windows of ~100 with 20 shared
        first, second = contents(fixed)[:2]
        assert len(first.split()) > 60 and "palabra1_0" in first  # two sections in one
        assert first.split()[-20:] == second.split()[:20]  # the overlap, word for word
        assert fixed.split == "fixed" and fixed.chunk_size == 100 and fixed.chunk_overlap == 20

    def test_a_smaller_size_by_structure_makes_more_chunks_without_cutting_sentences(self):
        text = "# Normas\n\n" + " ".join(
            f"La norma {n} dice algo importante sobre el edificio." for n in range(30)
        )
        default = make_document(text, filename="normas.md")
        small = make_document(text + " ", filename="normas2.md", chunking=ChunkOptions(size=40))

        assert small.chunk_count > default.chunk_count
        assert all(chunk.endswith(".") for chunk in contents(small))

    @pytest.mark.parametrize(
        ("options", "message"),
        [
            (ChunkOptions(size=5), "between 32 and 2048"),
            (ChunkOptions(size=100, overlap=80), "at most half"),
            (ChunkOptions(split="paragraphs"), "structure"),
        ],
    )
    def test_impossible_options_are_refused_with_nothing_stored(self, options, message):
        with pytest.raises(ApplicationError, match=message):
            make_document(LONG, filename="x.md", chunking=options)
        assert not Document.objects.exists()


class TestScopeDefault:
    def test_the_scope_default_applies_to_the_next_upload_and_an_upload_choice_wins(self):
        sala = make_license(machine_id="sala-01")
        before = make_document(LONG, filename="before.md", license=sala)
        chunking_default_set(license=sala, options=ChunkOptions(size=100, overlap=0, split="fixed"))

        after = make_document(LONG + " ", filename="after.md", license=sala)
        own = make_document(
            LONG + "  ", filename="own.md", license=sala, chunking=ChunkOptions(split="structure")
        )
        other_scope = make_document(LONG + "   ", filename="global.md")

        assert (before.split, before.chunk_size) == ("structure", None)
        assert (after.split, after.chunk_size, after.chunk_count) == ("fixed", 100, 5)
        assert (own.split, own.chunk_size) == ("structure", 100)  # the rest from the default
        assert (other_scope.split, other_scope.chunk_size) == ("structure", None)

    def test_a_license_without_its_own_follows_global(self):
        chunking_default_set(license=None, options=ChunkOptions(size=64))
        sala = make_license(machine_id="sala-02")

        assert make_document(LONG, filename="a.md", license=sala).chunk_size == 64


class TestPreview:
    def test_the_preview_shows_the_first_chunks_with_their_section_and_stores_nothing(self):
        preview = chunks_preview(
            file=io.BytesIO(build("pptx")),
            filename="deck.pptx",
            license=None,
            chunking=ChunkOptions(size=64),
            limit=3,
        )

        assert preview.kind == "pptx" and preview.total == 5 and len(preview.pieces) == 3
        assert preview.pieces[0].heading == "Slide 1: Política de vacaciones"
        assert not Document.objects.exists()

    def test_the_console_previews_and_saves_a_scope_default(self, client, admin_user):
        client.force_login(as_owner(admin_user))
        upload = io.BytesIO(LONG.encode())
        upload.name = "largo.md"
        response = client.post(
            reverse("knowledge:document-preview"),
            {
                "scope": "global",
                "file": upload,
                "chunk_size": "100",
                "chunk_overlap": "20",
                "split": "fixed",
                "source_type": "other",
                "language": "auto",
            },
        )
        assert response.status_code == 200, response.content
        payload = response.json()
        assert payload["total_chunks"] == 6 and payload["split"] == "fixed"
        assert payload["chunks"][0]["section"] == "Sección 0"

        saved = client.post(
            reverse("knowledge:chunking-default"),
            {"scope": "global", "chunk_size": "200", "split": "fixed"},
        )
        assert saved.json()["defaults"]["global"] == {
            "chunk_size": 200,
            "chunk_overlap": None,
            "split": "fixed",
        }
        refused = client.post(
            reverse("knowledge:chunking-default"), {"scope": "global", "chunk_size": "1"}
        )
        assert refused.status_code == 400 and "32" in refused.json()["error"]

    def test_a_support_account_may_not_preview(self, client, django_user_model):
        from accounts.roles import role_grant  # noqa: PLC0415

        user = django_user_model.objects.create_user("apoyo", password="x", is_staff=True)
        role_grant(username="apoyo", role="support")
        client.force_login(user)
        response = client.post(reverse("knowledge:document-preview"), {"scope": "global"})
        assert response.status_code == 403


def test_the_ingest_command_takes_the_chunking_flags(tmp_path):
    path = tmp_path / "largo.md"
    path.write_text(LONG)
    out = StringIO()
    call_command(
        "ingest", str(path), "--chunk-size", "100", "--chunk-overlap", "20", "--split", "fixed",
        "--json", stdout=out, stderr=StringIO(),
    )  # fmt: skip
    line = json.loads(out.getvalue())
    assert (line["status"], line["chunks"], line["split"], line["chunk_size"]) == (
        "ready",
        6,
        "fixed",
        100,
    )


def test_fixed_windows_never_exceed_the_size_and_cover_every_word():
    words = [f"w{i}" for i in range(1000)]
    blocks = [Block(" ".join(words[i : i + 37]), f"H{i}", None) for i in range(0, 1000, 37)]
    chunker = Chunker(
        count_tokens=lambda t: len(t.split()), max_tokens=512, size=ChunkSize(90, 30, fixed=True)
    )
    pieces = chunker.chunk(iter(blocks))

    seen = [word for piece in pieces for word in piece.text.split()]
    assert set(seen) == set(words)
    assert all(len(piece.text.split()) + len(piece.heading.split()) <= 90 for piece in pieces)
