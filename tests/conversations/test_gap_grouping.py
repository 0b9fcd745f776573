"""How questions group into knowledge gaps, with the real multilingual embedder: by their
average closeness to a gap's questions, not to the direction of their mean."""

from __future__ import annotations

import numpy as np
import pytest

from conversations.gaps import as_floats, gap_similarity
from conversations.models import Exchange, Gap
from conversations.services import Said, exchange_record
from knowledge.embeddings import get_provider
from licenses.models import License

pytestmark = [pytest.mark.django_db]

# A newcomer's tour: every one of these got no answer, and all of them but the wifi ones
# ended in one gap, "¿Hay sauna?" asked 20 times.
UNRELATED = [
    "Aceitam cartão?", "Can I order by phone?", "Como faço para trocar a senha do portão?",
    "How do I get a parking permit?", "How much is the deposit?", "Is there a sauna?",
    "Pode-se fumar na academia?", "Posso pedir pelo WhatsApp?",
    "Quando é a próxima reunião de condomínio?", "Quanto custa a taxa de condomínio?",
    "Tem plano de saúde?", "Tem pão sem glúten?", "Tem sauna?", "Vocês fazem entregas?",
    "What are the quiet hours?", "When is the next residents' meeting?",
    "Where can I leave my bike?", "Who do I call if there is a water leak?", "¿Hay sauna?",
    "¿Tenéis cruasanes veganos?",
]  # fmt: skip
WIFI = ["¿Cuál es la contraseña del wifi?", "Qual é a senha do wifi?", "What's the wifi password?"]


def _asked(license: License, question: str) -> Exchange:
    provider = get_provider()
    exchange = exchange_record(
        Said(
            license=license, user_ref="ana", session_id="s1", by_staff=False,
            question=question, answer="No tengo información.", language="es",
            answerer="extractive", citations=[], no_information=True, best_score=None,
            min_score=0.82, latency_ms=5.0, vector=provider.embed_query(question),
            model=provider.model,
        )
    )  # fmt: skip
    assert exchange is not None
    return exchange


def test_unrelated_short_questions_do_not_pile_into_one_gap():
    license = License.objects.create(user_name="Tour", machine_id="tour-gaps", key_hash="x")
    for question in [*UNRELATED, *WIFI]:
        _asked(license, question)
    sizes = sorted(Gap.objects.values_list("count", flat=True), reverse=True)
    assert sizes[0] <= 4, sizes  # the direction of their mean took 13 to 15 of them
    wifi = {e.gap_id for e in Exchange.objects.filter(question__in=WIFI)}
    assert len(wifi) == 1, "one question asked in three languages is one gap"
    assert Exchange.objects.filter(gap__in=wifi).count() == 3


def test_a_gap_keeps_the_mean_of_its_questions():
    license = License.objects.create(user_name="Tour", machine_id="tour-gaps", key_hash="x")
    asked = [_asked(license, question) for question in WIFI]
    gap = Gap.objects.get()
    vectors = [
        as_floats(e.question_vector) for e in Exchange.objects.filter(pk__in=[a.pk for a in asked])
    ]
    unit = [np.asarray(v) / np.linalg.norm(v) for v in vectors]
    assert np.allclose(as_floats(gap.centroid), np.mean(unit, axis=0), atol=2e-3)
    assert float(np.linalg.norm(as_floats(gap.centroid))) < 1.0  # a mean, not a direction
    assert gap_similarity(gap.model) == 0.86


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_makes_each_gap_s_centre_the_mean_of_its_questions():
    """Conversations 0004: the centres kept before were directions (a dismissed gap's
    questions are not grouped again)."""
    from tests.factories import make_unanswered_exchange
    from tests.migrations import latest, migrate

    forged = License.objects.create(user_name="Old", machine_id="old-release", key_hash="x")
    first = make_unanswered_exchange(forged, "ana")
    second = make_unanswered_exchange(forged, "bea")
    assert first.gap_id == second.gap_id
    Exchange.objects.filter(pk=second.pk).update(question_vector=[0.0, 1.0, 0.0])
    Gap.objects.filter(pk=first.gap_id).update(centroid=[0.7071, 0.7071, 0.0], status="dismissed")

    migrate([("conversations", "0003_gap_dismissed")])
    migrate(latest())

    gap = Gap.objects.get(pk=first.gap_id)
    assert np.allclose(as_floats(gap.centroid), [0.5, 0.5, 0.0], atol=1e-3)


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_groups_the_open_gaps_questions_again():
    """Conversations 0004: an open gap of different questions, piled by the old rule, is
    split by the new one; a question without a vector and the askings already purged stay
    with most of its questions; a dismissed gap takes its own; an open gap keeping a
    forgotten answer is left as it is."""
    from tests.factories import make_unanswered_exchange
    from tests.migrations import latest, migrate

    forged = License.objects.create(user_name="Old", machine_id="old-release", key_hash="x")
    asked = [make_unanswered_exchange(forged, f"user-{n}") for n in range(8)]
    vectors = [[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 0], None, [0, 0, 1], [0, 0, 1], [0, 0, 1]]
    for exchange, vector in zip(asked, vectors, strict=True):
        Exchange.objects.filter(pk=exchange.pk).update(question_vector=vector)
    first = asked[0].created_at
    piled = Gap.objects.get()
    dismissed = Gap.objects.create(
        model="fake@3", status="dismissed", centroid=[0, 0, 1], count=1, first_asked=first,
        last_asked=first, languages=["es"], license_ids=[forged.pk],
    )  # fmt: skip
    forgotten = Gap.objects.create(
        model="fake@3", centroid=[0, 0, 1], count=1, first_asked=first, last_asked=first,
        answer="La clave es Girasol.", languages=["es"], license_ids=[forged.pk],
    )  # fmt: skip
    Exchange.objects.filter(pk=asked[6].pk).update(gap=dismissed)
    Exchange.objects.filter(pk=asked[7].pk).update(gap=forgotten)
    Gap.objects.filter(pk=piled.pk).update(centroid=[0.577, 0.577, 0.577], count=7)  # 1 purged

    migrate([("conversations", "0003_gap_dismissed")])
    migrate(latest())

    gap_of = {n: Exchange.objects.get(pk=e.pk).gap for n, e in enumerate(asked)}
    assert gap_of[0] == gap_of[1] == gap_of[4] != gap_of[2] == gap_of[3]
    assert (gap_of[0].count, gap_of[2].count) == (4, 2)  # 2 questions, 1 without vector, 1 purged
    assert np.allclose(as_floats(gap_of[0].centroid), [1, 0, 0], atol=1e-3)
    assert gap_of[5] == gap_of[6] == dismissed and gap_of[5].count == 2
    assert gap_of[5].status == "dismissed"
    assert gap_of[7] == forgotten and gap_of[7].count == 1
    assert gap_of[0].pk == piled.pk  # most of its questions keep its number
    assert Gap.objects.count() == 4
