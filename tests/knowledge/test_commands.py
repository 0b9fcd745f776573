from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from knowledge import ingestion
from knowledge.models import Chunk, Document, Embedding, EmbeddingSpace, SentenceEmbedding
from knowledge.search import sentence_vectors
from tests.conftest import PDFS
from tests.factories import make_document, make_license
from tests.fakes import FakeGemini

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_embedder", "media_root")]


def run_ingest(*args):
    out = StringIO()
    try:
        call_command("ingest", *args, stdout=out, stderr=StringIO())
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def test_ingest_json_reports_each_file_and_exits_1_when_any_failed(tmp_path):
    good = tmp_path / "nota.md"
    good.write_text("# Nota\n\nEl ascensor se revisa cada lunes.")
    code, lines = run_ingest(str(good), str(PDFS / "invalid.pdf"), "--json")

    assert code == 1
    assert [(line["file"].rsplit("/", 1)[-1], line["status"]) for line in lines] == [
        ("nota.md", "ready"),
        ("invalid.pdf", "failed"),
    ]
    assert lines[0]["chunks"] == 1 and lines[0]["error"] == ""
    assert "damaged" in lines[1]["error"]
    fields = {
        "file", "document_id", "status", "chunks", "duplicate_chunks_skipped", "error",
        "duplicate", "kind", "split", "chunk_size", "chunk_overlap",
    }  # fmt: skip
    assert set(lines[0]) == fields | {"sentence_groups"}
    assert set(lines[1]) == fields
    assert (lines[0]["kind"], lines[0]["split"], lines[0]["chunk_size"]) == (
        "md",
        "structure",
        None,
    )
    assert lines[0]["duplicate"] is False
    # The worker's second pass, run here: a one-sentence note keeps its own vector.
    assert lines[0]["sentence_groups"] == 0
    assert SentenceEmbedding.objects.count() == 1


def test_ingesting_the_same_file_again_says_duplicate(tmp_path):
    make_license(machine_id="sala-01")
    first, again = tmp_path / "normas.md", tmp_path / "copia.md"
    first.write_text("# Normas\n\nLa piscina abre a las nueve.")
    again.write_text(first.read_text())
    run_ingest(str(first), "--json")

    code, lines = run_ingest(str(again), "--json")
    assert code == 0
    assert lines[0]["duplicate"] is True and lines[0]["duplicate_of"] == "normas.md"
    assert Document.objects.count() == 1

    # Another scope is not a duplicate: each license may hold its own copy.
    code, lines = run_ingest(str(again), "--license", "sala-01", "--json")
    assert lines[0]["duplicate"] is False and Document.objects.count() == 2


def test_a_file_whose_passages_are_all_known_says_so(tmp_path):
    """A scan of a notice already uploaded as text said "ready, 0 chunks", read as failed."""
    (tmp_path / "aviso.md").write_text("# Aviso\n\nEl ascensor se revisa el martes.")
    (tmp_path / "aviso-copia.txt").write_text("El ascensor se revisa el martes.\n")
    run_ingest(str(tmp_path / "aviso.md"), "--json")

    _code, [line] = run_ingest(str(tmp_path / "aviso-copia.txt"), "--json")
    assert (line["chunks"], line["duplicate_chunks_skipped"]) == (0, 1)
    out = StringIO()
    (tmp_path / "otra-copia.txt").write_text("El ascensor se revisa el martes.\n\n")
    call_command("ingest", str(tmp_path / "otra-copia.txt"), stdout=out, stderr=StringIO())
    assert "ready, 0 chunks (1 already in this scope, not stored again)" in out.getvalue()


def test_replace_makes_a_changed_file_its_namesakes_new_version(tmp_path):
    # A nightly `ingest DIR` kept every edited file's old version searchable beside the new.
    make_license(machine_id="sala-01")
    handbook = tmp_path / "normas.md"
    handbook.write_text("# Piscina\n\nAbre a las nueve.\n\n# Gimnasio\n\nCierra el domingo.")
    _code, [first] = run_ingest(str(handbook), "--license", "sala-01", "--json")
    handbook.write_text("# Piscina\n\nAbre a las diez.\n\n# Gimnasio\n\nCierra el domingo.")

    code, [line] = run_ingest(str(handbook), "--license", "sala-01", "--replace", "--json")
    assert code == 0 and line["status"] == "ready"
    assert (line["document_id"], line["new_version_of"]) == (first["document_id"], "normas.md")
    assert Document.objects.count() == 1
    contents = " ".join(Chunk.objects.values_list("content", flat=True))
    assert "a las diez" in contents and "a las nueve" not in contents

    code, [same] = run_ingest(str(handbook), "--license", "sala-01", "--replace", "--json")
    assert same["duplicate"] is True and "new_version_of" not in same
    code, [other] = run_ingest(str(handbook), "--replace", "--json")  # global has none
    assert other["document_id"] != first["document_id"] and Document.objects.count() == 2
    out = StringIO()
    handbook.write_text("# Piscina\n\nAbre a las once.")
    call_command("ingest", str(handbook), "--replace", stdout=out, stderr=StringIO())
    assert "(new version of normas.md): ready, 1 chunk" in out.getvalue()


