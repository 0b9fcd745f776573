"""A local fake of the Vertex AI Vector Search REST API (there is no official emulator).

What it speaks, and the semantics it follows (Google's REST reference for
``aiplatform.googleapis.com/v1``; where the reference is silent, the choice is named):

- ``POST /token``: Google's OAuth 2.0 token endpoint for service accounts (RFC 7523 JWT
  bearer grant). The assertion's RS256 signature is checked against the service account's
  public key, and its audience is Google's token endpoint (what google-auth signs, whatever
  the key file's ``token_uri``); the answer is an access token valid for an
  hour. Every other call needs ``Authorization: Bearer <that token>``, or gets 401
  ``UNAUTHENTICATED``.
- ``GET /v1/projects/{p}/locations/{l}/indexes/{i}``: the Index resource, with
  ``metadata.config.dimensions`` and ``indexStats.vectorsCount`` (a string: int64 in JSON).
- ``POST …/indexes/{i}:upsertDatapoints`` ``{"datapoints": [IndexDatapoint]}``: inserts or
  replaces each datapoint by ``datapointId``; a whole request is refused (400
  ``INVALID_ARGUMENT``, nothing stored) when a vector's length is not the index's dimensions
  or an id is empty. Answer ``{}``.
- ``POST …/indexes/{i}:removeDatapoints`` ``{"datapointIds": [...]}``: removes them; ids
  not in the index are ignored (the reference names no error for them). Answer ``{}``.
- ``POST …/indexEndpoints/{e}:findNeighbors`` ``{"deployedIndexId", "queries": [{"datapoint",
  "neighborCount"}], "returnFullDatapoint"}``: a wrong ``deployedIndexId`` is 400. For each
  query, the datapoints its restricts allow, by ``DOT_PRODUCT_DISTANCE`` (the index's
  measure for unit vectors: larger is nearer), ``neighborCount`` of them (10 when absent):
  ``{"nearestNeighbors": [{"id", "neighbors": [{"datapoint": {"datapointId"}, "distance"}]}]}``.
  Token restricts: each namespace the query names must match (AND across namespaces); within
  one, a datapoint matches when one of its tokens is in the query's ``allowList`` (an empty
  allow list allows any) and none in its ``denyList``; a datapoint without that namespace
  does not match (the reference leaves this open; the strict reading). Numeric restricts
  (``valueInt``/``valueFloat``/``valueDouble`` with ``op`` LESS, LESS_EQUAL, EQUAL,
  GREATER_EQUAL, GREATER, NOT_EQUAL) likewise need the namespace on the datapoint.
- Hybrid: a datapoint's and a query's ``sparseEmbedding`` (``values`` and int64 ``dimensions``,
  strings in JSON); a neighbour's ``sparseDistance`` is the dot product of the two. A query
  with both and ``rrf: {alpha}`` is answered in the order of reciprocal rank fusion (k = 60)
  of the dense list (weight alpha) and the sparse one (1 − alpha); a datapoint no sparse
  dimension matches is on the dense list only.
- Errors are Google's JSON: ``{"error": {"code", "message", "status"}}``.
- Every request body is read as the real API reads it: parsed into the request message of
  Google's published definitions (``google-cloud-aiplatform``'s ``aiplatform_v1`` types, the
  same protos the service is generated from) — an unknown or misspelled field, or a value
  of the wrong type, is 400 ``INVALID_ARGUMENT`` "Invalid JSON payload received. …", as the
  real API answers — then handled in its canonical JSON form, so enums sent as numbers
  (``?$alt=json;enum-encoding=int``, what Google's own REST client sends) mean what their
  names mean. The query string is not part of the route.

Fault injection: ``fail_next(status, times, call=…)`` answers the next calls (of one kind,
``upsertDatapoints``/``removeDatapoints``/``findNeighbors``/``getIndex``/``token``, or
any) with an error;
``stall_next(seconds, times, call=…)`` holds them past the client's timeout;
``ignore_restricts`` answers queries as if no restrict were sent (a misconfigured engine).
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import numpy as np
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.cloud.aiplatform_v1 import types as vertex_types
from google.protobuf import json_format

GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"
STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_NUMERIC_OPS = {
    "LESS": lambda a, b: a < b,
    "LESS_EQUAL": lambda a, b: a <= b,
    "EQUAL": lambda a, b: a == b,
    "GREATER_EQUAL": lambda a, b: a >= b,
    "GREATER": lambda a, b: a > b,
    "NOT_EQUAL": lambda a, b: a != b,
}
_CALL = re.compile(r":(upsertDatapoints|removeDatapoints|findNeighbors)$")
# Each call's request message; the path's resource name is not part of the body.
_REQUESTS = {
    "upsertDatapoints": vertex_types.UpsertDatapointsRequest,
    "removeDatapoints": vertex_types.RemoveDatapointsRequest,
    "findNeighbors": vertex_types.FindNeighborsRequest,
}


def canonical_body(call: str, raw: bytes) -> dict:
    """``raw`` parsed as the call's request message and written back as canonical JSON;
    ValueError (with the API's wording) when the real API would refuse it."""
    message = _REQUESTS[call]()._pb
    try:
        json_format.Parse(raw or b"{}", message)
    except json_format.ParseError as exc:
        raise ValueError(f"Invalid JSON payload received. {exc}") from exc
    return json_format.MessageToDict(message)


class FakeVertex:
    """The index, its endpoint and Google's token endpoint, on one local port."""

    project = "portality-test"
    location = "us-central1"
    index = "1234567890"
    index_endpoint = "9876543210"
    deployed_index_id = "portality_chunks"

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self.datapoints: dict[str, dict] = {}
        self.calls: list[tuple[str, dict]] = []  # (call, body) in order
        self.stored_at: dict[str, float] = {}  # datapoint id → when (time.time()) it arrived
        self.query_seconds: list[float] = []  # the fake's own time per findNeighbors
        self.ignore_restricts = False
        self._faults: deque[list] = deque()  # [call, kind, value, calls to let through first]
        self._tokens: set[str] = set()
        self._lock = threading.Lock()
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                fault = fake._fault("getIndex")
                if fault and fault[0] == "fail":
                    return self._error(int(fault[1]), "scripted failure")
                if not fake._authorised(self.headers.get("Authorization")):
                    return self._error(401, "Request had invalid authentication credentials.")
                if urlsplit(self.path).path.rstrip("/").endswith(f"/indexes/{fake.index}"):
                    return self._send(200, fake.index_resource())
                return self._error(404, f"no route {self.path}")

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                path = urlsplit(self.path).path
                call = "token" if path == "/token" else _call_name(path)
                fault = fake._fault(call)
                if fault and fault[0] == "stall":
                    time.sleep(fault[1])
                elif fault:
                    return self._error(int(fault[1]), "scripted failure")
                if call == "token":
                    return self._send(*fake.token(parse_qs(raw.decode())))
                if not fake._authorised(self.headers.get("Authorization")):
                    return self._error(401, "Request had invalid authentication credentials.")
                if call not in _REQUESTS:
                    return self._error(404, f"no route {path}")
                try:
                    body = canonical_body(call, raw)
                except ValueError as exc:
                    return self._error(400, str(exc))
                fake.calls.append((call, body))
                status, payload = fake.answer(call, body)
                if status >= 400:
                    return self._error(status, payload["message"])
                return self._send(status, payload)

            def _error(self, status, message):
                error = {"code": status, "message": message, "status": STATUS_NAMES.get(status)}
                return self._send(status, {"error": error})

            def _send(self, status, payload):
                data = json.dumps(payload).encode()
                # A client that gave up on a stalled call (its timeout) has closed the socket.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)

            def log_message(self, *args):
                """No access log on the test's stderr."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True

    # -- serving -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def __enter__(self) -> FakeVertex:
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def service_account_file(self, directory: Path) -> Path:
        """A service account's JSON key whose token endpoint is this fake."""
        pem = self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        path = directory / "vertex-service-account.json"
        path.write_text(
            json.dumps(
                {
                    "type": "service_account",
                    "project_id": self.project,
                    "private_key_id": "fake-key-1",
                    "private_key": pem,
                    "client_email": f"portality@{self.project}.iam.gserviceaccount.com",
                    "client_id": "1",
                    "token_uri": f"{self.url}/token",
                }
            )
        )
        return path

    # -- fault injection -----------------------------------------------------------------

    def fail_next(self, status: int, times: int = 1, *, call: str = "any", after: int = 0) -> None:
        """The next ``times`` calls (of that kind) fail, once ``after`` of them went through."""
        self._faults.extend([[call, "fail", status, after]] * times)

    def stall_next(self, seconds: float, times: int = 1, *, call: str = "any") -> None:
        self._faults.extend([[call, "stall", seconds, 0]] * times)

    def clear_faults(self) -> None:
        self._faults.clear()

    def _fault(self, call: str) -> tuple[str, float] | None:
        with self._lock:
            for fault in self._faults:
                if fault[0] not in (call, "any"):
                    continue
                if fault[3] > 0:
                    fault[3] -= 1
                    return None
                self._faults.remove(fault)
                return fault[1], fault[2]
        return None

    # -- the API's semantics ---------------------------------------------------------------

    def token(self, form: dict[str, list[str]]) -> tuple[int, dict]:
        from google.auth import jwt

        public = self._key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return 400, {"error": "unsupported_grant_type"}
        try:
            jwt.decode(form["assertion"][0], certs=public, audience=GOOGLE_TOKEN_AUDIENCE)
        except (KeyError, ValueError) as exc:
            return 400, {"error": "invalid_grant", "error_description": str(exc)}
        token = f"fake-token-{len(self._tokens) + 1}"
        self._tokens.add(token)
        return 200, {"access_token": token, "expires_in": 3600, "token_type": "Bearer"}

    def _authorised(self, header: str | None) -> bool:
        return bool(header) and header.removeprefix("Bearer ") in self._tokens

    def index_resource(self) -> dict:
        return {
            "name": f"projects/{self.project}/locations/{self.location}/indexes/{self.index}",
            "metadata": {"config": {"dimensions": self.dimensions}},
            "indexStats": {"vectorsCount": str(len(self.datapoints))},
            "indexUpdateMethod": "STREAM_UPDATE",
        }

    def answer(self, call: str, body: dict) -> tuple[int, dict]:
        if call == "upsertDatapoints":
            return self._upsert(body.get("datapoints") or [])
        if call == "removeDatapoints":
            with self._lock:
                for datapoint_id in body.get("datapointIds") or []:
                    self.datapoints.pop(str(datapoint_id), None)
            return 200, {}
        if call == "findNeighbors":
            if body.get("deployedIndexId") != self.deployed_index_id:
                return 400, {"message": f"deployedIndexId {body.get('deployedIndexId')!r} unknown"}
            started = time.perf_counter()
            found = [self._neighbors(q) for q in body.get("queries", [])]
            self.query_seconds.append(time.perf_counter() - started)
            return 200, {"nearestNeighbors": found}
        return 404, {"message": "no such method"}

    def _upsert(self, datapoints: list[dict]) -> tuple[int, dict]:
        for datapoint in datapoints:
            if not datapoint.get("datapointId"):
                return 400, {"message": "datapoint_id must not be empty"}
            if len(datapoint.get("featureVector") or []) != self.dimensions:
                return 400, {
                    "message": f"Incorrect dimensionality. Expected {self.dimensions}, got "
                    f"{len(datapoint.get('featureVector') or [])}."
                }
        with self._lock:
            for datapoint in datapoints:
                self.datapoints[str(datapoint["datapointId"])] = datapoint
                self.stored_at[str(datapoint["datapointId"])] = time.time()
        return 200, {}

    def _neighbors(self, query: dict) -> dict:
        wanted = query.get("datapoint") or {}
        vector = np.asarray(wanted.get("featureVector") or [], dtype=float)
        with self._lock:
            allowed = [d for d in self.datapoints.values() if self._allows(wanted, d)]
        dense = {d["datapointId"]: float(np.dot(vector, d["featureVector"])) for d in allowed}
        words = _sparse(wanted.get("sparseEmbedding"))
        sparse = {
            d["datapointId"]: score
            for d in allowed
            if (score := sum(w * _sparse(d.get("sparseEmbedding")).get(k, 0.0)
                             for k, w in words.items())) > 0
        }  # fmt: skip
        if words and "rrf" in query:
            order = _rrf(dense, sparse, float(query["rrf"].get("alpha", 0.5)))
        else:
            order = sorted(dense, key=dense.__getitem__, reverse=True)
        found = order[: int(query.get("neighborCount") or 10)]
        return {
            "id": wanted.get("datapointId", ""),
            "neighbors": [
                {
                    "datapoint": {"datapointId": i, "crowdingTag": {"crowdingAttribute": "0"}},
                    "distance": dense[i],
                    **({"sparseDistance": sparse[i]} if i in sparse else {}),
                }
                for i in found
            ],
        }

    def _allows(self, query: dict, datapoint: dict) -> bool:
        if self.ignore_restricts:
            return True
        tokens = {r["namespace"]: r for r in datapoint.get("restricts") or []}
        for restrict in query.get("restricts") or []:
            own = tokens.get(restrict["namespace"])
            if own is None:
                return False
            mine = set(own.get("allowList") or [])
            allow, deny = set(restrict.get("allowList") or []), set(restrict.get("denyList") or [])
            if (allow and not mine & allow) or mine & deny:
                return False
        numbers = {r["namespace"]: r for r in datapoint.get("numericRestricts") or []}
        for restrict in query.get("numericRestricts") or []:
            own = numbers.get(restrict["namespace"])
            if own is None or not _NUMERIC_OPS[restrict.get("op", "EQUAL")](
                _number(own), _number(restrict)
            ):
                return False
        return True


RRF_K = 60  # the reference names no constant; the usual one (Cormack et al.)


def _rrf(dense: dict[str, float], sparse: dict[str, float], alpha: float) -> list[str]:
    """Reciprocal rank fusion of the two lists, the dense one weighted ``alpha``."""
    fused: dict[str, float] = {}
    for weight, scores in ((alpha, dense), (1 - alpha, sparse)):
        ranked = sorted(scores, key=scores.__getitem__, reverse=True)
        for rank, datapoint_id in enumerate(ranked, 1):
            fused[datapoint_id] = fused.get(datapoint_id, 0.0) + weight / (RRF_K + rank)
    return sorted(fused, key=fused.__getitem__, reverse=True)


def _sparse(embedding: dict | None) -> dict[int, float]:
    if not embedding:
        return {}
    return dict(zip(map(int, embedding["dimensions"]), embedding["values"], strict=True))


def _number(restrict: dict) -> float:
    for key in ("valueInt", "valueFloat", "valueDouble"):
        if key in restrict:
            return float(restrict[key])
    raise ValueError(f"numeric restrict without a value: {restrict}")


def _call_name(path: str) -> str:
    match = _CALL.search(path)
    return match.group(1) if match else path
