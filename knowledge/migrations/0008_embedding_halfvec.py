import pgvector.django.halfvec
from django.db import migrations

# The type change rebuilds every HNSW index on the table: rebuild them with the graph
# quality knowledge.search.vector_index now asks for.
HNSW_EF_CONSTRUCTION = """
DO $$
DECLARE index_name regclass;
BEGIN
    FOR index_name IN
        SELECT i.indexrelid::regclass FROM pg_index i
          JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
         WHERE i.indrelid = 'knowledge_embedding'::regclass AND a.amname = 'hnsw'
    LOOP
        EXECUTE format('ALTER INDEX %s SET (ef_construction = 128)', index_name);
    END LOOP;
END $$;
"""
TO_HALFVEC = """
ALTER TABLE knowledge_embedding
    ALTER COLUMN vector TYPE halfvec USING vector::halfvec,
    ALTER COLUMN vector SET STORAGE PLAIN;
"""
TO_VECTOR = """
ALTER TABLE knowledge_embedding
    ALTER COLUMN vector TYPE vector USING vector::vector,
    ALTER COLUMN vector SET STORAGE PLAIN;
"""


class Migration(migrations.Migration):
    """Store embeddings in half precision.

    Every search already compares `vector::halfvec(d)` (the HNSW indexes are built over that
    cast), so nothing a search returns changes; the kNN branch reads each candidate's row
    for its scope and distance, and at a million chunks that heap drops from 1.5 GB to
    0.8 GB, which is what lets the search's working set stay in shared buffers
    (BENCHMARKS.md's history, "Retrieval latency at scale"). The table is rewritten and its HNSW
    indexes rebuilt, with ef_construction 128 (see knowledge.search.vector_index): about 9
    minutes at a million chunks on 2 cores, during which ingestion waits."""

    dependencies = [("knowledge", "0007_chunk_scoped_lexemes")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(HNSW_EF_CONSTRUCTION, migrations.RunSQL.noop),
                migrations.RunSQL(TO_HALFVEC, TO_VECTOR),
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="embedding",
                    name="vector",
                    field=pgvector.django.halfvec.HalfVectorField(),
                ),
            ],
        ),
    ]