def test_ingest_into_a_license_scope_exits_0_when_all_ready(tmp_path):
    license = make_license(machine_id="sala-01")
    note = tmp_path / "n.txt"
    note.write_text("Texto de la licencia.")

    code, lines = run_ingest(str(note), "--license", "sala-01", "--json")

    assert code == 0
    assert Document.objects.get(pk=lines[0]["document_id"]).license == license


def test_unreadable_and_unknown_inputs_fail_cleanly(tmp_path):
    code, lines = run_ingest(str(tmp_path / "missing.txt"), "--json")
    assert (
        code == 1
        and lines[0]["error"] == "cannot be read: No such file or directory"
        and lines[0]["document_id"] is None
    )

    with pytest.raises(CommandError, match="No license with machine_id nope"):
        call_command("ingest", str(PDFS / "javascript.pdf"), "--license", "nope")


def test_reembed_moves_every_chunk_to_the_new_model_and_drops_the_old(settings, monkeypatch):
    make_document("# Uno\n\nPrimer texto.\n\n# Dos\n\nSegundo texto.", filename="a.md")
    make_document(
        "Tercer texto, de otro documento que tiene dos frases. La segunda frase también "
        "cuenta con sus propias palabras.",
        filename="b.txt",
    )
    assert EmbeddingSpace.objects.get(is_active=True).model == "fake-hash@384"

    with FakeGemini() as gemini:
        settings.GEMINI_API_KEY, settings.GEMINI_BASE_URL = "k", gemini.url
        out = StringIO()
        call_command("reembed", "--model", "gemini", stdout=out, stderr=StringIO())

    assert EmbeddingSpace.objects.get(is_active=True).model == "gemini-embedding-001@768"
    assert set(Embedding.objects.values_list("model", flat=True)) == {"gemini-embedding-001@768"}
    assert Embedding.objects.count() == Chunk.objects.count() == 3
    assert "recall@10 on a sample: 1.000" in out.getvalue()
    assert "and 2 sentence groups" in out.getvalue()
    # Two groups embedded; the two one-sentence chunks keep their own vectors as their group's.
    new_model = SentenceEmbedding.objects.filter(embedding__model="gemini-embedding-001@768")
    assert new_model.count() == SentenceEmbedding.objects.count() == 4  # the old ones went
    assert not EmbeddingSpace.objects.filter(model="fake-hash@384").exists()


def test_reembed_rejects_an_unknown_model():
    with pytest.raises(CommandError, match="Unknown model"):
        call_command("reembed", "--model", "word2vec")


def test_embed_sentences_catches_up_every_chunk_once(settings):
    document = make_document(
        "La piscina del condominio abre de ocho a veinte horas todos los días. "
        "Las mascotas pueden pasear por los jardines siempre con correa.",
        filename="normas.txt",
        ingest=False,
    )
    ingestion.document_ingest(document_id=document.pk)  # the worker's pass has not run yet
    out = StringIO()

    call_command("embed_sentences", stdout=out, stderr=StringIO())
    call_command("embed_sentences", stdout=out, stderr=StringIO())

    assert "Embedded 2 sentence groups" in out.getvalue()
    assert "Embedded 0 sentence groups" in out.getvalue()
    assert SentenceEmbedding.objects.count() == 2
    settings.SEARCH_SENTENCE_VECTORS = False
    with pytest.raises(CommandError, match="Sentence vectors are off"):
        call_command("embed_sentences")


def test_embed_sentences_looks_at_every_chunk_not_from_the_catch_up_s_mark(fake_embedder):
    """Sentence vectors deleted below the periodic catch-up's mark (knowledge 0032 deletes
    those whose groups changed): the command said "every chunk has its vectors" and left
    them for six hours."""
    document = make_document(
        "La piscina del condominio abre de ocho a veinte horas todos los días. "
        "Las mascotas pueden pasear por los jardines siempre con correa.",
        filename="normas.txt",
    )
    sentence_vectors.sentences_embed_missing()  # the mark: past every embedding
    SentenceEmbedding.objects.filter(embedding__chunk__document=document).delete()
    out = StringIO()

    call_command("embed_sentences", stdout=out, stderr=StringIO())

    assert "Embedded 2 sentence groups" in out.getvalue()
    assert SentenceEmbedding.objects.count() == 2


def test_search_sql_on_an_empty_install_says_why_no_statement_ran():
    out = StringIO()
    call_command("search", "¿horario?", "--sql", stdout=out, stderr=StringIO())

    assert "no statement ran: nothing is searchable yet" in out.getvalue()


