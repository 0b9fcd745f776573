"""Vertex AI Vector Search as the vector backend, over its REST API.

Three calls (Google's REST reference, ``aiplatform.googleapis.com/v1``):

- ``indexes.upsertDatapoints`` / ``indexes.removeDatapoints`` on the regional API: streaming
  updates, idempotent by datapoint id (the embedding's id). Only the outbox's drain calls
  them (knowledge/vector_sync.py), with its retries.
- ``indexEndpoints.findNeighbors`` on the index endpoint's public domain: the search's kNN.

Isolation is enforced in the engine itself and again here. Every datapoint carries two
token restricts: ``scope`` (``global`` or ``license:<uuid>``) and ``model`` (the embedding
model, so a re-embedding's two models share an index of one dimension without mixing);
every query sends an allow list of exactly the caller's scopes and the active model. The
neighbours then go back through PostgreSQL (nearest.py), which keeps only the embeddings
of that model and scope and measures each distance from the stored vector.

The index is expected to use ``DOT_PRODUCT_DISTANCE`` over ``UNIT_L2_NORM`` vectors (cosine,
like pgvector's ``<=>``); its own distances are not used. When Vertex cannot answer within
``VERTEX_QUERY_TIMEOUT_SECONDS``, the search falls back to pgvector over the same table, and
says so in the log and the metrics: a search slower than usual beats an error, and nothing
in scope is lost. After ``BREAKER_FAILURES`` failures in a row, a circuit breaker (pybreaker)
sends searches straight to pgvector for ``BREAKER_RESET_SECONDS`` before trying Vertex again,
so an outage does not cost every search its timeout.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any
from uuid import UUID

import httpx
import pybreaker
from django.conf import settings

from knowledge.search import vector_index
from knowledge.search.nearest import (
    Datapoint,
    NearestQuery,
    PgvectorBackend,
    VectorBackendError,
    scope_tokens,
)
from knowledge.search.sparse import query_sparse
from knowledge.search.tuning import SearchTuning
from observability.metrics import VECTOR_BACKEND_FALLBACKS

logger = logging.getLogger(__name__)

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
# Statuses worth trying again (Google's retry guidance for its APIs): quota, and the
# server's own trouble. Anything else is the request's fault and will fail again.
TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504})

BREAKER_FAILURES = 3
BREAKER_RESET_SECONDS = 30
# Per process: each web worker learns of an outage from its own searches.
QUERY_BREAKER = pybreaker.CircuitBreaker(
    fail_max=BREAKER_FAILURES, reset_timeout=BREAKER_RESET_SECONDS, name="vertex-queries"
)

# The neighbours Vertex found, re-checked: only embeddings of the model, in the caller's
# scope, survive; their distance is measured from the stored vector, as pgvector's is.
_RECHECKED = """
    SELECT e.id AS embedding_id, e.chunk_id, {distance} AS distance
      FROM knowledge_embedding e
     WHERE e.id = ANY(%(neighbor_ids)s::bigint[])
       AND {model_predicate}
       AND (e.license_id IS NULL OR e.license_id = %(license)s)
     ORDER BY distance
     LIMIT %(candidates)s"""


class VertexError(VectorBackendError):
    """Vertex did not do what was asked."""


@dataclass(frozen=True)
class VertexConfig:
    project: str
    location: str
    index: str
    index_endpoint: str
    deployed_index_id: str
    endpoint_domain: str
    api_base_url: str
    credentials_file: str
    timeout: float
    query_timeout: float
    batch_size: int
    extra_neighbors: int
    hybrid_alpha: float | None  # RRF's weight of the dense list; None: dense queries

    @classmethod
    def from_settings(cls) -> VertexConfig:
        return cls(
            project=settings.VERTEX_PROJECT,
            location=settings.VERTEX_LOCATION,
            index=settings.VERTEX_INDEX,
            index_endpoint=settings.VERTEX_INDEX_ENDPOINT,
            deployed_index_id=settings.VERTEX_DEPLOYED_INDEX_ID,
            endpoint_domain=settings.VERTEX_ENDPOINT_DOMAIN,
            api_base_url=settings.VERTEX_API_BASE_URL,
            credentials_file=settings.VERTEX_CREDENTIALS_FILE,
            timeout=settings.VERTEX_TIMEOUT_SECONDS,
            query_timeout=settings.VERTEX_QUERY_TIMEOUT_SECONDS,
            batch_size=settings.VERTEX_BATCH_SIZE,
            extra_neighbors=settings.VERTEX_EXTRA_NEIGHBORS,
            hybrid_alpha=(
                float(settings.VERTEX_HYBRID_ALPHA) if settings.VERTEX_HYBRID_ALPHA else None
            ),
        )

    @property
    def location_path(self) -> str:
        return f"v1/projects/{self.project}/locations/{self.location}"

    @property
    def index_url(self) -> str:
        return f"{self.api_base_url}/{self.location_path}/indexes/{self.index}"

    @property
    def find_neighbors_url(self) -> str:
        domain = self.endpoint_domain.rstrip("/")
        if not domain.startswith(("https://", "http://")):  # http only for a local fake
            domain = "https://" + domain
        return f"{domain}/{self.location_path}/indexEndpoints/{self.index_endpoint}:findNeighbors"


class VertexClient:
    """The three REST calls, authorised with the service account's OAuth tokens."""

    def __init__(self, config: VertexConfig) -> None:
        self.config = config
        self._http = httpx.Client(timeout=config.timeout)
        self._credentials: Any = None
        self._lock = threading.Lock()  # google-auth credentials are not thread-safe
        self._refreshing = False  # a background refresh ahead of expiry is under way

    def upsert(self, datapoints: Sequence[Datapoint]) -> None:
        body = {"datapoints": [_datapoint_json(d) for d in datapoints]}
        self._post(f"{self.config.index_url}:upsertDatapoints", body)

    def remove(self, ids: Sequence[int]) -> None:
        self._post(
            f"{self.config.index_url}:removeDatapoints", {"datapointIds": [str(i) for i in ids]}
        )

    def find_neighbors(
        self,
        vector: list[float],
        *,
        scopes: list[str],
        model: str,
        count: int,
        sparse: dict[int, float] | None = None,
    ) -> list[int]:
        """Ids of the ``count`` nearest datapoints the restricts allow, nearest first; with
        ``sparse`` (hybrid), Vertex's RRF of the dense and sparse lists at the configured
        alpha."""
        datapoint: dict[str, Any] = {
            "datapointId": "query",
            "featureVector": vector,
            "restricts": [
                {"namespace": "scope", "allowList": scopes},
                {"namespace": "model", "allowList": [model]},
            ],
        }
        query: dict[str, Any] = {"datapoint": datapoint, "neighborCount": count}
        # RRF is for a query with both vectors (Google's FindNeighborsRequest.Query): a
        # question whose words stem to nothing is asked as a dense query.
        if sparse and self.config.hybrid_alpha is not None:
            datapoint["sparseEmbedding"] = _sparse_json(sparse)
            query["rrf"] = {"alpha": self.config.hybrid_alpha}
        body = {"deployedIndexId": self.config.deployed_index_id, "queries": [query]}
        answer = self._send(
            "POST", self.config.find_neighbors_url, body, timeout=self.config.query_timeout
        )
        try:
            found = (answer.get("nearestNeighbors") or [{}])[0].get("neighbors") or []
            return [int(n["datapoint"]["datapointId"]) for n in found]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise VertexError(f"findNeighbors answered {answer!r:.200}", transient=False) from exc

    def index_stats(self) -> dict[str, Any]:
        return self._send("GET", self.config.index_url, None)

    def _post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._send("POST", url, body)

    def _send(
        self, method: str, url: str, body: dict[str, Any] | None, timeout: float | None = None
    ) -> dict[str, Any]:
        budget = timeout or self.config.timeout
        headers = {"Content-Type": "application/json", **self._authorization(budget)}
        content = json.dumps(body) if body is not None else None
        try:
            response = self._http.request(
                method,
                url,
                content=content,
                headers=headers,
                timeout=timeout or self.config.timeout,
            )
        except httpx.HTTPError as exc:  # timeouts, refused connections, broken streams
            raise VertexError(f"{url}: {type(exc).__name__}: {exc}", transient=True) from exc
        if response.status_code >= 400:
            raise VertexError(
                f"{url}: HTTP {response.status_code}: {_error_message(response)}",
                transient=response.status_code in TRANSIENT_STATUSES,
            )
        try:
            return response.json() if response.content else {}
        except ValueError as exc:
            raise VertexError(f"{url}: not JSON: {response.text[:200]}", transient=True) from exc

    def _authorization(self, budget: float) -> dict[str, str]:
        """The bearer header. A token is fetched before the call only when there is none
        valid, within ``budget`` seconds (a search's is 1 s: a stalled token endpoint must
        not hold a search for google-auth's 120 s, nor the other searches waiting for the
        lock); a token that expires soon is refreshed in the background while it still
        serves."""
        if not self._lock.acquire(timeout=budget):
            raise VertexError(
                "Google credentials: another request is fetching a token", transient=True
            )
        try:
            credentials = self._credentials or self._load_credentials()
            if credentials.token and not credentials.expired:
                if _expires_within(credentials, REFRESH_AHEAD_SECONDS):
                    self._refresh_in_background()
            else:
                self._refresh(credentials, budget)
            headers: dict[str, str] = {}
            credentials.apply(headers)
            return headers
        finally:
            self._lock.release()

    def _load_credentials(self) -> Any:  # noqa: ANN401 - google-auth credentials
        try:
            self._credentials = _credentials(self.config.credentials_file)
        except (OSError, ValueError) as exc:
            raise VertexError(f"Google credentials: {exc}", transient=True) from exc
        return self._credentials

    def _refresh(self, credentials: Any, budget: float) -> None:  # noqa: ANN401
        # Google's auth libraries load only in a deployment that uses Vertex AI.
        from google.auth.exceptions import GoogleAuthError

        try:
            credentials.refresh(_bounded_request(budget))
        except (GoogleAuthError, OSError, ValueError) as exc:
            # A token endpoint down is transient; a broken key file is not, but the
            # outbox's retries cost nothing and the log says which.
            raise VertexError(f"Google credentials: {exc}", transient=True) from exc

    def _refresh_in_background(self) -> None:
        """Called holding the lock: at most one refresh runs; the old token serves meanwhile."""
        if self._refreshing:
            return
        self._refreshing = True

        def refresh() -> None:
            fresh = _credentials(self.config.credentials_file)
            try:
                fresh.refresh(_bounded_request(self.config.timeout))
            except Exception as exc:  # noqa: BLE001 - any failure: the next call tries again
                logger.warning("Vertex token refresh ahead of expiry failed: %s", exc)
            else:
                with self._lock:
                    self._credentials = fresh
            finally:
                self._refreshing = False

        threading.Thread(target=refresh, name="vertex-token", daemon=True).start()


