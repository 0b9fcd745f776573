"""Lexical rerankers over the fused ranking, on a dev split, by brute force. Not part of make
test; research for issue 17's Portuguese goal. Needs packages the product does not ship:

    .venv/bin/pip install --target /tmp/cxm25 cxm25==0.1.0 xgboost-cpu==3.2.0
    DEBUG=1 PYTHONPATH=/tmp/cxm25 .venv/bin/python -m tests.bench.lexical_rerank_signals \
        ../shared/bench/faquad-pt ../shared/bench/xquad-es

(xgboost-cpu brings scipy, which the product does not use, and numpy 2.4.6, the venv's own).

The base is the product's ranking as tests/bench/sentence_signals.py rebuilds it: each
passage (title, then text) and its sentence groups embedded, the semantic score
``0.3 * chunk + 0.7 * best sentence``, BM25 in place of ``ts_rank``, fused with dense weight
0.6 over min-max of each retriever's top 50. Against it, nDCG@10 of:

- CXM25 (pure, corpus statistics; BM25-style saturation normalised by query IDF, character
  3-gram overlap, phrase runs, leading-position credit; Portuguese stems and stopwords):
  alone, in place of BM25, as a third fused part, and added to the fused top 50;
- CXM25-LTR (its shipped gradient-boosted model over 31 lexical features, trained on a
  Portuguese translation of MS MARCO) added to the fused top 30, and its cost per query.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from tests.bench.retrieval_signals import POOL, _bm25, _jsonl, _ndcg
from tests.bench.sentence_signals import (
    _scaled,
    chunk_and_sentence_scores,
    datasets_and_embedder,
)

DENSE_WEIGHT = 0.6  # SEARCH_VECTOR_WEIGHT
SENTENCE_WEIGHT = 0.7  # SEARCH_SENTENCE_WEIGHT
LTR_POOL = 30


def main() -> None:
    import cxm25

    datasets, model = datasets_and_embedder()
    ltr = cxm25.load_baked_ltr()
    for directory in datasets:
        print(json.dumps({"dataset": directory.name, **measure(model, ltr, directory)}))


def measure(model, ltr, directory: Path) -> dict:  # noqa: ANN001
    from cxm25 import Normalizer, build_corpus_stats
    from cxm25.scoring import CXM25
    from cxm25.stats import tokenize_doc

    passages = _jsonl(directory / "passages.jsonl")
    questions = [q for q in _jsonl(directory / "queries.jsonl") if q["split"] == "dev"]
    texts = [f"{p['title']}\n{p['text']}" for p in passages]
    asked = [q["text"] for q in questions]
    dense, bm25 = _product_signals(model, passages, texts, asked)
    normalise = Normalizer()
    documents = [tokenize_doc(normalise, t) for t in texts]
    stats = build_corpus_stats(texts, gram_n=3)
    average = sum(len(d[0]) for d in documents) / len(documents)
    scorer = CXM25(stats.df, stats.df2, stats.N, average, gdf=stats.gdf, gram_n=3)
    cx = np.array(
        [[scorer.score_prepared(scorer.prepare(normalise(q)), d) for d in documents] for q in asked]
    )
    ids = [p["id"] for p in passages]
    relevant = [set(q["relevant"]) for q in questions]

    def ndcg(rows: np.ndarray) -> float:
        return _ndcg(rows, ids, relevant)

    base = _fused(dense, bm25)
    report = {"base (product fusion, BM25)": ndcg(base), "BM25 alone": ndcg(bm25)}
    report["CXM25 alone"] = ndcg(cx)
    report["dense + CXM25 in place of BM25"] = ndcg(_fused(dense, cx))
    for share in (0.2, 0.35):
        mixed = _fused(dense, bm25, lambda b, i, s=share: (1 - s) * b + s * _top(cx[i]))
        report[f"dense + ({1 - share:.2f} BM25 + {share} CXM25)"] = ndcg(mixed)
    for beta in (0.1, 0.2, 0.3):
        report[f"base + {beta} CXM25 over its top 50"] = ndcg(_added(base, cx, beta, POOL))
    started = time.perf_counter()
    learned = np.full_like(base, -1e9)
    for i, question in enumerate(asked):
        pool = np.argsort(-base[i])[:LTR_POOL]
        prepared = normalise(question)
        learned[i, pool] = ltr.score_pool(prepared, [documents[j] for j in pool])
    report["CXM25-LTR ms per question"] = round(
        (time.perf_counter() - started) / len(asked) * 1e3, 1
    )
    report[f"CXM25-LTR alone over the top {LTR_POOL}"] = ndcg(learned)
    for beta in (0.1, 0.2, 0.3):
        report[f"base + {beta} CXM25-LTR over the top {LTR_POOL}"] = ndcg(
            _added(base, learned, beta, LTR_POOL)
        )
    return report


def _product_signals(model, passages: list[dict], texts: list[str], asked: list[str]) -> tuple:  # noqa: ANN001
    chunk, best, _, _ = chunk_and_sentence_scores(model, passages, model.query(asked))
    dense = (1 - SENTENCE_WEIGHT) * chunk + SENTENCE_WEIGHT * best
    return dense, _bm25(texts, asked)


def _top(row: np.ndarray) -> np.ndarray:
    return _scaled(row, np.argsort(-row)[:POOL])


def _fused(dense: np.ndarray, keyword: np.ndarray, keyword_part=None) -> np.ndarray:  # noqa: ANN001
    rows = []
    for i, (d, k) in enumerate(zip(dense, keyword, strict=True)):
        part = _top(k) if keyword_part is None else keyword_part(_top(k), i)
        rows.append(DENSE_WEIGHT * _top(d) + (1 - DENSE_WEIGHT) * part)
    return np.array(rows)


def _added(base: np.ndarray, scores: np.ndarray, beta: float, pool: int) -> np.ndarray:
    """The fused score plus ``beta`` times the reranker's min-max over the fused top ``pool``."""
    return np.array(
        [f + beta * _scaled(s, np.argsort(-f)[:pool]) for f, s in zip(base, scores, strict=True)]
    )


if __name__ == "__main__":
    main()
