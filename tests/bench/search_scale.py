"""Hybrid search latency and kNN recall at scale, on synthetic data in a separate database.

Data (after ../shared/bench/PGVECTOR-NOTES.md): 384-d unit vectors from a mixture of 200
centres; 60-140-word pseudo-Spanish chunks from a 20k-word Zipf vocabulary plus 35% topic
words of the chunk's centre; licenses of Zipf sizes, 20% global rows, plus one tiny license
of 20 chunks. Timings are of the product's own statement (knowledge/search/statement.py).

Two vector shapes:
- ``e5`` (default): the geometry of real e5-small passage embeddings, measured on the 521
  XQuAD/FaQuAD passages of the retrieval benchmark: every vector shares a strong common
  direction (unrelated passages have cosine ~0.78, as e5's do), then a centre, one of 20
  sub-topics of it, and noise (nearest neighbours ~0.90, as e5's).
- ``islands``: 200 mutually orthogonal centres plus isotropic noise (unrelated passages at
  cosine 0, neighbours at ~0.56): a stress case no text embedder produces, whose clusters
  are nearly disconnected islands in an HNSW graph.
"""

from __future__ import annotations

import hashlib
import statistics
import time
import uuid
from dataclasses import dataclass

import numpy as np
from django.db import connection, transaction
from django.utils import timezone
from pgvector import HalfVector

from knowledge.models import Document, EmbeddingSpace
from knowledge.search import SearchOptions, SearchTuning, caches_forget
from knowledge.search.statement import hybrid_rows
from knowledge.search.vector_index import drop_index, ensure_index, global_index_name, index_name
from licenses.models import License

MODEL = "e5-small@384"
DIMS = 384
CENTRES = 200
SUBTOPICS = 20
SHAPES = ("e5", "islands")
KEYWORD_INDEX = "chunk_scoped_lexemes_gin"
KEYWORD_INDEX_DDL = (  # as migration 0007 builds it
    f"CREATE INDEX {KEYWORD_INDEX} ON knowledge_chunk"
    " USING gin (pb_scoped_lexemes(scope_key, search_vector))"
)
# Squared norms of the e5 shape's parts, next to a unit common direction: unrelated vectors
# meet at 1 / (1 + 0.282) = 0.78, same centre at 0.84, same sub-topic at ~0.90 (see above).
E5_CENTRE, E5_SUBTOPIC, E5_NOISE = 0.08, 0.08, 0.122
rng = np.random.default_rng(7)


@dataclass
class World:
    shape: str
    centres: np.ndarray
    subtopics: np.ndarray
    common: np.ndarray
    vocabulary: list[str]
    topic_words: list[list[str]]
    licenses: list[uuid.UUID]
    tiny: uuid.UUID


def _vocabulary(size: int = 20000) -> list[str]:
    syllables = [
        "ca",
        "de",
        "la",
        "mo",
        "ri",
        "sa",
        "to",
        "ne",
        "pu",
        "ran",
        "cion",
        "mien",
        "tor",
        "bal",
        "que",
        "lo",
        "es",
        "ta",
        "ga",
        "vi",
    ]
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables, size=rng.integers(2, 5))))
    return sorted(words)


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=-1, keepdims=True)


def make_world(licenses: int, shape: str = "e5") -> World:
    vocabulary = _vocabulary()
    centres = _unit(rng.normal(size=(CENTRES, DIMS)))
    topic_words = [list(rng.choice(vocabulary, size=30, replace=False)) for _ in range(CENTRES)]
    return World(
        shape=shape,
        centres=centres,
        subtopics=_unit(rng.normal(size=(CENTRES, SUBTOPICS, DIMS))),
        common=_unit(rng.normal(size=DIMS)),
        vocabulary=vocabulary,
        topic_words=topic_words,
        licenses=[uuid.uuid4() for _ in range(licenses)],
        tiny=uuid.uuid4(),
    )