REFRESH_AHEAD_SECONDS = 300  # a token this close to expiry is replaced in the background


def _expires_within(credentials: Any, seconds: float) -> bool:  # noqa: ANN401
    expiry = getattr(credentials, "expiry", None)
    if expiry is None:
        return False
    now = datetime.now(UTC).replace(tzinfo=None)  # google-auth's expiry is naive UTC
    return (expiry - now).total_seconds() < seconds


@cache
def _bounded_request_class() -> type:
    # google-auth is imported on first use, as everywhere here: only a Vertex deployment
    # loads it.
    from google.auth.transport.requests import Request

    class BoundedRequest(Request):
        """google-auth's transport, every call within ``timeout`` seconds (its token
        refresh asks with its own default of 120 s)."""

        def __init__(self, timeout: float) -> None:
            super().__init__()
            self.bound = timeout

        def __call__(
            self,
            url: str,
            method: str = "GET",
            body: Any = None,  # noqa: ANN401
            headers: Any = None,
            timeout: Any = None,
            **kwargs: Any,
        ) -> Any:  # noqa: ANN401
            return super().__call__(url, method, body, headers, timeout=self.bound, **kwargs)

    return BoundedRequest


def _bounded_request(timeout: float) -> Any:  # noqa: ANN401 - a google-auth Request
    return _bounded_request_class()(timeout)


