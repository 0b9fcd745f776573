from django.db import migrations


class Migration(migrations.Migration):
    """Keep each chunk's tsvector in the row. A chunk row (text ~0.7 KB + tsvector ~1.5 KB) is
    over the 2 KB TOAST threshold, and with the default EXTENDED storage Postgres moved the
    tsvector out of line, so ranking every keyword match cost a TOAST fetch. With MAIN the
    chunk text goes out of line instead (it is read only for the final results). Measured at
    100k chunks: biggest-scope p95 46 -> 21 ms, common-word p95 16 -> 9 ms (BENCHMARKS.md).
    Rows written before this migration keep their layout until the table is rewritten
    (VACUUM FULL knowledge_chunk)."""

    dependencies = [("knowledge", "0004_searchlog")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE knowledge_chunk ALTER COLUMN search_vector SET STORAGE MAIN;",
            "ALTER TABLE knowledge_chunk ALTER COLUMN search_vector SET STORAGE EXTENDED;",
        ),
    ]
