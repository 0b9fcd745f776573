"""A real web site on the loopback address for the web-source tests: Python's HTTP server
serving pages from a dict the test edits between checks, with ETags (a 304 for an
unchanged page), Last-Modified, robots.txt, a sitemap, redirects, a 404, a slow page and a
huge page, and one trickled a byte at a time. It records every request, so a test can say what a check cost."""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Page:
    body: bytes
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    location: str = ""
    delay: float = 0.0
    trickle: float = 0.0  # seconds between the bytes of a long header

    @property
    def etag(self) -> str:
        return '"' + hashlib.sha256(self.body).hexdigest()[:16] + '"'


@dataclass
class Website:
    host: str = "127.0.0.1"
    port: int = 0
    pages: dict[str, Page] = field(default_factory=dict)
    requests: list[tuple[str, str, int]] = field(
        default_factory=list
    )  # (path, If-None-Match, status)
    headers_seen: list[dict[str, str]] = field(default_factory=list)

    def url(self, path: str = "/") -> str:
        return f"http://{self.host}:{self.port}{path}"

    def html(self, path: str, title: str, *paragraphs: str, links: tuple[str, ...] = ()) -> None:
        anchors = "".join(f'<li><a href="{link}">{link}</a></li>' for link in links)
        body = "".join(f"<p>{p}</p>" for p in paragraphs)
        self.pages[path] = Page(
            f"<!DOCTYPE html><html><head><title>{title}</title></head><body>"
            f"<nav><ul>{anchors}</ul></nav><main><h1>{title}</h1>{body}</main>"
            f"<footer>Servido a las {time.time()}</footer></body></html>".encode()
        )

    def sitemap(self, path: str = "/sitemap.xml") -> None:
        locs = "".join(
            f"<url><loc>{self.url(p)}</loc></url>"
            for p, page in sorted(self.pages.items())
            if page.content_type.startswith("text/html") and page.status == 200
        )
        self.pages[path] = Page(
            f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns='
            f'"http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'.encode(),
            content_type="application/xml",
        )

    def paths_requested(self) -> list[str]:
        return [path for path, _, _ in self.requests]

    def start(self) -> ThreadingHTTPServer:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                page = site.pages.get(self.path.split("?")[0])
                status = page.status if page else 404
                conditional = self.headers.get("If-None-Match", "")
                if page and page.status == 200 and conditional == page.etag:
                    status = 304
                site.requests.append((self.path, conditional, status))
                site.headers_seen.append(dict(self.headers.items()))
                if page and page.delay:
                    time.sleep(page.delay)
                if page and page.trickle:
                    self._trickle(page)
                    return
                self.send_response(status)
                if page and page.location:
                    self.send_header("Location", page.location)
                if page and status == 200:
                    self.send_header("Content-Type", page.content_type)
                    self.send_header("ETag", page.etag)
                    self.send_header("Set-Cookie", "session=tracking; Path=/")
                body = page.body if page and status == 200 else b""
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                # The fetcher stops reading a page over its size limit.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(body)

            def _trickle(self, page: Page) -> None:
                """A header sent a byte at a time for 300 bytes, then the page: a server
                that is never silent for long, but never done."""
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                    for _ in range(300):
                        self.wfile.write(b"a")
                        self.wfile.flush()
                        time.sleep(page.trickle)
                    self.wfile.write(
                        f"\r\nContent-Type: {page.content_type}\r\n"
                        f"Content-Length: {len(page.body)}\r\n\r\n".encode()
                        + page.body
                    )
                self.close_connection = True

            def log_message(self, *args: object) -> None:
                """Quiet: a test reads ``requests`` and ``headers_seen``, not a log."""

        server = ThreadingHTTPServer((self.host, self.port), Handler)
        self.port = server.server_address[1]
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return server