def test_search_sql_prints_the_statement_a_query_runs_with_its_parameters():
    make_document("# Horario\n\nLa recepción abre a las ocho.", filename="horario.md")
    out = StringIO()
    call_command("search", "¿horario?", "--sql", stdout=out, stderr=StringIO())
    text = out.getvalue()

    assert "-- statement 1 of" in text and "SELECT" in text and "knowledge_chunk" in text
    assert '"q": "¿horario?"' in text  # the parameters sent with it
    assert "1. horario.md" in text  # and the results after them


def test_a_directory_stands_for_the_files_under_it(tmp_path):
    (tmp_path / "manuales" / "piscina").mkdir(parents=True)
    (tmp_path / "manuales" / ".git").mkdir()
    (tmp_path / "manuales" / "a.md").write_text("# A\n\nEl ascensor se revisa cada lunes.")
    (tmp_path / "manuales" / "piscina" / "b.txt").write_text("La piscina abre a las nueve.")
    (tmp_path / "manuales" / ".git" / "config").write_text("[core]")
    (tmp_path / "manuales" / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (tmp_path / "vacio").mkdir()

    code, lines = run_ingest(str(tmp_path / "manuales"), "--json")

    assert code == 0
    assert [(line["file"].rsplit("/", 1)[-1], line["status"]) for line in lines] == [
        ("a.md", "ready"),
        ("b.txt", "ready"),
    ]
    with pytest.raises(CommandError, match="the directories given are empty"):
        call_command("ingest", str(tmp_path / "vacio"))


def test_ingest_again_queues_the_ready_documents_of_a_kind_in_every_scope_or_one():
    """After an upgrade that reads more of a format (pictures beside a PDF's text), what
    was ingested before is read again without uploading it again."""
    sala = make_license(machine_id="sala-01")
    global_note = make_document("# Nota\n\nEl ascensor se revisa los lunes.", filename="a.md")
    license_note = make_document(
        "# Nota\n\nLa sala abre a las nueve.", filename="b.md", license=sala
    )
    make_document((PDFS / "invalid.pdf").read_bytes(), filename="roto.pdf")
    make_document("Horario de verano.", filename="c.txt")

    out = StringIO()
    call_command("ingest", "--again", "--kind", "md", "--license", "sala-01", stdout=out)
    assert "Queued 1 document(s)" in out.getvalue()
    call_command("ingest", "--again", "--kind", "md", "--kind", "pdf", stdout=out)

    statuses = dict(Document.objects.values_list("filename", "status"))
    assert statuses == {"a.md": "queued", "b.md": "queued", "roto.pdf": "failed", "c.txt": "ready"}
    assert global_note.chunks.exists() and license_note.chunks.exists()  # still searchable


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--again", "nota.md"], "give no files"),
        (["--kind", "pdf", "nota.md"], "--kind chooses the documents --again reads again"),
        (["--again", "--kind", "docx", "--license", "nadie"], "nadie"),
    ],
)
def test_ingest_again_refuses_what_it_cannot_do(args, message):
    with pytest.raises(CommandError, match=message):
        call_command("ingest", *args, stdout=StringIO())


@pytest.mark.parametrize("top_k", ["0", "-1", "51"])
def test_search_refuses_a_number_of_results_out_of_range(top_k):
    """--top-k 0 showed the default ten, as if it had not been given."""
    with pytest.raises(CommandError, match=f"top_k must be between 1 and 50; got {top_k}"):
        call_command("search", "¿horario?", "--top-k", top_k, stdout=StringIO())


class _Terminal(StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("stderr", "drawn"), [(StringIO, False), (_Terminal, True)])
def test_the_progress_bar_is_drawn_for_a_terminal_only(tmp_path, monkeypatch, stderr, drawn):
    """Into a pipe or a log, ingesting a directory wrote "\\r  [####   ]  30% embedding"
    runs between the files' lines."""
    from knowledge.management.commands.ingest import Command

    bars = []
    monkeypatch.setattr(Command, "_draw_progress", lambda self, pk, done: bars.append(pk))
    (tmp_path / "a.md").write_text("# A\n\nEl ascensor se revisa cada lunes.")
    call_command("ingest", str(tmp_path / "a.md"), stdout=StringIO(), stderr=stderr())

    assert bool(bars) is drawn


def test_a_file_name_keeps_only_what_prints_whatever_it_came_through(tmp_path):
    """A browser's upload lost its control characters (Django's parser), one from disk kept
    them: a right-to-left override showed "evil\\u202egpj.exe.txt" as "eviltxt.exe.jpg"."""
    (tmp_path / "evil\u202egpj.exe.txt").write_text("La piscina abre a las nueve.")
    (tmp_path / "  espacios.md ").write_text("# Gimnasio\n\nEl gimnasio abre a las seis.")

    code, lines = run_ingest(str(tmp_path), "--json")

    assert code == 0
    assert sorted(Document.objects.values_list("filename", flat=True)) == [
        "espacios.md",
        "evilgpj.exe.txt",
    ]
