import re

from django.db import migrations

# As knowledge.search.vector_index writes them, inlined so this migration keeps its meaning when that
# module changes.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 128


def global_graph_name(model: str) -> str:
    if not re.fullmatch(r"[a-z0-9][a-z0-9._-]*@\d{2,4}", model):
        raise ValueError(f"{model!r} is not a model name of the form name@dimensions.")
    return "embedding_hnsw_" + re.sub(r"[^a-z0-9]+", "_", model) + "_global"


def global_graph_sql(model: str, dimensions: int) -> str:
    return (
        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {global_graph_name(model)} ON knowledge_embedding "
        f"USING hnsw ((vector::halfvec({dimensions})) halfvec_cosine_ops) "
        f"WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}) "
        f"WHERE model = '{model}' AND license_id IS NULL"
    )


def build_global_graphs(apps, schema_editor) -> None:
    space_model = apps.get_model("knowledge", "EmbeddingSpace")
    for model, dimensions in space_model.objects.filter(index_ready=True).values_list(
        "model", "dimensions"
    ):
        # An earlier run that was interrupted left an invalid index: build it again.
        schema_editor.execute(
            "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_index WHERE NOT indisvalid"
            f" AND indexrelid = to_regclass('{global_graph_name(model)}'))"
            f" THEN DROP INDEX {global_graph_name(model)}; END IF; END $$"
        )
        schema_editor.execute(global_graph_sql(model, dimensions))


def drop_global_graphs(apps, schema_editor) -> None:
    space_model = apps.get_model("knowledge", "EmbeddingSpace")
    for model in space_model.objects.values_list("model", flat=True):
        schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {global_graph_name(model)}")


class Migration(migrations.Migration):
    """A second HNSW graph per embedding model, over its global vectors alone.

    A license with few vectors of its own is searched by walking it (nothing to filter out)
    beside an exact comparison of its own vectors (knowledge/search/plan.py). Built
    concurrently: search and ingestion go on meanwhile; until it exists, such a search walks
    the model's whole graph as before, with the same results. About a minute per 200,000
    global vectors on 2 cores."""

    atomic = False  # CREATE INDEX CONCURRENTLY cannot run inside a transaction

    dependencies = [("knowledge", "0010_sentence_embeddings")]

    operations = [migrations.RunPython(build_global_graphs, drop_global_graphs)]
