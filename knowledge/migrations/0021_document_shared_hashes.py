"""Which passages of a document another document of its scope stored first.

Documents that skipped none (or hold nothing: failed, not yet read) start with an empty
list; those that skipped some keep NULL, "not recorded": knowledge.sharing re-reads them
when their scope lets go of passages."""

import django.contrib.postgres.fields
import django.contrib.postgres.indexes
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0020_vector_outbox_triggers_declared"),
        ("licenses", "0003_license_previous_key_hash_and_more"),
    ]

    operations = [
        migrations.AddField(
            model_name="document",
            name="shared_hashes",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.CharField(max_length=64), blank=True, null=True, size=None
            ),
        ),
        migrations.AddIndex(
            model_name="document",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["shared_hashes"], name="document_shared_hashes_gin"
            ),
        ),
        migrations.RunSQL(
            """UPDATE knowledge_document SET shared_hashes = '{}'
                WHERE status = 'failed'
                   OR coalesce((metadata->>'duplicate_chunks_skipped')::int, 0) = 0""",
            migrations.RunSQL.noop,
        ),
    ]
