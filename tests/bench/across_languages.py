"""Questions asked across English and Spanish or Portuguese: where the threshold leaves
them (``manage.py bench_across_languages``).

English questions over Spanish and Portuguese knowledge: each shared set's sample of
questions (``tests/data/english_translations``: 30 dev and 25 held-out questions of each,
translated by hand, one per article first) is asked in English and as written of its own
corpus; the other set's English questions, on other subjects, are asked of it as
off-topic.

Spanish and Portuguese questions over English knowledge (``over_english``): the relevant
passages of the first 20 dev and 15 held-out of those questions, put into English by hand
(``tests/data/english_passages``), make an English corpus of each set; its questions are
asked of it as written, and the other set's as off-topic. That corpus has 35 passages, not
the set's ~240, so its off-topic figures are a floor of what a large English corpus lets
through.

English questions over knowledge in two languages (``mixed``): the set's passages beside
the other set's English ones (``_mixed``).

Reported: the offline answers to the English questions and as written (lead-sentence and
whole-answer hits, "no information"); the relevant passage's score as the threshold reads it (the semantic score), the
shift from the question asked in the passage's own language, and at each floor the share
of relevant passages it keeps and of off-topic questions whose best passage passes. The
search runs with the threshold off, so the floors are read from the scores alone."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from chat.services import chat_answer
from chat.texts import NO_INFORMATION
from knowledge.search.types import ACROSS_ENGLISH_MARGIN, default_min_score
from licenses.models import License
from licenses.principals import principal_for_license
from tests.bench.answers import answer_body, holds, lead_sentence
from tests.bench.retrieval import (
    Dataset,
    _best_score,
    bench_license,
    ingest_passages,
    load_dataset,
    relevant_score,
)

TRANSLATIONS = Path(__file__).resolve().parents[1] / "data" / "english_translations"
ENGLISH_PASSAGES = Path(__file__).resolve().parents[1] / "data" / "english_passages"
SETS = ("xquad-es", "faquad-pt")
FLOORS = (0.76, 0.78, 0.79, 0.80, 0.81, 0.82)
MODEL = "e5-small@384"


def english_questions(name: str, split: str, translations: Path = TRANSLATIONS) -> dict[str, str]:
    """The set's questions put into English, by id."""
    rows = (translations / f"{name}.tsv").read_text().splitlines()
    return {
        qid: text
        for qid, said_split, text in (row.split("\t") for row in rows if not row.startswith("#"))
        if said_split == split
    }


def english_passages(name: str, passages: Path = ENGLISH_PASSAGES) -> list[dict]:
    """The set's passages put into English: every split's, so the corpus is one."""
    return [json.loads(line) for line in (passages / f"{name}.jsonl").read_text().splitlines()]


@dataclass(frozen=True)
class _Sets:
    """What the reports over other corpora read: the sets, their English questions by id,
    the folder of their passages put into English."""

    datasets: dict[str, Dataset]
    english: dict[str, dict[str, str]]
    passages: Path
    progress: Callable[[int, int], None]


def run(
    shared: Path,
    split: str,
    progress: Callable[[int, int], None],
    translations: Path = TRANSLATIONS,
    passages: Path = ENGLISH_PASSAGES,
) -> dict:
    datasets = {name: load_dataset(shared / name, "all") for name in SETS}
    english = {name: english_questions(name, split, translations) for name in SETS}
    report: dict = {"split": split, "model": MODEL, "floor": default_min_score(MODEL)}
    report["english_floor"] = round(report["floor"] - ACROSS_ENGLISH_MARGIN[MODEL], 4)
    for name, other in zip(SETS, reversed(SETS), strict=True):
        dataset = datasets[name]
        license = bench_license(dataset)
        ingest_passages(dataset, license, progress)
        asked = [q for q in dataset.queries if q["id"] in english[name]]
        # a relevant passage outside the top 30 scores 0: under every floor
        as_written = [
            relevant_score(license, q["text"], q["relevant"], "semantic") or 0.0 for q in asked
        ]
        in_english = [
            relevant_score(license, english[name][q["id"]], q["relevant"], "semantic") or 0.0
            for q in asked
        ]
        off_topic = [_best_score(license, text, "semantic") for text in english[other].values()]
        report[name] = _summary(as_written, in_english, off_topic)
        report[name]["answers"] = {
            "as_written": _answers(license, [(q["text"], q["answers"]) for q in asked]),
            "english": _answers(license, [(english[name][q["id"]], q["answers"]) for q in asked]),
        }
    sets = _Sets(datasets, english, passages, progress)
    report["over_english"] = {
        name: _over_english(sets, name, other)
        for name, other in zip(SETS, reversed(SETS), strict=True)
    }
    report["mixed"] = {
        name: _mixed(sets, name, other) for name, other in zip(SETS, reversed(SETS), strict=True)
    }
    return report


