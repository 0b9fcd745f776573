"""A gap's centre was the direction of its questions' vectors, and a question joined the
gap whose direction was closest: many different short questions pointed at "a short
question", and every new one joined them (a newcomer's tour had twenty unrelated ones in
one gap). The centre is now their mean, and a question joins the gap it is closest to on
average (conversations/gaps.py): each centre is made again from its questions' vectors
(none left: it stays as it was, a direction, which still reads as an average of one)."""

import numpy as np
from django.db import migrations


def _floats(stored):
    to_list = getattr(stored, "to_list", None)
    return [float(x) for x in (to_list() if to_list else stored)]


def _unit(values):
    array = np.asarray(values, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else array


def centres_as_means(apps, schema_editor):
    Exchange = apps.get_model("conversations", "Exchange")
    Gap = apps.get_model("conversations", "Gap")
    for gap in Gap.objects.exclude(centroid=None).iterator(chunk_size=200):
        vectors = [
            _unit(_floats(v))
            for v in Exchange.objects.filter(
                gap=gap, question_vector__isnull=False, model=gap.model
            ).values_list("question_vector", flat=True)
        ]
        if vectors:
            gap.centroid = np.mean(vectors, axis=0).tolist()
            gap.save(update_fields=["centroid"])


class Migration(migrations.Migration):
    dependencies = [("conversations", "0003_gap_dismissed")]

    operations = [migrations.RunPython(centres_as_means, migrations.RunPython.noop)]