def _text(world: World, centre: int, common_words: np.ndarray) -> str:
    length = len(common_words)
    common = [world.vocabulary[i] for i in common_words]
    topic = list(rng.choice(world.topic_words[centre], size=int(length * 0.35)))
    words = common + topic
    rng.shuffle(words)
    return " ".join(words)


def _vectors(world: World, centres: np.ndarray) -> np.ndarray:
    if world.shape == "islands":
        vectors = world.centres[centres] + rng.normal(scale=0.045, size=(len(centres), DIMS))
        return _unit(vectors).astype(np.float32)
    subtopics = world.subtopics[centres, rng.integers(0, SUBTOPICS, size=len(centres))]
    noise = rng.normal(scale=np.sqrt(E5_NOISE / DIMS), size=(len(centres), DIMS))
    vectors = (
        world.common
        + np.sqrt(E5_CENTRE) * world.centres[centres]
        + np.sqrt(E5_SUBTOPIC) * subtopics
        + noise
    )
    return _unit(vectors).astype(np.float32)


LAYOUTS = ("chunks", "documents")
DOCUMENT_CHUNKS = 40


def _scopes(world: World, n: int, layout: str = "documents") -> list[uuid.UUID | None]:
    """20% global; the rest over licenses with Zipf sizes; 20 rows for the tiny license.

    Layout ``documents`` (the default) inserts rows as uploads do, in runs of 40 chunks of
    one scope (ingestion writes a document's chunks together), the runs in random order;
    ``chunks`` deals every chunk to a scope at random, so a scope's rows are spread over
    the whole table, one per page: a worst case no upload produces (until issue 17, the
    benchmark's only layout)."""
    scopes = _dealt_scopes(world, n)
    if layout == "chunks":
        return scopes
    by_scope: dict[uuid.UUID | None, list[uuid.UUID | None]] = {}
    for scope in scopes:
        by_scope.setdefault(scope, []).append(scope)
    runs = [
        rows[i : i + DOCUMENT_CHUNKS]
        for rows in by_scope.values()
        for i in range(0, len(rows), DOCUMENT_CHUNKS)
    ]
    order = rng.permutation(len(runs))
    return [scope for i in order for scope in runs[i]]


