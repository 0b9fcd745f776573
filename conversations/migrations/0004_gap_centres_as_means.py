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
    """A gap being made: its questions and the sum of their unit vectors."""

    def __init__(self, gap=None):
        self.gap = gap  # a dismissed gap joined, or None for an open one
        self.reuse = None  # the old open gap whose row (and number) it keeps
        self.members = []
        self.total = None
        self.vectored = 0
        self.extra = 0  # askings counted before, whose questions are gone

    def add(self, exchange, unit=None):
        self.members.append(exchange)
        if unit is not None:
            self.total = unit.copy() if self.total is None else self.total + unit
            self.vectored += 1

    def average_to(self, unit):
        return float(unit @ self.total) / self.vectored


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
    open_gaps = Gap.objects.filter(status="open", answer="")
    for model in sorted(set(open_gaps.values_list("model", flat=True))):
        _regroup(Exchange, Gap, list(open_gaps.filter(model=model)), model)


def _regroup(Exchange, Gap, old_gaps, model):
    threshold = SIMILARITY.get(model, FALLBACK_SIMILARITY)
    groups = [_Group(gap) for gap in Gap.objects.filter(status="dismissed", model=model)]
    for group in groups:
        mean, weight = group.gap.centroid, max(1, group.gap.count)
        if mean is not None:  # its mean stands for its questions, as gaps.py weighs it
            group.total = np.asarray(_floats(mean), dtype=np.float32) * weight
            group.vectored = weight
    joined = {}  # exchange pk -> group
    exchanges = Exchange.objects.filter(gap__in=old_gaps).order_by("created_at", "pk")
    for exchange in exchanges:
        if exchange.question_vector is None or exchange.model != model:
            continue
        unit = _unit(_floats(exchange.question_vector))
        scored = [(g.average_to(unit), i) for i, g in enumerate(groups) if g.vectored]
        best = max(scored, default=(-1.0, -1))
        if best[0] < threshold:
            groups.append(_Group())
            best = (1.0, len(groups) - 1)
        groups[best[1]].add(exchange, unit)
        joined[exchange.pk] = groups[best[1]]
    for old in old_gaps:
        members = [e for e in exchanges if e.gap_id == old.pk]
        most = Counter(joined[e.pk] for e in members if e.pk in joined).most_common(1)
        home = most[0][0] if most else _Group()
        if not most:
            home.total = None  # no vector left: no centre, as it was
            groups.append(home)
        for exchange in members:
            if exchange.pk not in joined:
                home.add(exchange)
        home.extra += max(0, old.count - len(members))
        if home.gap is None and home.reuse is None:
            home.reuse = old  # most of its questions stay under its number
    for group in groups:
        if group.members:
            _save(Exchange, Gap, group, model)
    Gap.objects.filter(pk__in=[g.pk for g in old_gaps], exchanges__isnull=True).delete()


def _save(Exchange, Gap, group, model):
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
    if group.total is not None:
        gap.centroid = (group.total / group.vectored).tolist()
    gap.save()
    Exchange.objects.filter(pk__in=[e.pk for e in group.members]).update(gap=gap)


class Migration(migrations.Migration):
    dependencies = [("conversations", "0003_gap_dismissed")]

    operations = [migrations.RunPython(centres_as_means, migrations.RunPython.noop)]
