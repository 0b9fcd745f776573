"""The quality benchmarks behind BENCHMARKS.md run on a tiny set in every test run, so a
change of the schema, the ingestion or the chat cannot silently break one (issue 41: the
speed benchmark once crashed for weeks on a column it did not fill). Each runs the same code
its `manage.py bench_*` command runs, on three passages instead of hundreds."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.bench import answers, retrieval
from text.folding import fold

ROOT = Path(__file__).resolve().parents[1]

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


def test_bench_long_documents_runs(tiny_set):
    from tests.bench import long_documents

    passages = [json.loads(line) for line in (tiny_set / "passages.jsonl").read_text().split("\n")]
    passages[1]["title"] = passages[0]["title"]  # two paragraphs of one article
    (tiny_set / "passages.jsonl").write_text("\n".join(json.dumps(p) for p in passages))

    report = long_documents.run(tiny_set, "heldout", progress)

    layouts = report["layouts"]
    assert (layouts["passages"]["documents"], layouts["articles"]["documents"]) == (3, 2)
    assert all(layout["questions"] == 3 for layout in layouts.values())
    assert all(layout["answer@5"] >= 2 / 3 for layout in layouts.values()), layouts


def test_bench_answers_runs(tiny_set):
    report = answers.evaluate(tiny_set, "heldout", progress)

    assert report["n"] == 3 and report["wrong_language"] == 0
    # Plain questions on a hashed-word embedder: two of three quoted right is its level; a
    # broken answerer or scorer gives 0.
    assert report["whole_hit"] >= 0.6 and report["label_first"] == 0


def test_bench_answers_runs_on_whole_articles(tiny_set):
    report = answers.evaluate(tiny_set, "heldout", progress, layout="articles")

    assert report["n"] == 3 and report["layout"] == "articles" and report["label_first"] == 0
    assert report["whole_hit"] >= 0.6


def test_bench_answers_unanswerable_runs(tiny_set):
    report = answers.evaluate_unanswerable(tiny_set, "heldout", progress, by="article")

    assert report["unanswerable"] == 1 and report["answerable"] == 2
    assert 0.0 <= report["no_info_share_unanswerable"] <= 1.0
    assert report["answered_elsewhere"] == 0
    assert report["no_info_share_unanswerable_clean"] == report["no_info_share_unanswerable"]


def test_a_question_whose_answer_another_article_holds_is_not_unanswerable():
    kept = [" ".join(fold(text).split()) for _, _, text in PASSAGES]
    asked = {"answers": ["a las ocho de la MAÑANA"]}

    assert answers.answered_elsewhere(asked, kept)
    assert not answers.answered_elsewhere({"answers": ["a las nueve de la mañana"]}, kept)
    # One word is found by chance ("ocho" could be any figure of any article).
    assert not answers.answered_elsewhere({"answers": ["ocho"]}, kept)


def test_bench_conversations_runs():
    from tests.bench import conversations

    purged = conversations.purge(400)
    assert purged["retention_30_days"]["removed"] + purged["older_than_0"]["removed"] == 400
    assert purged["counted_in_daily_counts"] == 400
    grouped = conversations.grouping(50, [])
    assert grouped["questions"] == 50 and 1 <= grouped["gaps"] <= 50


@pytest.mark.parametrize("command", ["bench_screening", "bench_redaction"])
def test_the_privacy_benchmarks_run(command):
    """Memory screening's and redaction's held-out sets, through their commands."""
    out = io.StringIO()  # the bench app is installed by the benchmarks' settings, not here
    module = importlib.import_module(f"tests.bench.management.commands.{command}")
    call_command(module.Command(), "--json", stdout=out)
    rows = json.loads(out.getvalue())
    assert len(rows) >= 2
    share = "refused_with_meaning" if command == "bench_screening" else "redacted"
    assert all(0 <= row[share] <= 1 for row in rows)


def test_bench_across_languages_runs(tmp_path):
    """Questions across English over both shared sets' corpora, here two tiny ones, and over
    their passages put into English."""
    from tests.bench import across_languages

    translations, english = tmp_path / "english", tmp_path / "english-passages"
    translations.mkdir()
    english.mkdir()
    for name, language_of in (("xquad-es", "es"), ("faquad-pt", "pt")):
        folder = tmp_path / name
        folder.mkdir()
        passages = [{"id": f"{language_of}{i}", "title": t, "text": x} for i, t, x in PASSAGES]
        queries = [
            {"id": i, "text": q, "relevant": [f"{language_of}{p}"], "split": "dev", "answers": [a]}
            for i, q, p, a in QUERIES
        ]
        for kind, rows in (("passages", passages), ("queries", queries)):
            (folder / f"{kind}.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
        (translations / f"{name}.tsv").write_text(
            "# id\tsplit\tquestion\nq0\tdev\tWhen does the pool open?\n"
            "q1\theldout\tWhen does the gym close?\n"
        )
        (english / f"{name}.jsonl").write_text(
            json.dumps(
                {
                    "id": f"{language_of}p0",
                    "split": "dev",
                    "title": "Pool",
                    "text": "The condominium's pool opens at eight in the morning every day.",
                }
            )  # fmt: skip
            + "\n"
        )
    report = across_languages.run(
        tmp_path, "dev", progress, translations=translations, passages=english
    )
    assert report["xquad-es"]["questions"] == report["faquad-pt"]["questions"] == 1
    floors = report["faquad-pt"]["floors"]["0.8"]
    assert set(floors) == {"relevant_kept_as_written", "relevant_kept_english", "off_topic_passing"}
    answers = report["xquad-es"]["answers"]
    for asked in ("as_written", "english"):
        assert set(answers[asked]) == {"lead_hit", "whole_hit", "no_info"}
        assert 0 <= answers[asked]["lead_hit"] <= answers[asked]["whole_hit"] <= 1
    over_english = report["over_english"]["xquad-es"]
    assert over_english["questions"] == 1  # q0, whose passage is the English corpus's one
    assert set(over_english["floors"]["0.8"]) == {
        "relevant_kept_own_language", "relevant_kept_english_passage", "off_topic_passing"
    }  # fmt: skip
    mixed = report["mixed"]["faquad-pt"]  # the Portuguese passages and xquad-es's English one
    assert mixed["across"]["questions"] == 1  # q0 in English, its passage in Portuguese
    assert mixed["in_english"]["questions"] == 1  # xquad-es's q0, its passage in English
    assert mixed["unanswerable"]["questions"] == 0
    assert mixed["in_english"]["lead_relevant"] == 1.0, mixed


# -- every benchmark's own command line, as its `make bench-*` target runs it ----------------
# A fresh data dir each (the product's embedded servers started in it), tiny sizes, the JSON
# report read back: a benchmark that crashes or whose report lost a figure fails here.


def bench_env(data_dir: Path) -> dict[str, str]:
    """A newcomer's shell: no test settings, no test servers, a data dir of its own."""
    env = {k: v for k, v in os.environ.items() if k not in LEFT_OUT}
    return {**env, "PORTALITY_DATA_DIR": str(data_dir), "BENCH_DATA_DIR": str(data_dir)}


