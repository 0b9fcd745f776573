"""Sentence groups are now cut at line breaks, and a table's row is a group of its own
(knowledge.chunking.sentence_groups): a sheet's rows, which have no full stop, were one
group. The sentence vectors of a chunk whose groups change are deleted here; the sentence
pass's periodic catch-up embeds them again, the new way (told to look at every embedding
again: its mark of where it last found work lies past them). Until it has, the search uses
the chunk's own vector for them, as for any chunk the pass has not reached.

The same comparison undoes it: going back, the chunks whose groups differ lose their rows
again, and the old code's pass embeds them its way."""

from django.db import migrations
from django.db.models import Q

from knowledge.chunking import sentence_groups
from knowledge.search.sentence_vectors import catch_up_from_start
from text.sentences import split_sentences

MIN_WORDS = 8
BATCH = 2000


def groups_before(content):
    """knowledge.chunking.sentence_groups as it was until this migration."""
    groups, pending = [], ""
    for sentence in split_sentences(" ".join(content.split())):
        pending = f"{pending} {sentence}".strip()
        if len(pending.split()) >= MIN_WORDS:
            groups.append(pending)
            pending = ""
    if pending:
        if groups:
            groups[-1] = f"{groups[-1]} {pending}"
        else:
            groups.append(pending)
    return groups if len(groups) > 1 else []


def forget_changed_groups(apps, schema_editor):
    Embedding = apps.get_model("knowledge", "Embedding")
    SentenceEmbedding = apps.get_model("knowledge", "SentenceEmbedding")
    # Only a line break or a row's separator can change a chunk's groups.
    maybe = Embedding.objects.filter(
        Q(chunk__content__contains="\n") | Q(chunk__content__contains=" · "),
        sentences__isnull=False,
    ).distinct()
    changed, models = [], set()
    rows = maybe.values_list("id", "model", "chunk__content").iterator(BATCH)
    for embedding_id, model, content in rows:
        if groups_before(content) != sentence_groups(content):
            changed.append(embedding_id)
            models.add(model)
        if len(changed) >= BATCH:
            SentenceEmbedding.objects.filter(embedding_id__in=changed).delete()
            changed = []
    SentenceEmbedding.objects.filter(embedding_id__in=changed).delete()
    if models:
        _catch_up_from_start(sorted(models))


def _catch_up_from_start(models):
    """The catch-up starts where it last found work; the rows deleted lie below that mark.
    Without Redis the mark expires within six hours, or embed_sentences does it at once."""
    try:
        catch_up_from_start(models)
    except Exception as exc:  # noqa: BLE001 - the cache's client raises its own errors
        print(
            f"\n  Redis unavailable ({exc}): changed sentence vectors are embedded again within"
            " six hours, or at once by `manage.py embed_sentences`."
        )


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0031_redaction_identity_numbers_and_credentials")]

    operations = [migrations.RunPython(forget_changed_groups, forget_changed_groups)]
