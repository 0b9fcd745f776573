from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from knowledge import ingestion, reingestion
from knowledge.models import Document, Embedding, SentenceEmbedding
from knowledge.search import search, sentence_vectors
from knowledge.search.types import SearchOptions
from knowledge.search.vector_index import ensure_index, global_index_name, index_name
from licenses.principals import principal_for_admin
from tests.factories import make_document
from tests.fakes import FakeEmbedder
from tests.migrations import latest, migrate

BEFORE_HALFVEC = [("knowledge", "0007_chunk_scoped_lexemes")]
INDEX = index_name(FakeEmbedder.model)


@pytest.mark.django_db(transaction=True)
def test_single_precision_vectors_become_half_precision_and_the_graph_is_rebuilt(
    fake_embedder, media_root
):
    document = make_document("La piscina abre a las ocho.", filename="piscina.md")
    migrate(BEFORE_HALFVEC)
    try:
        with connection.cursor() as cursor:
            # As an installation upgraded from 0007 has it: vectors and a graph built at 64.
            cursor.execute(
                "SELECT format_type(atttypid, NULL) FROM pg_attribute"
                " WHERE attrelid = 'knowledge_embedding'::regclass AND attname = 'vector'"
            )
            assert cursor.fetchone()[0] == "vector"
            cursor.execute(f"ALTER INDEX {INDEX} SET (ef_construction = 64)")
            cursor.execute("SELECT vector::text FROM knowledge_embedding")
            before = [float(x) for x in cursor.fetchone()[0][1:-1].split(",")]
    finally:
        migrate(latest())
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT format_type(atttypid, NULL), attstorage FROM pg_attribute"
            " WHERE attrelid = 'knowledge_embedding'::regclass AND attname = 'vector'"
        )
        assert cursor.fetchone() == ("halfvec", "p")
        cursor.execute("SELECT vector::text FROM knowledge_embedding")
        after = [float(x) for x in cursor.fetchone()[0][1:-1].split(",")]
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = %s", [INDEX])
        assert "ef_construction=128" in cursor.fetchone()[0]
    assert len(after) == len(before)
    assert max(abs(a - b) for a, b in zip(after, before, strict=True)) < 1e-3
    assert document.chunks.count() == 1


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
@pytest.mark.django_db(transaction=True)
def test_the_keyword_index_migration_can_be_run_again_after_a_partial_run(
    fake_embedder, media_root
):
    make_document("La piscina abre a las ocho.", filename="piscina.md")
    migrate([("knowledge", "0006_chunk_scope_key")])
    try:
        with connection.cursor() as cursor:
            # What an interrupted run leaves: the functions and (part of) the new index.
            cursor.execute(
                "CREATE FUNCTION pb_scope_prefix(scope uuid) RETURNS text LANGUAGE sql"
                " IMMUTABLE RETURN 'stale'"
            )
            cursor.execute("CREATE INDEX chunk_scoped_lexemes_gin ON knowledge_chunk (scope_key)")
    finally:
        migrate(latest())
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'chunk_scoped_lexemes_gin'"
        )
        assert "pb_scoped_lexemes(scope_key, search_vector)" in cursor.fetchone()[0]
        cursor.execute("SELECT pb_scope_prefix(%s::uuid)", ["12345678-9abc-4def-8000-000000000001"])
        assert cursor.fetchone()[0] == "123456789abc"
    response = search(
        principal=principal_for_admin("root", license=None),
        query="piscina",
        options=SearchOptions(strategy="keyword"),
    )
    assert [r.filename for r in response.results] == ["piscina.md"]


@pytest.mark.django_db(transaction=True)
def test_a_model_already_in_use_gets_its_global_graph(fake_embedder, media_root):
    make_document("La piscina abre a las ocho.", filename="piscina.md")
    graph = global_index_name(FakeEmbedder.model)

    def definition() -> str | None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [graph])
            row = cursor.fetchone()
        return row[0] if row else None

    migrate([("knowledge", "0010_sentence_embeddings")])
    try:
        assert definition() is None  # as an installation at 0010 has it
    finally:
        migrate(latest())
    assert "hnsw" in definition() and "license_id IS NULL" in definition()
    response = search(
        principal=principal_for_admin("root", license=None),
        query="piscina",
        options=SearchOptions(min_score=-1),
    )
    assert [r.filename for r in response.results] == ["piscina.md"]


