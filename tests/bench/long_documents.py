"""Long documents: the shared sets' passages uploaded as their whole articles (one Markdown
document per article, its title as the heading and its paragraphs one after another, as a
handbook is), beside one document per passage (the retrieval benchmark's layout), each in a
license of its own. The passage ids are lost once an article is chunked, so both layouts are
judged the same way: whether a gold answer's words are in the first chunk found, or in one
of the first five."""

from __future__ import annotations

import io
import statistics
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from knowledge import ingestion, uploads
from knowledge.models import Document, DocumentStatus
from knowledge.search import search, sentence_vectors
from knowledge.search.types import SearchOptions
from licenses.models import License
from licenses.principals import principal_for_license
from licenses.services import license_forge
from tests.bench.retrieval import Dataset, load_dataset
from text.folding import fold

LAYOUTS = ("passages", "articles")


def documents(dataset: Dataset, layout: str) -> list[tuple[str, str]]:
    """(file name, Markdown) of each document the layout uploads."""
    if layout == "passages":
        return [(f"{p['id']}.md", f"# {p['title']}\n\n{p['text']}\n") for p in dataset.passages]
    articles: dict[str, list[str]] = defaultdict(list)
    for passage in dataset.passages:
        articles[passage["title"]].append(passage["text"])
    return [
        (f"{n:03d}.md", f"# {title}\n\n" + "\n\n".join(paragraphs) + "\n")
        for n, (title, paragraphs) in enumerate(articles.items())
    ]


def _license(dataset: Dataset, layout: str) -> License:
    machine_id = f"bench-long-{dataset.name}-{layout}".lower()
    existing = License.objects.filter(machine_id=machine_id).first()
    return existing or license_forge(user_name="Benchmark", machine_id=machine_id).license


def _ingest(files: list[tuple[str, str]], license: License, progress: Callable) -> None:
    """Idempotent: a file already ingested (same bytes, same scope) is not ingested again."""
    for n, (name, text) in enumerate(files, 1):
        creation = uploads.document_create(
            file=io.BytesIO(text.encode()), filename=name, license=license, enqueue=False
        )
        if creation.document.status != DocumentStatus.READY:
            ingestion.document_ingest(document_id=creation.document.pk)
        progress(n, len(files))
    sentence_vectors.sentences_embed_missing()


def layout_license(dataset: Dataset, layout: str, progress: Callable) -> License:
    """The license holding ``dataset``'s passages as ``layout`` uploads them, ingested."""
    license = _license(dataset, layout)
    _ingest(documents(dataset, layout), license, progress)
    return license


def _answer_ranks(dataset: Dataset, license: License) -> list[int | None]:
    """Per question with answers, the rank of the first chunk holding one (None: not in ten)."""
    ranks = []
    for query in dataset.queries:
        answers = [fold(a) for a in query.get("answers", []) if a.strip()]
        if not answers:
            continue
        results = search(
            principal=principal_for_license(license),
            query=query["text"],
            options=SearchOptions(top_k=10, min_score=-1.0, relative_cut=0.0),
        ).results
        held = [any(a in fold(r.content) for a in answers) for r in results]
        ranks.append(held.index(True) + 1 if True in held else None)
    return ranks


def run(directory: Path, split: str, progress: Callable[[int, int], None]) -> dict:
    dataset = load_dataset(directory, split)
    report: dict = {"dataset": dataset.name, "split": split, "layouts": {}}
    for layout in LAYOUTS:
        license = layout_license(dataset, layout, progress)
        ranks = _answer_ranks(dataset, license)
        ready = Document.objects.filter(license=license)
        report["layouts"][layout] = {
            "documents": ready.count(),
            "chunks": sum(ready.values_list("chunk_count", flat=True)),
            "questions": len(ranks),
            "answer@1": round(statistics.fmean(r == 1 for r in ranks), 4),
            "answer@5": round(statistics.fmean(r is not None and r <= 5 for r in ranks), 4),
        }
    return report
