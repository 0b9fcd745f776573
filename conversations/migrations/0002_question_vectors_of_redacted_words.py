"""A kept question's vector was the search's, of the words as typed: for a question that
held personal data (its stored text has a placeholder, "[DNI]"), a vector that can be read
back into some of it. Those vectors are dropped, and the centres of the knowledge gaps they
were counted in are made again from the vectors left (none left: the gap keeps its
questions and counts, and no new question joins it)."""

import numpy as np
from django.db import migrations

# The placeholders redaction wrote up to this migration (knowledge.models.PII_LABELS).
PLACEHOLDER = r"\[(EMAIL|PHONE|IBAN|CARD|DNI|NIE|CPF|CNPJ|NSS|SSN|ID)\]"


def _floats(stored):
    to_list = getattr(stored, "to_list", None)
    return [float(x) for x in (to_list() if to_list else stored)]


def _unit(values):
    array = np.asarray(values, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else array


def drop_vectors_of_personal_data(apps, schema_editor):
    Exchange = apps.get_model("conversations", "Exchange")
    Gap = apps.get_model("conversations", "Gap")
    held = Exchange.objects.filter(question__regex=PLACEHOLDER, question_vector__isnull=False)
    gap_ids = set(held.exclude(gap=None).values_list("gap_id", flat=True))
    held.update(question_vector=None)
    for gap in Gap.objects.filter(pk__in=gap_ids):
        vectors = [
            _unit(_floats(v))
            for v in Exchange.objects.filter(gap=gap, question_vector__isnull=False).values_list(
                "question_vector", flat=True
            )
        ]
        # as conversations.gaps keeps it: the direction of its questions' unit vectors
        gap.centroid = _unit(np.sum(vectors, axis=0)).tolist() if vectors else None
        gap.save(update_fields=["centroid"])


class Migration(migrations.Migration):
    dependencies = [("conversations", "0001_initial")]

    operations = [migrations.RunPython(drop_vectors_of_personal_data, migrations.RunPython.noop)]