LEFT_OUT = {"DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "SECRET_KEY"}


def bench(env: dict[str, str], *args: str, timeout: float = 840) -> dict:
    """The benchmark's JSON. Its output goes to files, not pipes: a server a failed run left
    behind held a pipe open and the test waited for it until its timeout; whatever the run
    started and left is stopped with its process group."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(
            [sys.executable, *args], cwd=ROOT, env=env, stdout=out, stderr=err,
            start_new_session=True,
        )  # fmt: skip
        try:
            returncode = process.wait(timeout)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    assert returncode == 0, stderr[-3000:]
    return json.loads(stdout[stdout.index("{") :])


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.timeout(900)  # many processes on two cores: minutes when the machine is busy
def test_bench_search_then_bench_chat_run(tmp_path):
    env = bench_env(tmp_path)
    search = bench(env, "manage.py", "bench_search", "--chunks", "300", "--licenses", "3", "--json")
    chat = bench(env, "manage.py", "bench_chat", "--chunks", "300", "--queries", "5", "--json")
    statements = bench(
        env, "-m", "tests.bench.prepared_statements",
        "--chunks", "300", "--licenses", "3", "--queries", "3",
    )  # fmt: skip

    assert search["chunks"] == 300 and search["scopes"], search
    assert chat["requests"] == 5 and chat["first_byte_p50_ms"] > 0, chat
    assert statements["big_license"]["psycopg"]["p50_ms"] > 0, statements


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.timeout(900)  # many processes on two cores: minutes when the machine is busy
def test_bench_formats_pictures_vector_backends_and_answers_run(tmp_path, tiny_set):
    env = bench_env(tmp_path / "data")
    common = [str(tiny_set), "--split", "heldout", "--json"]
    formats = bench(env, "manage.py", "bench_formats", *common, "--limit", "3")
    backends = bench(env, "manage.py", "bench_vector_backends", *common)
    answers = bench(env, "manage.py", "bench_answers", *common)
    long_documents = bench(env, "manage.py", "bench_long_documents", *common)
    deck = str(ROOT / "tests" / "data" / "documents" / "avisos.odp")
    pictures = bench(env, "manage.py", "bench_pictures", deck, "--repeats", "1", "--json")
    (pictures,) = pictures["files"]

    assert formats["retrieval"]["md"]["ndcg@10"] > 0 and formats["extraction"], formats
    assert pictures["details"]["pictures_read"] == 1 and pictures["ratio"] > 1, pictures
    assert backends["queries"] == 3 and backends["quality"] and backends["latency_ms"], backends
    assert answers["n"] == 3, answers
    assert long_documents["layouts"]["articles"]["questions"] == 3, long_documents


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.timeout(900)  # many processes on two cores: minutes when the machine is busy
def test_the_load_and_noisy_neighbour_runs_run(tmp_path):
    env = bench_env(tmp_path)
    tiny = ["--searches", "5", "--chats", "2", "--concurrency", "2"]
    load = bench(env, "-m", "tests.bench.load", *tiny, "--half-open", "20", "--uploads", "1")
    noisy = bench(env, "-m", "tests.bench.noisy_neighbour", "--searches", "5", "--flood", "2")

    assert load["quiet"] and load["attacked"], load
    assert noisy["quiet"]["p95_ms"] > 0 and "p95_ratio" in noisy, noisy


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.timeout(900)  # many processes on two cores: minutes when the machine is busy
def test_the_scale_out_run_runs(tmp_path):
    env = bench_env(tmp_path)
    report = bench(
        env, "-m", "tests.bench.scale_out", "--documents", "2", "--seconds", "2", "--clients", "1"
    )

    assert report["ingestion_docs_per_minute"]["two_workers"] > 0, report
    assert report["search_requests_per_second"]["web_a_and_b"] > 0, report
    assert report["outbox_drain_lag_seconds"]["p50"] >= 0, report
