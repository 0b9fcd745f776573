"""Fakes for the boundaries we do not own: the embedder (unit tests) and Gemini's REST API."""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


def hashed_vector(text: str, dimensions: int, *, normalise: bool = True) -> list[float]:
    """Bag of hashed words: texts sharing words get similar vectors, deterministically."""
    vector = np.zeros(dimensions)
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        vector[int.from_bytes(digest[:4], "little") % dimensions] += 1.0
    vector[0] += 0.01  # never all zeros
    if normalise:
        vector /= np.linalg.norm(vector)
    return vector.tolist()


class FakeEmbedder:
    model = "fake-hash@384"
    dimensions = 384
    max_input_tokens = 500

    def __init__(self) -> None:
        self.calls = 0
        self.queries: list[str] = []
        self.passages: list[str] = []  # every text embedded, in order

    def embed_passages(self, texts):
        self.calls += 1
        self.passages.extend(texts)
        return [hashed_vector(text, self.dimensions) for text in texts]

    def embed_query(self, text):
        self.queries.append(text)
        return hashed_vector(text, self.dimensions)

    def count_tokens(self, text):
        return len(text.split())


class _LocalServer:
    """Start/stop and address of a fake HTTP server (subclasses set self.server)."""

    server: ThreadingHTTPServer
    path = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}{self.path}"

    def __enter__(self):
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


class FakeGemini(_LocalServer):
    """A local HTTP server speaking the parts of the Gemini REST API the product uses.

    ``fail_next(status, times)`` scripts errors (429 quota, 500, ...); ``requests`` records
    what arrived. Vectors come back un-normalised, as truncated Matryoshka vectors do."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.failures: deque[int] = deque()
        self.tool_calls: deque[dict] = deque()  # {"name", "args"}: asked for before answering
        self.generate_text = "Respuesta de prueba."
        # When set, the only keys accepted; any other is refused as Google refuses it.
        self.valid_keys: set[str] | None = None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                key = self.headers.get("x-goog-api-key")
                fake.requests.append({"path": self.path, "body": body, "key": key})
                if fake.valid_keys is not None and key not in fake.valid_keys:
                    return self._send(
                        400,
                        {
                            "error": {
                                "code": 400,
                                "message": "API key not valid. Please pass a valid API key.",
                                "status": "INVALID_ARGUMENT",
                            }
                        },
                    )
                if fake.failures:
                    return self._send(
                        fake.failures.popleft(),
                        {
                            "error": {
                                "code": 0,
                                "message": "scripted failure",
                                "status": "UNAVAILABLE",
                            }
                        },
                    )
                if ":batchEmbedContents" in self.path:
                    return self._send(
                        200, {"embeddings": [fake.embed(r) for r in body["requests"]]}
                    )
                if ":embedContent" in self.path:
                    return self._send(200, {"embedding": fake.embed(body)})
                if ":streamGenerateContent" in self.path:
                    if fake.tool_calls and body.get("tools"):
                        call = fake.tool_calls.popleft()
                        part = {"functionCall": {"name": call["name"], "args": call["args"]}}
                        return self._stream(
                            [{"candidates": [{"content": {"role": "model", "parts": [part]}}]}]
                        )
                    return self._stream(
                        [fake.generation(piece, fake.finish) for piece in fake.stream_pieces]
                    )
                if ":generateContent" in self.path:
                    return self._send(200, fake.generation(fake.generate_text))
                return self._send(404, {"error": {"code": 404, "message": f"no route {self.path}"}})

            def _send(self, status, payload):
                if status >= 400 and "error" in payload:
                    payload["error"]["code"] = status
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, events):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for event in events:
                    self.wfile.write(f"data: {json.dumps(event)}\r\n\r\n".encode())
                    self.wfile.flush()

            def log_message(self, *args):
                pass

        self.stream_pieces = ["Hola, ", "la piscina abre ", "a las ocho [1]."]
        self.finish = "STOP"
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    @staticmethod
    def embed(request: dict) -> dict:
        text = " ".join(part.get("text", "") for part in request["content"]["parts"])
        dims = request.get("outputDimensionality") or 3072
        return {"values": [v * 3.0 for v in hashed_vector(text, dims)]}

    @staticmethod
    def generation(text: str, finish: str = "STOP") -> dict:
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
        }

    def fail_next(self, status: int, times: int = 1) -> None:
        self.failures.extend([status] * times)


class FakeOpenAI(_LocalServer):
    """A local server speaking the OpenAI chat-completions API with streaming (as Ollama does)."""

    path = "/v1"

    def __init__(self, pieces: list[str] | None = None, status: int = 200) -> None:
        self.requests: list[dict] = []
        fake = self
        fake.pieces = pieces or ["Olá, ", "a piscina abre ", "às oito [1]."]
        fake.status = status
        fake.tool_calls: deque[dict] = deque()  # {"name", "args"}: asked for before answering
        fake.api_key: str | None = None  # when set, "Authorization: Bearer <it>" is required

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                fake.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                refused_key = (
                    fake.api_key is not None
                    and self.headers.get("Authorization") != f"Bearer {fake.api_key}"
                )
                if fake.status != 200 or refused_key:
                    message = "Incorrect API key provided" if refused_key else "model not loaded"
                    data = json.dumps({"error": {"message": message}}).encode()
                    self.send_response(401 if refused_key else fake.status)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                if fake.tool_calls and body.get("tools"):
                    call = fake.tool_calls.popleft()
                    arguments = json.dumps(call["args"])
                    halves = [arguments[: len(arguments) // 2], arguments[len(arguments) // 2 :]]
                    for n, half in enumerate(halves):  # as servers send them: in pieces
                        function = {"arguments": half} | ({"name": call["name"]} if n == 0 else {})
                        piece = {"index": 0, "function": function}
                        if n == 0:
                            piece |= {"id": "call_1", "type": "function"}
                        chunk = {"choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.write(b"data: [DONE]\n\n")
                    return
                for piece in fake.pieces:
                    chunk = {"choices": [{"index": 0, "delta": {"content": piece}}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)


class SpyLLM:
    name = "spy"

    def __init__(self, answer="La piscina abre a las ocho [1]."):
        self.prompts = []
        self.answer = answer

    def stream(self, prompt):
        self.prompts.append(prompt)
        yield from re.findall(r"\S+\s*", self.answer)  # deltas, spaces kept