def _left_invalid(name: str) -> None:
    """What an interrupted CREATE INDEX CONCURRENTLY leaves behind."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE pg_index SET indisvalid = false WHERE indexrelid = %s::regclass", [name]
        )


def _valid(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indisvalid FROM pg_index WHERE indexrelid = %s::regclass", [name])
        return cursor.fetchone()[0]


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
@pytest.mark.django_db(transaction=True)
def test_a_graph_an_interrupted_build_left_invalid_is_built_again(fake_embedder, media_root):
    make_document("La piscina abre a las ocho.", filename="piscina.md")
    graph = global_index_name(FakeEmbedder.model)
    _left_invalid(graph)
    ensure_index(FakeEmbedder.model)  # as a re-run re-embedding does
    assert _valid(graph)

    migrate([("knowledge", "0010_sentence_embeddings")])
    try:
        ensure_index(FakeEmbedder.model)
        _left_invalid(graph)  # as a migration killed while building it leaves it
    finally:
        migrate(latest())
    assert _valid(graph)


def _indexdef(name: str) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [name])
        row = cursor.fetchone()
    return row[0] if row else None


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
@pytest.mark.django_db(transaction=True)
def test_the_scope_index_comes_to_cover_the_vectors_and_goes_back(fake_embedder, media_root):
    make_document("La piscina abre a las ocho.", filename="piscina.md")
    old, new = "embedding_model_license_idx", "embedding_scope_vectors"
    migrate([("knowledge", "0011_global_vector_graphs")])
    try:
        assert _indexdef(new) is None and "(model, license_id)" in _indexdef(old)
        # Each way, what a run killed while building leaves behind (an invalid index of the
        # name it builds) is built again, and the index it replaces goes.
        for target, built, gone, shape in [
            ("0012_embedding_scope_vectors", new, old, "INCLUDE (id, chunk_id, vector)"),
            ("0011_global_vector_graphs", old, new, "(model, license_id)"),
        ]:
            with connection.cursor() as cursor:
                cursor.execute(f"CREATE INDEX {built} ON knowledge_embedding (created_at)")
            _left_invalid(built)
            migrate([("knowledge", target)])
            assert _valid(built) and shape in _indexdef(built)
            assert _indexdef(gone) is None
            with connection.cursor() as cursor:  # autovacuum keeps the visibility map fresh
                cursor.execute(
                    "SELECT reloptions FROM pg_class WHERE relname = 'knowledge_embedding'"
                )
                options = cursor.fetchone()[0] or []
            assert ("autovacuum_vacuum_insert_scale_factor=0.01" in options) == (built == new)
    finally:
        migrate(latest())
    assert _valid("embedding_scope_vectors")
    response = search(
        principal=principal_for_admin("root", license=None),
        query="piscina",
        options=SearchOptions(min_score=-1),
    )
    assert [r.filename for r in response.results] == ["piscina.md"]


@pytest.mark.django_db(transaction=True)
def test_documents_that_skipped_shared_passages_are_read_again_after_the_upgrade(
    fake_embedder, media_root
):
    """Migration 0021: which passages a document left to another was not recorded before;
    one that skipped some is queued to be read again (which records them), the rest stay."""
    shared = "Este párrafo aparece en los dos documentos del mismo ámbito."
    first = make_document(f"## A\n\n{shared}\n\n## B\n\nUno.", filename="uno.md")
    second = make_document(f"## A\n\n{shared}\n\n## B\n\nDos.", filename="dos.md")
    migrate([("knowledge", "0020_vector_outbox_triggers_declared")])
    migrate(latest())

    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, second.status) == ("ready", "queued")
    assert first.shared_hashes == second.shared_hashes == []
    # Beat's requeue hands it to a worker once no message for it shows up in the broker.
    Document.objects.filter(pk=second.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    assert [d.pk for d in reingestion.documents_requeue_stuck(enqueue=False)] == [second.pk]
    ingestion.document_ingest(document_id=second.pk)
    second.refresh_from_db()
    assert second.status == "ready"
    assert len(second.shared_hashes) == 1


@pytest.mark.django_db(transaction=True)
def test_the_new_kinds_of_personal_data_join_every_policy_that_redacts_anything(media_root):
    """Migrations 0030 and 0031: a stored policy lists its kinds, chosen before social
    security and other identity numbers were ones; a policy redacting something gets them,
    one redacting nothing stays."""
    from knowledge.models import RedactionPolicy
    from licenses.services import license_forge

    quiet = license_forge(user_name="Sin", machine_id="sin-redaccion").license
    migrate([("knowledge", "0029_search_log_words")])
    old_kinds = ["EMAIL", "PHONE", "IBAN", "CARD", "DNI", "NIE", "CPF", "CNPJ"]
    RedactionPolicy.objects.create(license=None, kinds=old_kinds[:3])
    RedactionPolicy.objects.create(license=quiet, kinds=[])
    migrate(latest())

    upgraded = RedactionPolicy.objects.get(license=None).kinds
    assert upgraded == ["EMAIL", "PHONE", "IBAN", "NSS", "SSN", "ID", "SECRET"]
    assert RedactionPolicy.objects.get(license=quiet).kinds == []


@pytest.mark.django_db(transaction=True)
def test_sentence_vectors_of_chunks_whose_groups_changed_are_embedded_again(
    fake_embedder, media_root
):
    """Knowledge 0032: a sheet's rows made one sentence group; now each row is one. The old
    rows of such a chunk go, the catch-up embeds it again; other chunks keep theirs."""
    sheet = make_document(
        "Servicio: Sauna · Precio: 12 · Notas: reservar\n"
        "Servicio: Pádel · Precio: 25 · Notas: reservar",
        filename="tarifas.md",
    )
    prose = make_document(
        "La piscina del condominio abre de ocho a veinte horas todos los días del año. "
        "Las mascotas pueden pasear por los jardines siempre con correa y con su dueño.",
        filename="reglamento.md",
    )
    migrate([("knowledge", "0031_redaction_identity_numbers_and_credentials")])
    try:
        # As the pass before 0032 left them: the sheet's chunk one group, its own vector.
        SentenceEmbedding.objects.filter(embedding__chunk__document=sheet).delete()
        SentenceEmbedding.objects.bulk_create(
            SentenceEmbedding(embedding=e, vector=e.vector)
            for e in Embedding.objects.filter(chunk__document=sheet)
        )
        prose_rows = set(
            SentenceEmbedding.objects.filter(embedding__chunk__document=prose).values_list("pk")
        )
        assert len(prose_rows) == 2
        # A catch-up ran since: it starts its next run past every embedding there is.
        assert sentence_vectors.sentences_embed_missing() == 0
    finally:
        migrate(latest())
    assert not SentenceEmbedding.objects.filter(embedding__chunk__document=sheet).exists()
    assert prose_rows == set(
        SentenceEmbedding.objects.filter(embedding__chunk__document=prose).values_list("pk")
    )
    assert sentence_vectors.sentences_embed_missing() == 2  # told to look from the start
    assert SentenceEmbedding.objects.filter(embedding__chunk__document=sheet).count() == 2