def _dealt_scopes(world: World, n: int) -> list[uuid.UUID | None]:
    weights = 1 / np.arange(1, len(world.licenses) + 1) ** 1.1
    weights /= weights.sum()
    owners = rng.choice(len(world.licenses), size=n, p=weights)
    scopes: list[uuid.UUID | None] = [world.licenses[i] for i in owners]
    for i in rng.choice(n, size=n // 5, replace=False):
        scopes[i] = None
    for i in rng.choice(n, size=20, replace=False):
        scopes[i] = world.tiny
    return scopes


CHUNK_COLUMNS = (
    "id, document_id, license_id, ordinal, content, content_hash, token_count, heading, "
    "ts_config, created_at"
)


def fill(world: World, n: int, progress, layout: str = "documents") -> None:  # noqa: ANN001
    """Chunks first (COPY to a staging table, then one INSERT that computes the tsvector, so
    each row is written once as the product writes it), then embeddings; the search indexes
    are dropped during the load and built once at the end."""
    from pgvector.psycopg import register_vector

    now = timezone.now()
    zipf = 1 / np.arange(1, len(world.vocabulary) + 1) ** 1.07
    zipf /= zipf.sum()
    with connection.cursor() as cursor:
        raw = cursor.connection
        register_vector(raw)
        cursor.execute(
            "TRUNCATE knowledge_embedding, knowledge_chunk, knowledge_document, knowledge_embeddingspace, licenses_license CASCADE"
        )
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [KEYWORD_INDEX])
        row = cursor.fetchone()  # none when an interrupted fill had already dropped it
        gin_definition = row[0] if row else KEYWORD_INDEX_DDL
        cursor.execute(f"DROP INDEX IF EXISTS {KEYWORD_INDEX}")
        drop_index(MODEL)
        _insert_licenses(cursor, world, now)
        documents = _insert_documents(cursor, world, now)
        scopes = _scopes(world, n, layout)
        centres = rng.integers(0, CENTRES, size=n)
        cursor.execute(
            f"CREATE TEMP TABLE chunk_staging AS SELECT {CHUNK_COLUMNS} FROM knowledge_chunk WITH NO DATA"
        )
        batch = 20000
        for start in range(0, n, batch):
            end = min(start + batch, n)
            _copy_chunks(
                raw, world, documents, scopes[start:end], centres[start:end], zipf, start, now
            )
            progress(end // 2, n)
        cursor.execute(
            f"INSERT INTO knowledge_chunk ({CHUNK_COLUMNS}, search_vector) "
            f"SELECT {CHUNK_COLUMNS}, to_tsvector('pb_spanish', content) FROM chunk_staging"
        )
        cursor.execute("DROP TABLE chunk_staging")
        for start in range(0, n, batch):
            end = min(start + batch, n)
            _copy_embeddings(
                raw, scopes[start:end], _vectors(world, centres[start:end]), start, now
            )
            progress(n // 2 + end // 2, n)
        cursor.execute("SET maintenance_work_mem = '2GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 2")
        cursor.execute(gin_definition)
    ensure_index(MODEL)
    EmbeddingSpace.objects.create(model=MODEL, dimensions=DIMS, is_active=True, index_ready=True)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE knowledge_chunk")
        cursor.execute("VACUUM ANALYZE knowledge_embedding")
    caches_forget()


def _insert_licenses(cursor, world: World, now) -> None:  # noqa: ANN001, ARG001
    """Through the ORM, so a column the model gains gets its default (raw INSERTs here
    once broke the benchmark for weeks)."""
    License.objects.bulk_create(
        License(
            id=license_id, machine_id=f"bench-{n}", user_name="bench",
            key_prefix=f"pbk_b{n:07d}", key_hash="", created_at=now, updated_at=now,
        )
        for n, license_id in enumerate([*world.licenses, world.tiny])
    )  # fmt: skip


def _insert_documents(cursor, world: World, now) -> dict:  # noqa: ANN001, ARG001
    documents = {scope: uuid.uuid4() for scope in [None, *world.licenses, world.tiny]}
    Document.objects.bulk_create(
        Document(
            id=document_id, license_id=scope, filename="synthetic.txt", kind="txt",
            size_bytes=0, sha256=uuid.uuid4().hex, language="es", status="ready", progress=100,
            created_at=now, updated_at=now,
        )
        for scope, document_id in documents.items()
    )  # fmt: skip
    return documents


def _copy_chunks(raw, world, documents, scopes, centres, zipf, offset, now) -> None:  # noqa: ANN001
    lengths = rng.integers(60, 140, size=len(scopes))
    words = rng.choice(len(world.vocabulary), size=int(lengths.sum()), p=zipf)  # one draw per batch
    ends = np.cumsum(lengths)
    sql = f"COPY chunk_staging ({CHUNK_COLUMNS}) FROM STDIN"
    with raw.cursor().copy(sql) as copy:
        for i, (scope, centre) in enumerate(zip(scopes, centres, strict=True)):
            chunk_id = offset + i + 1
            text = _text(world, int(centre), words[ends[i] - lengths[i] : ends[i]])
            digest = hashlib.sha256(str(chunk_id).encode()).hexdigest()
            copy.write_row(
                [
                    chunk_id,
                    documents[scope],
                    scope,
                    chunk_id,
                    text,
                    digest,
                    120,
                    "",
                    "pb_spanish",
                    now,
                ]
            )


def _copy_embeddings(raw, scopes, vectors, offset, now) -> None:  # noqa: ANN001
    with raw.cursor().copy(
        "COPY knowledge_embedding (chunk_id, license_id, model, vector, created_at) FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types(["int8", "uuid", "varchar", "halfvec", "timestamptz"])
        for i, (scope, vector) in enumerate(zip(scopes, vectors, strict=True)):
            copy.write_row([offset + i + 1, scope, MODEL, HalfVector(vector), now])


# Sentence groups per chunk, as sentence_groups makes them of 60-140-word chunks: 2 to 8
# (FaQuAD's ~180-token passages have 4.7 on average).
SENTENCES_PER_CHUNK = (2, 9)


def add_sentence_vectors(progress) -> int:  # noqa: ANN001
    """Sentence rows for every embedding, as the product's sentence pass leaves them: each a
    noisy copy of its chunk's vector (the search reads them only for its kNN candidates, so
    their cost depends on how many there are and where they lie, not on their geometry)."""
    from pgvector.psycopg import register_vector

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM knowledge_embedding")
        total = cursor.fetchone()[0]
        raw = cursor.connection
        register_vector(raw)
        written = done = 0
        last = 0
        while True:
            cursor.execute(
                "SELECT id, vector::text FROM knowledge_embedding WHERE id > %s ORDER BY id LIMIT 20000",
                [last],
            )
            rows = cursor.fetchall()
            if not rows:
                break
            last = rows[-1][0]
            written += _copy_sentences(raw, rows)
            done += len(rows)
            progress(done, total)
        cursor.execute("VACUUM ANALYZE knowledge_sentenceembedding")
    return written


def _copy_sentences(raw, rows) -> int:  # noqa: ANN001
    ids = [r[0] for r in rows]
    chunk_vectors = vectors_from_text(rows)
    counts = rng.integers(*SENTENCES_PER_CHUNK, size=len(ids))
    owners = np.repeat(np.arange(len(ids)), counts)
    noise = rng.normal(scale=np.sqrt(0.25 / DIMS), size=(len(owners), DIMS))
    vectors = _unit(chunk_vectors[owners] + noise).astype(np.float32)
    with raw.cursor().copy(
        "COPY knowledge_sentenceembedding (embedding_id, vector) FROM STDIN WITH (FORMAT BINARY)"
    ) as copy:
        copy.set_types(["int8", "halfvec"])
        for owner, vector in zip(owners, vectors, strict=True):
            copy.write_row([ids[owner], HalfVector(vector)])
    return len(owners)


def scope_vectors(license_id: uuid.UUID | None) -> tuple[np.ndarray, np.ndarray]:
    """Every vector a scope sees (global + own), for exact ground truth."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT chunk_id, vector::text FROM knowledge_embedding "
            "WHERE model = %s AND (license_id IS NULL OR license_id = %s)",
            [MODEL, license_id],
        )
        rows = cursor.fetchall()
    return np.array([r[0] for r in rows]), vectors_from_text(rows)


def vectors_from_text(rows: list[tuple]) -> np.ndarray:
    """The matrix of ``(id, vector::text)`` rows' vectors."""
    return np.array([np.array(text[1:-1].split(","), dtype=np.float32) for _, text in rows])


def measure(
    world: World,
    license_id: uuid.UUID | None,
    truth: tuple[np.ndarray, np.ndarray],
    queries: int = 400,
) -> dict:
    """Latency and recall in one scope; ``truth`` is the scope's ids and vectors.

    Half the statements run right after the previous search (a search server's steady
    state), half after sweeping 64 MB through the CPU caches, as the product's own query
    embedding (e5 weights) does right before a real search ("cold"). Each query runs once:
    a repeated query would find its pages already in shared buffers. Recall is computed in
    a separate pass, so the exact numpy search never sits between timings."""
    ids, matrix = truth
    tuning = SearchTuning.from_settings()
    searches = [_query(world, q) for q in range(queries)]
    options = SearchOptions(strategy="weighted", top_k=10, min_score=-1.0).resolved(MODEL)
    latencies: dict[str, list[float]] = {}
    for q, (kind, text, vector) in enumerate(searches):
        cold = q % 4 >= 2  # both kinds alternate, so each gets both conditions
        if cold:
            _sweep_cpu_caches()
        started = time.perf_counter()
        hybrid_rows(
            license_id=license_id,
            query=text,
            vector=vector.tolist(),
            model=MODEL,
            options=options,
            tuning=tuning,
        )
        elapsed = (time.perf_counter() - started) * 1000
        latencies.setdefault(f"{kind}_cold" if cold else kind, []).append(elapsed)
    recalls = []
    for _, text, vector in searches:
        exact = ids[np.argsort(-(matrix @ vector))[:10]]
        got = knn_top10(license_id, text, vector)
        recalls.append(len(got & set(exact.tolist())) / min(10, len(exact)))
    return {
        "scope_rows": int(len(ids)),
        **{f"{kind}_p50_ms": round(statistics.median(v), 2) for kind, v in latencies.items()},
        **{
            f"{kind}_p95_ms": round(sorted(v)[int(len(v) * 0.95) - 1], 2)
            for kind, v in latencies.items()
        },
        "knn_recall@10": round(statistics.fmean(recalls), 3),
        "knn_recall@10_min": round(min(recalls), 2),
    }


def knn_top10(license_id: uuid.UUID | None, text: str, vector: np.ndarray) -> set[int]:
    """The chunk ids the statement's kNN puts first: the vector ranking with the sentence
    mix off (it reorders the candidates by their sentences, which the recall of the graph
    walk against an exact search of the chunks' vectors must not count)."""
    options = SearchOptions(strategy="vector", top_k=10, min_score=-1.0).resolved(MODEL)
    rows = hybrid_rows(
        license_id=license_id,
        query=text,
        vector=vector.tolist(),
        model=MODEL,
        options=options,
        tuning=SearchTuning.from_settings(sentence_vectors=False),
    )
    return {r["chunk_id"] for r in rows}


def _query(world: World, q: int) -> tuple[str, str, np.ndarray]:
    """Query q: two topic words of a cluster (typical), or the most common word."""
    centre = int(rng.integers(0, CENTRES))
    vector = _vectors(world, np.array([centre]))[0]
    words = list(rng.choice(world.topic_words[centre], size=2))
    if q % 2 == 0:
        return "typical", " ".join(words), vector
    return "common_word", world.vocabulary[0], vector


_SWEEP = np.ones(16 * 1024 * 1024, dtype=np.float32)  # 64 MB, twice this machine's L3


def _sweep_cpu_caches() -> None:
    _SWEEP.sum()


def _tiny_license(licenses: int) -> uuid.UUID:
    """The 20-chunk license: inserted last (``bench-<licenses>``). Looked up, because license
    ids are random UUIDs and a run that reuses the data has drawn new ones."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM licenses_license WHERE machine_id = %s", [f"bench-{licenses}"]
        )
        return cursor.fetchone()[0]


PREWARM_ORDER = (  # last loaded, last evicted: the indexes every query walks come last
    "knowledge_sentenceembedding",
    "knowledge_document",
    "knowledge_chunk",
    "knowledge_embedding",
    "embedding_scope_vectors",  # exact comparisons read the vectors from it
    "knowledge_chunk_pkey",
    "knowledge_sentenceembedding(embedding_id)",  # the foreign key's index, named by Django
    KEYWORD_INDEX,
)


def sentence_rows() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM knowledge_sentenceembedding")
        return cursor.fetchone()[0]


def ensure_sentence_vectors(progress) -> int:  # noqa: ANN001
    """The benchmark's sentence rows, added once (a database filled before they existed, or
    filled by a run with SEARCH_SENTENCE_VECTORS=0). Returns how many there are."""
    return sentence_rows() or add_sentence_vectors(progress)


AUTOPREWARM_WAIT_SECONDS = 900


def wait_for_autoprewarm() -> None:
    """Wait until the server's autoprewarm worker has reloaded what was in shared buffers
    before its restart. It loads the databases one after the other, whichever benchmark
    ran last included (up to shared_buffers of another size's pages), and while it reads
    it competes with the measured searches for the disk and the two cores: the first
    scope measured after a start ran 2-3x slower for its first ~10 s of queries."""
    deadline = time.monotonic() + AUTOPREWARM_WAIT_SECONDS
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autoprewarm worker'"
            )
            if not cursor.fetchone()[0]:
                return
        time.sleep(1)


def prewarm() -> None:
    """Load the search's relations into shared buffers, as on a server that has been answering
    for a while (or restarted with autoprewarm, which the embedded server loads): otherwise the
    first touch of each page, from the OS cache or the disk, is what gets measured. At 1M
    chunks they take 10 GB, nearly all of the shared buffers (or twice them, when a smaller
    size is set), so the order decides what stays."""
    wait_for_autoprewarm()
    with connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        for relation in (*PREWARM_ORDER, index_name(MODEL), global_index_name(MODEL)):
            if relation.endswith(")"):
                cursor.execute(
                    "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = %s::regclass"
                    " AND NOT indisprimary",
                    [relation.split("(")[0]],
                )
                relation = cursor.fetchone()[0]
            cursor.execute("SELECT pg_prewarm(%s::regclass)", [relation])


def run(  # noqa: ANN001
    chunks: int, licenses: int, progress, refill: bool, shape: str = "e5", layout: str = "documents"
) -> dict:
    from django.conf import settings

    # Measure as production runs: with DEBUG on, Django records every statement it executes.
    settings.DEBUG = False
    global rng
    rng = np.random.default_rng(7)
    world = make_world(licenses, shape)
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM knowledge_embedding")
        present = cursor.fetchone()[0]
    started = time.perf_counter()
    if refill or present != chunks:
        fill(world, chunks, progress, layout)
    fill_seconds = round(time.perf_counter() - started, 1)
    if settings.SEARCH_SENTENCE_VECTORS:
        sentences = ensure_sentence_vectors(progress)
    else:
        sentences = sentence_rows()
    with connection.cursor() as cursor:  # which license is median-sized, which the biggest
        cursor.execute(
            "SELECT license_id, count(*) FROM knowledge_chunk WHERE license_id IS NOT NULL GROUP BY 1 ORDER BY 2 DESC"
        )
        sizes = cursor.fetchall()
    scopes = {
        "big_license": sizes[0][0],
        "median_license": sizes[len(sizes) // 2][0],
        "tiny_license": _tiny_license(licenses),
        "global_only": None,
    }
    # Exact ground truth is read first: reading every vector of a scope goes through shared
    # buffers and, at 1M chunks, would evict the pages the timed queries need.
    truth = {name: scope_vectors(license_id) for name, license_id in scopes.items()}
    prewarm()
    with transaction.atomic():
        for name, license_id in scopes.items():  # warm the CPU caches and the plan
            measure(world, license_id, truth[name], queries=20)
        results = {
            name: measure(world, license_id, truth[name]) for name, license_id in scopes.items()
        }
    with connection.cursor() as cursor:  # the figures depend on it (BENCHMARKS.md, stop 18)
        cursor.execute("SHOW shared_buffers")
        shared_buffers = cursor.fetchone()[0]
    return {
        "chunks": chunks,
        "licenses": licenses,
        "shape": shape,
        "layout": layout,
        "shared_buffers": shared_buffers,
        "fill_seconds": fill_seconds,
        "sentence_vectors": sentences,
        "sentence_weight": SearchTuning.from_settings().effective_sentence_weight,
        "scopes": results,
    }
