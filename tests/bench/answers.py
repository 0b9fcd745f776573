"""Answer quality of the offline answerer on real Spanish (XQuAD) and Portuguese (FaQuAD) data.

The passages are ingested as bench_retrieval ingests them (tests/bench/retrieval.py), then
each question goes through the chat service exactly as the API's /chat does (retrieval in the
set's license scope, the offline answerer, citations). Each answer is scored against the
question's gold ``answers`` in queries.jsonl: containment after folding case and accents and
removing the offline label, citation markers and quotes.

- **lead hit**: the answer's first sentence (after the label) holds a gold answer;
- **whole hit**: the answer holds one anywhere;
- **words**: the answer's length without the label and markers (median, p90);
- **no info**: answers saying there is no information (the threshold or the answerer);
- **wrong language**: answers whose label or wording is not in the set's language.
"""

from __future__ import annotations

import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from chat.extractive import OFFLINE_LABEL, UNHEARD_OF
from chat.services import assistant_update, chat_answer
from chat.texts import NO_INFORMATION
from licenses.principals import principal_for_license
from tests.bench.long_documents import layout_license
from tests.bench.retrieval import Dataset, bench_license, ingest_passages, load_dataset
from text.folding import fold

_MARKERS = re.compile(r"\[\d{1,3}\]|[«»\"“”]")
_SENTENCE_LINE = re.compile(r"\n+")


def set_language(name: str) -> str:
    """xquad-es → es, faquad-pt → pt: the sets are named for their language."""
    return name.rsplit("-", 1)[-1][:2]


def answer_body(answer: str) -> str:
    """The answer without the offline label, citation markers and quotes."""
    for label in OFFLINE_LABEL.values():
        answer = answer.replace(label, "")
    return " ".join(_MARKERS.sub(" ", answer).split())


def lead_sentence(answer: str) -> str:
    """The first sentence after the label: the answerer writes one quoted sentence a line."""
    for label in OFFLINE_LABEL.values():
        answer = answer.replace(label, "")
    lines = [line for line in _SENTENCE_LINE.split(answer) if line.strip()]
    return answer_body(lines[0]) if lines else ""


def holds(text: str, answers: list[str]) -> bool:
    folded = " ".join(fold(text).split())
    return any(" ".join(fold(gold).split()) in folded for gold in answers if gold.strip())


def notes_unheard_of(answer: str) -> bool:
    """The answer closes with the note naming what nothing quoted mentions."""
    return any(note.split("{}")[0] in answer for note in UNHEARD_OF.values())


def answer_language_of(answer: str) -> str | None:
    for language, label in OFFLINE_LABEL.items():
        if label in answer:
            return language
    for language, sentence in NO_INFORMATION.items():
        if sentence in answer:
            return language
    return None


