"""Questions in English over Spanish and Portuguese knowledge: where the threshold leaves
them (``manage.py bench_across_languages``).

Each shared set's sample of questions (``tests/data/english_translations``: 30 dev and 25
held-out questions of each, translated by hand, one per article first) is asked in English
and as written of its own corpus; the other set's English questions, on other subjects,
are asked of it as off-topic. Reported: the relevant passage's score as the threshold reads
it (the semantic score), the shift from the question as written, and at each floor the
share of relevant passages it keeps and of off-topic questions whose best passage passes.
The search runs with the threshold off, so the floors are read from the scores alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from knowledge.search.types import ENGLISH_OVER_ES_PT_MARGIN, default_min_score
from tests.bench.retrieval import (
    _best_score,
    bench_license,
    ingest_passages,
    load_dataset,
    relevant_score,
)

TRANSLATIONS = Path(__file__).resolve().parents[1] / "data" / "english_translations"
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


def run(
    shared: Path,
    split: str,
    progress: Callable[[int, int], None],
    translations: Path = TRANSLATIONS,
) -> dict:
    datasets = {name: load_dataset(shared / name, "all") for name in SETS}
    english = {name: english_questions(name, split, translations) for name in SETS}
    report: dict = {"split": split, "model": MODEL, "floor": default_min_score(MODEL)}
    report["english_floor"] = round(report["floor"] - ENGLISH_OVER_ES_PT_MARGIN[MODEL], 4)
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
    return report


def _summary(as_written: list[float], in_english: list[float], off_topic: list[float]) -> dict:
    written, english, off = np.array(as_written), np.array(in_english), np.array(off_topic)
    return {
        "questions": len(english),
        "relevant_median": {
            "as_written": _r(np.median(written)),
            "english": _r(np.median(english)),
        },
        "shift_median": _r(np.median(written - english)),
        "off_topic_median": _r(np.median(off)),
        "floors": {
            str(floor): {
                "relevant_kept_as_written": _r(np.mean(written >= floor)),
                "relevant_kept_english": _r(np.mean(english >= floor)),
                "off_topic_passing": _r(np.mean(off >= floor)),
            }
            for floor in FLOORS
        },
    }


def _r(value: float) -> float:
    return round(float(value), 3)
