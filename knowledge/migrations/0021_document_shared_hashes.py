"""Which passages of a document another document of its scope stored first, and which an
admin forgot one by one (reading the document again leaves them out).

It was not recorded before: a document that skipped passages as duplicates is queued to be
read again, which records them (its chunks stay searchable meanwhile, and its own vectors
are reused). The periodic requeue hands it to a worker once its message is seen missing
(KNOWLEDGE_QUEUED_LOST_AFTER), and the reading also restores any passage it lost when the
document storing it was forgotten before this version."""

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
                base_field=models.CharField(max_length=64), blank=True, default=list, size=None
            ),
        ),
        migrations.AddField(
            model_name="document",
            name="forgotten_hashes",
            field=django.contrib.postgres.fields.ArrayField(
                base_field=models.CharField(max_length=64), blank=True, default=list, size=None
            ),
        ),
        migrations.AddIndex(
            model_name="document",
            index=django.contrib.postgres.indexes.GinIndex(
                fields=["shared_hashes"], name="document_shared_hashes_gin"
            ),
        ),
        migrations.RunSQL(
            """UPDATE knowledge_document
                  SET status = 'queued', stage = '', progress = 0, updated_at = now()
                WHERE status = 'ready'
                  AND coalesce((metadata->>'duplicate_chunks_skipped')::int, 0) > 0""",
            migrations.RunSQL.noop,
        ),
    ]
