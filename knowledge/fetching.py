"""Fetching web pages for knowledge sources, in a way that cannot be turned against the
server: http(s) only, no credentials or cookies sent, the host's addresses resolved once and
checked before connecting (on every redirect too), size, time and redirect limits (the time
for a whole request, a server trickling its headers included), the content type checked,
robots.txt obeyed (Protego, Scrapy's parser) with its crawl delay.

Connections go through httpcore with a network backend that resolves the host itself and
connects to the address it checked, so a name that resolves differently a second time (DNS
rebinding) cannot reach a refused address; TLS still checks the certificate of the name.
"""

from __future__ import annotations

import ipaddress
import math
import socket
import ssl
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import httpcore
from django.conf import settings
from django.utils.translation import gettext_noop
from protego import Protego

from web.exceptions import ApplicationError

USER_AGENT = "PortalityBrain/1.0 (knowledge source fetcher; +https://github.com/portality)"
MAX_REDIRECTS = 5
CONNECT_SECONDS = 10.0
READ_SECONDS = 20.0
TOTAL_SECONDS = 30.0
HTML_TYPES = ("text/html", "application/xhtml+xml")
# Documents a web source keeps beside its pages (a help site's PDFs and Office files), with
# the kind a text one is read as; a binary one's kind is told by its content.
DOCUMENT_TYPES = {
    "application/pdf": "",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": "",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "",
    "application/vnd.oasis.opendocument.text": "",
    "application/vnd.oasis.opendocument.spreadsheet": "",
    "application/vnd.oasis.opendocument.presentation": "",
    "application/vnd.ms-excel": "",
    "application/msword": "",  # read when LibreOffice is installed (extraction.convert)
    "application/vnd.ms-powerpoint": "",
    "application/rtf": "",
    "text/rtf": "",
    "application/epub+zip": "",
    "text/plain": "txt",
    "text/markdown": "md",
    "text/csv": "csv",
}
XML_TYPES = ("application/xml", "text/xml", "application/rss+xml")
# What a sitemap may be (sitemaps.org): XML, gzipped XML, or a text file of one URL a line.
SITEMAP_TYPES = (*XML_TYPES, "application/gzip", "application/x-gzip", "text/plain")


class FetchError(ApplicationError):
    """A page that could not be fetched, with the reason in a sentence."""


class NotReadable(FetchError):
    """An address that serves what is neither a page nor a document (an image, a video)."""


def address_refusal(host: str, port: int, addresses: Iterable[str], allowed: Iterable[str]) -> str:
    """Why connecting to ``host`` at these addresses is refused ("" = allowed).

    Only addresses on the public internet are allowed (Python's ``is_global``: not loopback,
    private, link-local — where cloud metadata answers —, shared, reserved, documentation
    or multicast ranges), unless ``host:port`` (or ``address:port``) is allowed by name."""
    allowed = {entry.strip().lower() for entry in allowed if entry.strip()}
    if f"{host.lower()}:{port}" in allowed:
        return ""
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
            ip = ip.ipv4_mapped
        if f"{ip}:{port}" in allowed:
            continue
        if not ip.is_global or ip.is_multicast:
            return str(ip)
    return ""


def resolve(host: str, port: int) -> list[str]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise FetchError(
            gettext_noop("The address %(host)s could not be found (DNS: %(detail)s)."),
            params={"host": host, "detail": str(exc)},
        ) from exc
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def checked_address(host: str, port: int) -> str:
    """Resolve once; refuse before any connection when an address is not public."""
    addresses = resolve(host, port)
    refused = address_refusal(host, port, addresses, settings.SOURCES_ALLOWED_HOSTS)
    if refused == host:  # an address written as one ("127.0.0.1 resolves to 127.0.0.1")
        raise FetchError(
            gettext_noop(
                "%(address)s is a private, loopback or reserved address: pages there are "
                "not fetched (an administrator may allow it with SOURCES_ALLOWED_HOSTS)."
            ),
            params={"address": refused},
        )
    if refused:
        raise FetchError(
            gettext_noop(
                "%(host)s resolves to %(address)s, a private, loopback or reserved address: "
                "pages there are not fetched (an administrator may allow it with "
                "SOURCES_ALLOWED_HOSTS)."
            ),
            params={"host": host, "address": refused},
        )
    return addresses[0]