def _credentials(credentials_file: str) -> Any:
    if credentials_file:
        # Google's auth libraries load only in a deployment that uses Vertex AI.
        from google.oauth2 import service_account

        return service_account.Credentials.from_service_account_file(
            credentials_file, scopes=[CLOUD_PLATFORM_SCOPE]
        )
    # Google's auth libraries load only in a deployment that uses Vertex AI.
    import google.auth

    credentials, _ = google.auth.default(scopes=[CLOUD_PLATFORM_SCOPE])
    return credentials


def _datapoint_json(datapoint: Datapoint) -> dict[str, Any]:
    body: dict[str, Any] = {
        "datapointId": str(datapoint.id),
        "featureVector": datapoint.vector,
        "restricts": [
            {"namespace": "scope", "allowList": [datapoint.scope]},
            {"namespace": "model", "allowList": [datapoint.model]},
        ],
    }
    if datapoint.sparse:
        body["sparseEmbedding"] = _sparse_json(datapoint.sparse)
    return body


def _sparse_json(sparse: dict[int, float]) -> dict[str, list[Any]]:
    """Vertex's SparseEmbedding: int64 dimensions travel as JSON strings."""
    dimensions = sorted(sparse)
    return {"values": [sparse[d] for d in dimensions], "dimensions": [str(d) for d in dimensions]}


