"""A gap's centre was the direction of its questions' vectors, and a question joined the
gap whose direction was closest: many different short questions pointed at "a short
question", and every new one joined them (a newcomer's tour had twenty unrelated ones in
one gap). The centre is now their mean, and a question joins the gap it is closest to on
average (conversations/gaps.py). Here:

- each gap's centre is made again, the mean of its questions' vectors (none left: it stays
  as it was, a direction, which reads as an average of one);
- the questions of the open gaps (but those keeping a forgotten answer to start from) are
  grouped again by the new rule, oldest first, as they would have been, joining a dismissed
  gap as a new asking would. An asking whose vector is gone (conversations 0002), and the
  count of askings already purged, go with most of their old gap's questions.

In one transaction: an upgrade that fails leaves the gaps as they were."""

from collections import Counter

import numpy as np
from django.db import migrations

SIMILARITY = {"e5-small@384": 0.86}  # conversations.gaps.GAP_SIMILARITY, as of this release
FALLBACK_SIMILARITY = 0.9


def _floats(stored):
    to_list = getattr(stored, "to_list", None)
    return [float(x) for x in (to_list() if to_list else stored)]


def _unit(values):
    array = np.asarray(values, dtype=np.float32)
    norm = float(np.linalg.norm(array))
    return array / norm if norm else array


class _Group:
    """A gap being made: its questions, and the row of its vectors' sum in the matrix."""

    def __init__(self, row=None, gap=None):
        self.row = row  # None: no vector (its questions' are gone)
        self.gap = gap  # a dismissed gap joined, or None for an open one
        self.reuse = None  # the old open gap whose row (and number) it keeps
        self.members = []
        self.extra = 0  # askings counted before, whose questions are gone


def centres_as_means(apps, schema_editor):
    Exchange = apps.get_model("conversations", "Exchange")
    Gap = apps.get_model("conversations", "Gap")
    regrouped = Gap.objects.filter(status="open", answer="")
    for gap in (
        Gap.objects.exclude(centroid=None).exclude(pk__in=regrouped).iterator(chunk_size=200)
    ):
        vectors = [
            _unit(_floats(v))
            for v in Exchange.objects.filter(
                gap=gap, question_vector__isnull=False, model=gap.model
            ).values_list("question_vector", flat=True)
        ]
        if vectors:
            gap.centroid = np.mean(vectors, axis=0).tolist()
            gap.save(update_fields=["centroid"])
    for model in sorted(set(regrouped.values_list("model", flat=True))):
        _regroup(Exchange, Gap, list(regrouped.filter(model=model)), model)


def _regroup(Exchange, Gap, old_gaps, model):
    """The old gaps' questions, oldest first, each joining the group it is closest to on
    average (its sum's row over its weight), as conversations.gaps.gap_assign does."""
    threshold = SIMILARITY.get(model, FALLBACK_SIMILARITY)
    exchanges = list(Exchange.objects.filter(gap__in=old_gaps).order_by("created_at", "pk"))
    vectored = [
        (e, _unit(_floats(e.question_vector)))
        for e in exchanges
        if e.question_vector is not None and e.model == model
    ]
    if vectored:
        dismissed = Gap.objects.filter(status="dismissed", model=model).exclude(centroid=None)
    else:  # nothing to join them
        dismissed = Gap.objects.none()
    width = len(vectored[0][1]) if vectored else 1
    sums = np.zeros((len(dismissed) + len(vectored), width), dtype=np.float32)
    weights = np.zeros(len(sums), dtype=np.float32)
    groups = []
    for gap in dismissed:  # its mean stands for its questions, weighed as gaps.py does
        row = len(groups)
        weights[row] = max(1, gap.count)
        sums[row] = np.asarray(_floats(gap.centroid), dtype=np.float32) * weights[row]
        groups.append(_Group(row, gap))
    joined = {}  # exchange pk -> group
    for exchange, unit in vectored:
        rows = len(groups)
        averages = sums[:rows] @ unit / weights[:rows] if rows else np.zeros(0)
        best = int(np.argmax(averages)) if rows else -1
        if best < 0 or averages[best] < threshold:
            groups.append(_Group(rows))
            best = rows
        sums[best] += unit
        weights[best] += 1
        groups[best].members.append(exchange)
        joined[exchange.pk] = groups[best]
    members_of = {}
    for exchange in exchanges:
        members_of.setdefault(exchange.gap_id, []).append(exchange)
    for old in old_gaps:
        members = members_of.get(old.pk, [])
        most = Counter(joined[e.pk] for e in members if e.pk in joined).most_common(1)
        home = most[0][0] if most else _Group()
        if not most:
            groups.append(home)
        home.members += [e for e in members if e.pk not in joined]
        home.extra += max(0, old.count - len(members))
        if home.gap is None and home.reuse is None:
            home.reuse = old  # most of its questions stay under its number
    for group in groups:
        if group.members:
            centre = None if group.row is None else sums[group.row] / weights[group.row]
            _save(Exchange, Gap, group, model, centre)
    Gap.objects.filter(pk__in=[g.pk for g in old_gaps], exchanges__isnull=True).delete()


def _save(Exchange, Gap, group, model, centre):
    if group.gap is not None:  # a dismissed gap joined: what it counted stays
        gap = group.gap
    else:
        gap = group.reuse or Gap(model=model, status="open")
        gap.count, gap.languages, gap.license_ids = 0, [], []
        gap.first_asked = gap.last_asked = None
    asked = [e.created_at for e in group.members]
    gap.count += len(group.members) + group.extra
    gap.first_asked = min(a for a in [*asked, gap.first_asked] if a is not None)
    gap.last_asked = max(a for a in [*asked, gap.last_asked] if a is not None)
    for exchange in group.members:
        if exchange.language not in gap.languages:
            gap.languages = [*gap.languages, exchange.language]
        if exchange.license_id and exchange.license_id not in gap.license_ids:
            gap.license_ids = [*gap.license_ids, exchange.license_id]
    if centre is not None:
        gap.centroid = centre.tolist()
    gap.save()
    Exchange.objects.filter(pk__in=[e.pk for e in group.members]).update(gap=gap)


class Migration(migrations.Migration):
    dependencies = [("conversations", "0003_gap_dismissed")]

    operations = [migrations.RunPython(centres_as_means, migrations.RunPython.noop)]
