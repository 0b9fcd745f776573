"""The quality benchmarks behind BENCHMARKS.md run on a tiny set in every test run, so a
change of the schema, the ingestion or the chat cannot silently break one (issue 41: the
speed benchmark once crashed for weeks on a column it did not fill). Each runs the same code
its `manage.py bench_*` command runs, on three passages instead of hundreds."""

from __future__ import annotations

import json

import pytest

from tests.bench import answers, retrieval

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_embedder", "media_root")]

PASSAGES = [
    ("p0", "Piscina", "La piscina del condominio abre a las ocho de la mañana todos los días."),
    ("p1", "Gimnasio", "El gimnasio del condominio cierra a las diez de la noche los viernes."),
    (
        "p2",
        "Lavandería",
        "La lavandería comunitaria está en el sótano y acepta monedas de un euro.",
    ),
]
QUERIES = [
    ("q0", "¿A qué hora abre la piscina?", "p0", "a las ocho de la mañana"),
    ("q1", "¿Cuándo cierra el gimnasio los viernes?", "p1", "a las diez de la noche"),
    ("q2", "¿Dónde está la lavandería comunitaria?", "p2", "en el sótano"),
]


@pytest.fixture
def tiny_set(tmp_path):
    """A dataset folder as the shared ones are (its name says its language)."""
    folder = tmp_path / "tiny-es"
    folder.mkdir()
    passages = [{"id": i, "title": t, "text": x} for i, t, x in PASSAGES]
    queries = [
        {"id": i, "text": q, "relevant": [p], "split": "heldout", "answers": [a]}
        for i, q, p, a in QUERIES
    ]
    for name, rows in (("passages", passages), ("queries", queries)):
        (folder / f"{name}.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    return folder


def progress(done: int, total: int) -> None:
    """The benchmarks report ingestion progress as they go; a test shows it to nobody."""


def test_bench_retrieval_runs(tiny_set):
    report = retrieval.run(tiny_set, "heldout", progress, strategies=("weighted", "keyword"))

    assert (report["passages"], report["queries"]) == (3, 3)
    assert report["strategies"]["weighted"]["recall@10"] == 1.0
    assert set(report["strategies"]["keyword"]) >= {"ndcg@10", "mrr@10", "p95_ms"}


def test_bench_answers_runs(tiny_set):
    report = answers.evaluate(tiny_set, "heldout", progress)

    assert report["n"] == 3 and report["wrong_language"] == 0
    # Plain questions on a hashed-word embedder: two of three quoted right is its level; a
    # broken answerer or scorer gives 0.
    assert report["whole_hit"] >= 0.6 and report["label_first"] == 0


def test_bench_answers_unanswerable_runs(tiny_set):
    report = answers.evaluate_unanswerable(tiny_set, "heldout", progress, by="article")

    assert report["unanswerable"] == 1 and report["answerable"] == 2
    assert 0.0 <= report["no_info_share_unanswerable"] <= 1.0


def test_bench_conversations_runs():
    from tests.bench import conversations

    purged = conversations.purge(400)
    assert purged["retention_30_days"]["removed"] + purged["older_than_0"]["removed"] == 400
    assert purged["counted_in_daily_counts"] == 400
    grouped = conversations.grouping(50, [])
    assert grouped["questions"] == 50 and 1 <= grouped["gaps"] <= 50
