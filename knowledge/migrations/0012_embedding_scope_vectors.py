from django.db import migrations, models

NEW = "embedding_scope_vectors"
OLD = "embedding_model_license_idx"
INSERT_SCALE_FACTOR = 0.01


def _drop_if_invalid(name: str) -> str:
    """An earlier run that was interrupted left the index invalid: build it again."""
    return (
        "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_index WHERE NOT indisvalid"
        f" AND indexrelid = to_regclass('{name}')) THEN DROP INDEX {name}; END IF; END $$"
    )


class Migration(migrations.Migration):
    """The (model, license) index of embeddings covers the vectors: a scope of at most
    SEARCH_EXACT_SCAN_MAX_ROWS vectors, and a license's own vectors beside a walk of the
    global graph, are compared reading the index alone (an index-only scan) instead of
    fetching each heap row (knowledge/search/plan.py; BENCHMARKS.md's history, "A covering index for
    exact comparisons"). As large again as the vectors themselves; built concurrently, so
    search and ingestion go on meanwhile, and the index it replaces is dropped only once
    the new one is ready. 16 s for a million vectors on 2 cores (985 MB beside a heap of
    869 MB)."""

    atomic = False  # CREATE INDEX CONCURRENTLY cannot run inside a transaction

    dependencies = [("knowledge", "0011_global_vector_graphs"), ("licenses", "0001_initial")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    [
                        _drop_if_invalid(NEW),
                        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {NEW} ON knowledge_embedding"
                        " (model, license_id) INCLUDE (id, chunk_id, vector)",
                        f"DROP INDEX CONCURRENTLY IF EXISTS {OLD}",
                        # An index-only scan fetches from the heap every row of a page not yet
                        # marked all-visible: those new since the last vacuum (a scan whose
                        # pages are all unmarked took 1.1x the heap scan's time; vacuumed,
                        # 0.5-0.8x). Vacuum after 1% of the table's rows are new, not 20%:
                        # such a vacuum reads only the unmarked pages and cleans no index.
                        "ALTER TABLE knowledge_embedding"
                        f" SET (autovacuum_vacuum_insert_scale_factor = {INSERT_SCALE_FACTOR})",
                    ],
                    [
                        _drop_if_invalid(OLD),
                        f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {OLD} ON knowledge_embedding"
                        " (model, license_id)",
                        f"DROP INDEX CONCURRENTLY IF EXISTS {NEW}",
                        "ALTER TABLE knowledge_embedding"
                        " RESET (autovacuum_vacuum_insert_scale_factor)",
                    ],
                )
            ],
            state_operations=[
                migrations.RemoveIndex(model_name="embedding", name=OLD),
                migrations.AddIndex(
                    model_name="embedding",
                    index=models.Index(
                        fields=["model", "license"],
                        include=["id", "chunk", "vector"],
                        name=NEW,
                    ),
                ),
            ],
        )
    ]