class _CheckedBackend(httpcore.SyncBackend):
    """Connects only to the address it checked, and ends every connect, read and write by
    the request's ``deadline``: httpcore's timeouts are per read, so a server trickling its
    headers a byte a second would otherwise hold a worker until the task's time limit."""

    deadline = math.inf

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[object] | None = None,
    ) -> httpcore.NetworkStream:
        address = checked_address(host, port)
        stream = super().connect_tcp(
            address,
            port,
            self.time_left(timeout),
            local_address,
            socket_options,  # type: ignore[arg-type]
        )
        return _DeadlineStream(stream, self)

    def time_left(self, timeout: float | None) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise httpcore.ReadTimeout("the request's time is up")
        return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream, backend: _CheckedBackend) -> None:
        self.stream = stream
        self.backend = backend

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.stream.read(max_bytes, self.backend.time_left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.stream.write(buffer, self.backend.time_left(timeout))

    def close(self) -> None:
        self.stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        secured = self.stream.start_tls(
            ssl_context, server_hostname, self.backend.time_left(timeout)
        )
        return _DeadlineStream(secured, self.backend)

    def get_extra_info(self, info: str) -> object:
        return self.stream.get_extra_info(info)


def check_url(url: str) -> str:
    """The URL, normalised, if it may be fetched at all; refused with a sentence otherwise."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(
            gettext_noop("Only http:// and https:// addresses can be added (got %(url)s)."),
            params={"url": url[:200]},
        )
    if parts.username or parts.password:
        raise FetchError(
            gettext_noop("Addresses with a user name or password are not fetched; remove them.")
        )
    return parts._replace(fragment="").geturl()


@dataclass
class Fetched:
    url: str  # after redirects
    status: int
    content_type: str = ""
    body: bytes = b""
    etag: str = ""
    last_modified: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def gone(self) -> bool:
        return self.status in (404, 410)


class Fetcher:
    """One check's fetching: a connection pool, robots.txt per host, the crawl delay."""

    def __init__(self, *, min_delay: float | None = None) -> None:
        self.backend = _CheckedBackend()
        self.pool = httpcore.ConnectionPool(network_backend=self.backend, max_connections=4)
        self.min_delay = settings.SOURCES_MIN_DELAY_SECONDS if min_delay is None else min_delay
        self.robots: dict[str, Protego | None] = {}
        self.last_request: dict[str, float] = {}

    def close(self) -> None:
        self.pool.close()

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def allowed(self, url: str) -> bool:
        robots = self._robots(url)
        return robots is None or robots.can_fetch(url, USER_AGENT)

    def get(
        self, url: str, *, accept: tuple[str, ...], etag: str = "", last_modified: str = ""
    ) -> Fetched:
        """GET with redirects followed by hand (each hop checked like the first)."""
        headers: dict[bytes | str, bytes | str] = {
            "User-Agent": USER_AGENT,
            "Accept": ", ".join(accept) + ", */*;q=0.1",
        }
        if etag:
            headers["If-None-Match"] = etag
        if last_modified:
            headers["If-Modified-Since"] = last_modified
        current = check_url(url)
        for _hop in range(MAX_REDIRECTS + 1):
            self._wait_turn(current)
            fetched = self._request(current, headers, accept)
            location = fetched.headers.get("location", "")
            if fetched.status in (301, 302, 303, 307, 308) and location:
                current = check_url(urljoin(current, location))
                continue
            return fetched
        raise FetchError(
            gettext_noop("%(url)s redirects more than %(limit)s times."),
            params={"url": url[:200], "limit": MAX_REDIRECTS},
        )

    def _request(
        self, url: str, headers: Mapping[bytes | str, bytes | str], accept: tuple[str, ...] = ()
    ) -> Fetched:
        """One request; a body of a type not in ``accept`` is refused before it is read."""
        self.backend.deadline = time.monotonic() + TOTAL_SECONDS
        timeouts = {
            "connect": CONNECT_SECONDS,
            "read": READ_SECONDS,
            "write": READ_SECONDS,
            "pool": READ_SECONDS,
        }
        try:
            with self.pool.stream(
                "GET", url, headers=headers, extensions={"timeout": timeouts}
            ) as response:
                found = {
                    k.decode("latin-1").lower(): v.decode("latin-1") for k, v in response.headers
                }
                content_type = found.get("content-type", "").split(";")[0].strip().lower()
                body = bytearray()
                if response.status == 200:
                    limit = _size_limit(url, content_type, accept)
                    for piece in response.iter_stream():
                        body.extend(piece)
                        if len(body) > limit:
                            raise _too_large(url, limit)
        except FetchError:
            raise
        except httpcore.TimeoutException as exc:
            raise _too_slow(url) from exc
        except (
            httpcore.NetworkError,
            httpcore.ProtocolError,
            httpcore.UnsupportedProtocol,
            OSError,
        ) as exc:
            raise FetchError(
                gettext_noop("%(url)s could not be fetched: %(detail)s."),
                params={"url": url[:200], "detail": str(exc) or type(exc).__name__},
            ) from exc
        return Fetched(
            url=url,
            status=response.status,
            content_type=content_type,
            body=bytes(body),
            etag=found.get("etag", "")[:255],
            last_modified=found.get("last-modified", "")[:64],
            headers=found,
        )

    def _robots(self, url: str) -> Protego | None:
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self.robots:
            self.robots[origin] = None  # unreachable or absent robots.txt: everything allowed
            try:
                self._wait_turn(origin)
                fetched = self._request(f"{origin}/robots.txt", {"User-Agent": USER_AGENT})
            except FetchError:
                return None
            if fetched.status == 200:
                self.robots[origin] = Protego.parse(fetched.body.decode("utf-8", errors="replace"))
        return self.robots[origin]

    def _wait_turn(self, url: str) -> None:
        """At least the crawl delay (robots.txt's, or the setting's) between two requests
        to one host."""
        host = urlsplit(url).netloc
        robots = self.robots.get(f"{urlsplit(url).scheme}://{host}")
        delay = max(self.min_delay, min((robots.crawl_delay(USER_AGENT) or 0) if robots else 0, 30))
        wait = self.last_request.get(host, 0) + delay - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self.last_request[host] = time.monotonic()


def _size_limit(url: str, content_type: str, accept: tuple[str, ...]) -> int:
    """How much of a body is read: a page's limit, an upload's for a document; a type not
    accepted is refused from its header, before its body is downloaded."""
    if accept and content_type and content_type not in accept:
        raise NotReadable(
            gettext_noop(
                "%(url)s is %(type)s: neither a web page nor a document that can be read."
            ),
            params={"url": url[:200], "type": content_type[:80]},
        )
    if content_type in DOCUMENT_TYPES:
        return int(settings.KNOWLEDGE_MAX_UPLOAD_BYTES)
    return settings.SOURCES_MAX_PAGE_MB * 1024 * 1024


def _too_large(url: str, limit: int) -> FetchError:
    return FetchError(
        gettext_noop("%(url)s is larger than %(limit)s MB; it was not read."),
        params={"url": url[:200], "limit": limit // 1048576},
    )


def _too_slow(url: str) -> FetchError:
    return FetchError(
        gettext_noop("%(url)s took longer than %(limit)s seconds to answer."),
        params={"url": url[:200], "limit": int(TOTAL_SECONDS)},
    )