def _error_message(response: httpx.Response) -> str:
    try:
        return str(response.json()["error"]["message"])[:500]
    except (ValueError, KeyError, TypeError):
        return response.text[:500] or response.reason_phrase


@cache
def vertex_client(config: VertexConfig) -> VertexClient:
    """One client (connection pool, token) per process and configuration."""
    return VertexClient(config)


class VertexBackend:
    name = "vertex"

    def __init__(self, client: VertexClient) -> None:
        self.client = client

    @classmethod
    def from_settings(cls) -> VertexBackend:
        return cls(vertex_client(VertexConfig.from_settings()))

    def nearest(
        self,
        *,
        model: str,
        query: str,
        vector: list[float],
        license_id: UUID | None,
        candidates: int,
        tuning: SearchTuning,
    ) -> NearestQuery:
        count = candidates + self.client.config.extra_neighbors
        words = query_sparse(query) if self.client.config.hybrid_alpha is not None else None
        try:
            ids = QUERY_BREAKER.call(
                self.client.find_neighbors,
                vector,
                scopes=scope_tokens(license_id),
                model=model,
                count=count,
                sparse=words,
            )
        except (VertexError, pybreaker.CircuitBreakerError) as exc:
            logger.warning("Vertex AI Vector Search failed, searching with pgvector: %s", exc)
            VECTOR_BACKEND_FALLBACKS.labels(backend=self.name).inc()
            return PgvectorBackend().nearest(
                model=model,
                query=query,
                vector=vector,
                license_id=license_id,
                candidates=candidates,
                tuning=tuning,
            )
        sql = _RECHECKED.format(
            distance=vector_index.exact_distance("%(vector)s", alias="e."),
            model_predicate=vector_index.model_predicate(model, alias="e."),
        )
        return NearestQuery(
            "Vertex AI Vector Search's neighbours, re-checked", sql, params={"neighbor_ids": ids}
        )

    def upsert(self, datapoints: Sequence[Datapoint]) -> None:
        size = self.client.config.batch_size
        for start in range(0, len(datapoints), size):
            self.client.upsert(datapoints[start : start + size])

    def remove(self, ids: Sequence[int]) -> None:
        size = self.client.config.batch_size
        for start in range(0, len(ids), size):
            self.client.remove(ids[start : start + size])

    def health(self) -> str:
        stats = self.client.index_stats()
        count = (stats.get("indexStats") or {}).get("vectorsCount", "?")
        dimensions = ((stats.get("metadata") or {}).get("config") or {}).get("dimensions", "?")
        return f"Vertex AI index {self.client.config.index}: {count} vectors of {dimensions}"