def evaluate(
    directory: Path,
    split: str,
    progress: Callable[[int, int], None],
    length: str = "normal",
    layout: str = "passages",
    typos: bool = False,
) -> dict:
    """``layout`` "articles": each article one document (tests/bench/long_documents.py);
    ``typos``: the questions ``misspelt``."""
    dataset = load_dataset(directory, split, typos=typos)
    if layout == "articles":
        license = layout_license(dataset, layout, progress)
    else:
        license = bench_license(dataset)
        ingest_passages(dataset, license, progress)
    assistant_update(license=license, values={"answer_length": length})
    principal = principal_for_license(license)
    language = set_language(dataset.name)
    lead, whole, words, latencies = [], [], [], []
    no_info = wrong_language = label_first = noted = noted_on_hits = 0
    for n, query in enumerate(dataset.queries):
        started = time.perf_counter()
        answer = chat_answer(
            principal=principal, question=query["text"], user_ref=f"bench-{n}"
        ).answer
        latencies.append((time.perf_counter() - started) * 1000)
        said = answer_language_of(answer)
        if said is not None and said != language:
            wrong_language += 1
        if any(sentence in answer for sentence in NO_INFORMATION.values()):
            no_info += 1
        first_line = answer.strip().split("\n", 1)[0]
        label_first += any(label in first_line for label in OFFLINE_LABEL.values())
        lead.append(holds(lead_sentence(answer), query["answers"]))
        whole.append(holds(answer_body(answer), query["answers"]))
        noted += notes_unheard_of(answer)
        noted_on_hits += notes_unheard_of(answer) and whole[-1]
        words.append(len(answer_body(answer).split()))
    words.sort()
    latencies.sort()
    return {
        "dataset": dataset.name,
        "split": split,
        "answer_length": length,
        "layout": layout,
        "n": len(dataset.queries),
        "lead_hit": round(statistics.fmean(lead), 3),
        "whole_hit": round(statistics.fmean(whole), 3),
        "median_words": statistics.median(words),
        "p90_words": words[int(len(words) * 0.9) - 1],
        "no_info": no_info,
        "wrong_language": wrong_language,
        "label_first": label_first,  # answers whose first line is the offline label: 0
        "noted_unheard_of": noted,  # answers closing with "nothing quoted mentions …"
        "noted_on_hits": noted_on_hits,  # … although they hold the answer
        "p50_ms": round(latencies[len(latencies) // 2], 1),
    }


def half_of_the_passages(dataset: Dataset, by: str) -> tuple[Dataset, set[str]]:
    """Half of the set's passages, and the ids kept. ``by="article"``: every other article
    (title) whole — a question about the others asks what this knowledge never mentions.
    ``by="paragraph"``: every other paragraph of each article — the question's article is
    there, only the paragraph that answers it is not (the hard case: a handbook that does
    not say what is asked)."""
    by_title: dict[str, list[dict]] = defaultdict(list)
    for passage in dataset.passages:
        by_title[passage["title"]].append(passage)
    if by == "article":
        kept = {p["id"] for passages in list(by_title.values())[::2] for p in passages}
    else:
        kept = {p["id"] for passages in by_title.values() for p in passages[::2]}
    passages = [p for p in dataset.passages if p["id"] in kept]
    return Dataset(f"{dataset.name}-half-{by}", passages, dataset.queries), kept


def answered_elsewhere(query: dict, kept_passages: list[str]) -> bool:
    """A gold answer of two words or more is written in a kept passage: the question is
    answered by the knowledge after all. FaQuAD's regulations overlap ("normas para renovação
    de matrícula" and "normas complementares para a renovação…" are two articles), so its
    article's absence does not make a question unanswerable. One word ("dois", "2010") is
    found by chance."""
    golds = [" ".join(fold(gold).split()) for gold in query["answers"] if len(gold.split()) > 1]
    return any(gold in passage for gold in golds for passage in kept_passages)


def evaluate_unanswerable(
    directory: Path, split: str, progress: Callable[[int, int], None], by: str = "article"
) -> dict:
    """The same answerer on half of the passages (``half_of_the_passages``): the share of
    questions with no answer in the license's documents that get "no information", and the
    answered ones' hits, side by side. ``no_info_share_unanswerable`` counts every question
    whose passage was left out; ``…_clean`` leaves out those ``answered_elsewhere``."""
    half, kept = half_of_the_passages(load_dataset(directory, split), by)
    license = bench_license(half)
    ingest_passages(half, license, progress)
    principal = principal_for_license(license)
    kept_passages = [" ".join(fold(p["text"]).split()) for p in half.passages]
    no_info_when_absent, no_info_when_present, lead, whole = [], [], [], []
    no_info_when_truly_absent, noted_when_absent, noted_when_present = [], [], []
    for n, query in enumerate(half.queries):
        answer = chat_answer(principal=principal, question=query["text"], user_ref=f"u-{n}")
        said_none = any(sentence in answer.answer for sentence in NO_INFORMATION.values())
        noted = notes_unheard_of(answer.answer)
        if set(query["relevant"]) & kept:
            no_info_when_present.append(said_none)
            noted_when_present.append(noted)
            lead.append(holds(lead_sentence(answer.answer), query["answers"]))
            whole.append(holds(answer_body(answer.answer), query["answers"]))
        else:
            no_info_when_absent.append(said_none)
            noted_when_absent.append(noted)
            if not answered_elsewhere(query, kept_passages):
                no_info_when_truly_absent.append(said_none)
    return {
        "dataset": half.name,
        "split": split,
        "unanswerable": len(no_info_when_absent),
        "no_info_share_unanswerable": round(statistics.fmean(no_info_when_absent), 3),
        "answered_elsewhere": len(no_info_when_absent) - len(no_info_when_truly_absent),
        "no_info_share_unanswerable_clean": (
            round(statistics.fmean(no_info_when_truly_absent), 3)
            if no_info_when_truly_absent
            else None
        ),
        "answerable": len(lead),
        "no_info_share_answerable": round(statistics.fmean(no_info_when_present), 3),
        "lead_hit": round(statistics.fmean(lead), 3),
        "whole_hit": round(statistics.fmean(whole), 3),
        # quoted, closing with "nothing quoted mentions …": right when unanswerable
        "noted_unheard_of_unanswerable": sum(noted_when_absent),
        "noted_unheard_of_answerable": sum(noted_when_present),
    }
