import django.contrib.postgres.indexes
import django.contrib.postgres.search
import django.db.models.expressions
from django.contrib.postgres.operations import RemoveIndexConcurrently
from django.db import migrations

# Each lexeme prefixed with 12 hex digits of the chunk's scope: one GIN key per scope and
# lexeme, so the index's posting lists hold only the matches inside one scope. 48 bits keep
# collisions between scopes vanishingly rare, and harmless: searches still filter
# scope_key on the row.
CREATE_FUNCTIONS = """
CREATE OR REPLACE FUNCTION pb_scope_prefix(scope uuid) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN left(replace(scope::text, '-', ''), 12);

CREATE OR REPLACE FUNCTION pb_scoped_lexemes(scope uuid, document tsvector) RETURNS tsvector
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN array_to_tsvector(ARRAY(
        SELECT pb_scope_prefix(scope) || lexeme FROM unnest(tsvector_to_array(document)) AS lexeme
    ));
"""
DROP_FUNCTIONS = """
DROP FUNCTION IF EXISTS pb_scoped_lexemes(uuid, tsvector);
DROP FUNCTION IF EXISTS pb_scope_prefix(uuid);
"""


class Migration(migrations.Migration):
    """Key the keyword index by scope and lexeme instead of leading it with the scope column.

    With btree_gin's `(scope_key, search_vector)` every keyword search walked the scope's
    posting tree (570k entries for a big license at 1M chunks) to intersect it with the
    words' lists: ~4 ms per search. Keys that carry the scope make the words' posting lists
    the scope's own (~0.5 ms; BENCHMARKS.md's history, "Retrieval latency at scale"). Built
    concurrently, so searches and ingestion go on during the upgrade."""

    atomic = False

    dependencies = [("knowledge", "0006_chunk_scope_key")]

    operations = [
        migrations.RunSQL(CREATE_FUNCTIONS, DROP_FUNCTIONS),
        # Not AddIndexConcurrently: a build that fails leaves an invalid index behind, and
        # the retry must replace it rather than stop at "already exists".
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    [
                        "DROP INDEX CONCURRENTLY IF EXISTS chunk_scoped_lexemes_gin",
                        "CREATE INDEX CONCURRENTLY chunk_scoped_lexemes_gin ON knowledge_chunk"
                        " USING gin (pb_scoped_lexemes(scope_key, search_vector))",
                    ],
                    "DROP INDEX CONCURRENTLY IF EXISTS chunk_scoped_lexemes_gin",
                )
            ],
            state_operations=[
                migrations.AddIndex(
                    model_name="chunk",
                    index=django.contrib.postgres.indexes.GinIndex(
                        django.db.models.expressions.Func(
                            django.db.models.expressions.F("scope_key"),
                            django.db.models.expressions.F("search_vector"),
                            function="pb_scoped_lexemes",
                            output_field=django.contrib.postgres.search.SearchVectorField(),
                        ),
                        name="chunk_scoped_lexemes_gin",
                    ),
                )
            ],
        ),
        RemoveIndexConcurrently(model_name="chunk", name="chunk_scope_search_gin"),
    ]