def _mixed(sets: _Sets, name: str, other: str) -> dict:
    """English questions over knowledge in two languages: the set's passages beside the
    other set's passages put into English, on other subjects, which share the question's
    common words ("day", "many") where the keyword search reads them. Asked: the set's
    English questions (answered across languages), the other set's whose passage is there
    in English (answered in English), and the other set's whose passage is not (no
    answer there). Counted: the lead quote cited from a relevant passage, "no information"."""
    datasets, english = sets.datasets, sets.english
    english_corpus = english_passages(other, sets.passages)
    mixed = Dataset(f"{name}-and-{other}-en", datasets[name].passages + english_corpus, [])
    license = bench_license(mixed)
    ingest_passages(mixed, license, sets.progress)
    in_english = {p["id"] for p in english_corpus}
    across = [
        (english[name][q["id"]], set(q["relevant"]))
        for q in datasets[name].queries
        if q["id"] in english[name]
    ]
    others = [
        (english[other][q["id"]], in_english.intersection(q["relevant"]))
        for q in datasets[other].queries
        if q["id"] in english[other]
    ]
    return {
        "across": _cited(license, across),
        "in_english": _cited(license, [(text, ids) for text, ids in others if ids]),
        "unanswerable": _cited(license, [(text, ids) for text, ids in others if not ids]),
    }


def _cited(license: License, asked: list[tuple[str, set[str]]]) -> dict:
    """How often the offline answer's lead quote is cited from one of the relevant
    passages, and how often it is "no information"."""
    principal = principal_for_license(license)
    lead = no_info = 0
    for n, (question, relevant) in enumerate(asked):
        answer = chat_answer(principal=principal, question=question, user_ref=f"m-{n}")
        no_info += any(sentence in answer.answer for sentence in NO_INFORMATION.values())
        first = re.search(r"\[(\d+)\]", answer.answer)
        cited = {c.number: c.document.removesuffix(".md") for c in answer.citations}
        lead += bool(first) and cited.get(int(first.group(1)) if first else 0) in relevant
    count = len(asked) or 1
    return {"questions": len(asked), "lead_relevant": _r(lead / count), "no_info": no_info}


def _answers(license: License, asked: list[tuple[str, list[str]]]) -> dict:
    """The offline answers' lead-sentence and whole-answer hits and "no information", as
    ``bench_answers`` counts them (the gold answers are in the passages' language, which
    the answerer quotes as written)."""
    principal = principal_for_license(license)
    lead = whole = no_info = 0
    for n, (question, gold) in enumerate(asked):
        answer = chat_answer(principal=principal, question=question, user_ref=f"a-{n}").answer
        lead += holds(lead_sentence(answer), gold)
        whole += holds(answer_body(answer), gold)
        no_info += any(sentence in answer for sentence in NO_INFORMATION.values())
    count = len(asked) or 1
    return {"lead_hit": _r(lead / count), "whole_hit": _r(whole / count), "no_info": no_info}


def _over_english(sets: _Sets, name: str, other: str) -> dict:
    """The set's questions as written over its passages put into English."""
    datasets, english = sets.datasets, sets.english
    corpus = Dataset(f"{name}-en", english_passages(name, sets.passages), [])
    license = bench_license(corpus)
    ingest_passages(corpus, license, sets.progress)
    in_corpus = {p["id"] for p in corpus.passages}
    asked = [
        q
        for q in datasets[name].queries
        if q["id"] in english[name] and in_corpus.intersection(q["relevant"])
    ]
    own = bench_license(datasets[name])  # ingested by run()
    own_language = [relevant_score(own, q["text"], q["relevant"], "semantic") or 0.0 for q in asked]
    over = [relevant_score(license, q["text"], q["relevant"], "semantic") or 0.0 for q in asked]
    off_topic = [
        _best_score(license, q["text"], "semantic")
        for q in datasets[other].queries
        if q["id"] in english[other]
    ]
    return _summary(own_language, over, off_topic, labels=("own_language", "english_passage"))


def _summary(
    same_language: list[float],
    across: list[float],
    off_topic: list[float],
    labels: tuple[str, str] = ("as_written", "english"),
) -> dict:
    """``same_language``: each question's relevant passage in the question's language;
    ``across``: the same question and passage across English; labelled ``labels``."""
    same, other, off = np.array(same_language), np.array(across), np.array(off_topic)
    return {
        "questions": len(other),
        "relevant_median": {labels[0]: _r(np.median(same)), labels[1]: _r(np.median(other))},
        "shift_median": _r(np.median(same - other)),
        "off_topic_median": _r(np.median(off)),
        "floors": {
            str(floor): {
                f"relevant_kept_{labels[0]}": _r(np.mean(same >= floor)),
                f"relevant_kept_{labels[1]}": _r(np.mean(other >= floor)),
                "off_topic_passing": _r(np.mean(off >= floor)),
            }
            for floor in FLOORS
        },
    }


def _r(value: float) -> float:
    return round(float(value), 3)
