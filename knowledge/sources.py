"""Web sources: pages kept as documents and re-checked on a schedule.

A check discovers the source's pages (the page itself, a sitemap's, or a site's by its
links), fetches each with the validators of the last fetch (ETag / Last-Modified), and
compares the main text's hash: an unchanged page costs one request and no embedding; a
changed one is re-ingested in place (its chunks stay searchable until the new ones replace
them, and chunks whose text did not change keep their vectors); a new page becomes a
document whose citation is its URL; a page that answers 404/410 or left the sitemap or the
site is forgotten with the same erasure as a forgotten upload. When the discovery itself
fails (the sitemap or the start page cannot be read), nothing is forgotten.

A site is crawled in one pass: each page is fetched once per check (conditionally), and its
links, or the ones it had when it did not change, lead on. A check stops at
SOURCES_CHECK_MAX_MINUTES (before the task's time limit, with its result kept): the pages
it had no time for are checked at beat's next look for due sources (every five minutes), by
a check that skips the ones this pass already checked, until the pass is whole; only a
whole pass forgets a site's pages it no longer reaches.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import io
import logging
import time
import uuid
import zlib
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import partial
from urllib.parse import urljoin, urlsplit

import defusedxml.ElementTree
import lxml.html
from defusedxml import DefusedXmlException
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop
from w3lib.encoding import http_content_type_encoding

from accounts.audit import audit_record
from datastores.locks import lock_key, lock_release, lock_try
from knowledge import forgetting, ingestion, reingestion, uploads
from knowledge.extraction import IngestionError, decode_declared, decode_html
from knowledge.extraction.markup import main_content
from knowledge.fetching import (
    DOCUMENT_TYPES,
    HTML_TYPES,
    SITEMAP_TYPES,
    Fetched,
    Fetcher,
    FetchError,
    NotReadable,
    check_url,
    checked_address,
)
from knowledge.models import Document, DocumentStatus, Source, SourceMode, SourcePage
from knowledge.queue import queue_source_check
from knowledge.search import sentence_vectors
from licenses.models import License
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)

MAX_SITEMAPS = 20  # child sitemaps of a sitemap index read in one check
MAX_SITEMAP_BYTES = 50 * 1024 * 1024  # sitemaps.org's limit, unpacked
MAX_LINKS_PER_PAGE = 10_000  # a source's largest page cap: more links could not be kept
_SITEMAP_NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


@dataclass
class CheckResult:
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    errors: int = 0
    skipped_by_robots: int = 0
    skipped_by_type: int = 0  # a site's links to images, videos…: neither pages nor documents
    left: int = 0  # pages this check had no time for: the next check goes on (due at once)
    documents: list[str] = field(default_factory=list)  # documents created or re-ingested

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in self.__dict__.items() if k != "documents"}


# -- adding, forgetting ------------------------------------------------------------------


SOURCE_LIMITS = {  # name: (least, most, what a person is told when it is out of range)
    "every_hours": (
        1,
        24 * 365,
        gettext_noop("A source is checked every 1 to 8760 hours (a year)"),
    ),
    "max_pages": (1, 10_000, gettext_noop("A source keeps 1 to 10000 pages")),
    "max_depth": (0, 10, gettext_noop("Links are followed 0 to 10 deep")),
}


def _source_limits_checked(**values: int) -> None:
    for name, value in values.items():
        least, most, rule = SOURCE_LIMITS[name]
        if not least <= value <= most:
            raise ApplicationError(
                gettext_noop("%(t_rule)s; %(value)s was given."),
                params={"t_rule": rule, "value": value},
                extra={"field": name},
            )


def source_add(
    *,
    url: str,
    license: License | None,
    mode: str = SourceMode.PAGE,
    every_hours: int = 24,
    max_pages: int = 50,
    max_depth: int = 2,
) -> Source:
    """Refuses, before anything is stored, an address that may not be fetched."""
    url = check_url(url)
    if mode not in SourceMode.values:
        raise ApplicationError(gettext_noop("The mode must be page, sitemap or site."))
    _source_limits_checked(every_hours=every_hours, max_pages=max_pages, max_depth=max_depth)
    parts = urlsplit(url)
    checked_address(parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))
    try:
        with transaction.atomic():
            source = Source.objects.create(
                url=url,
                license=license,
                mode=mode,
                every_hours=every_hours,
                max_pages=max_pages,
                max_depth=max_depth,
                next_check_at=timezone.now(),
            )
            audit_record(
                "knowledge.source_added",
                target=f"source:{source.pk}",
                details={"url": url, "scope": uploads.scope_name(license), "mode": mode},
            )
            return source
    except IntegrityError as exc:
        raise ApplicationError(
            gettext_noop("%(url)s is already a source of this scope."), params={"url": url}
        ) from exc


def source_forget(*, source: Source) -> int:
    """Forget the source and every document its pages became (erasure as for uploads). A
    check writing a page at that moment finishes it first (the source's row is locked by
    both), so that page's document goes too, and the check stops at its next page."""
    with transaction.atomic():
        Source.objects.select_for_update().filter(pk=source.pk).first()
        documents = list(Document.objects.filter(source_pages__source=source).distinct())
        forgetting.documents_forget(documents=documents)
        audit_record(
            "knowledge.source_forgotten",
            target=f"source:{source.pk}",
            details={"url": source.url, "documents": len(documents)},
        )
        source.delete()
    return len(documents)


# -- checking ------------------------------------------------------------------------------


def source_check_soon(*, source_id: uuid.UUID) -> None:
    """Queue a check of this source once the transaction commits; shown as checking from
    now. A broker that does not take it leaves the source due for beat (queue.py)."""
    Source.objects.filter(pk=source_id).update(checking=True)
    transaction.on_commit(partial(queue_source_check, source_id))


def sources_due() -> list[uuid.UUID]:
    """Claim the sources whose next check has come (a conditional update: two beats never
    queue one source twice)."""
    now = timezone.now()
    claimed = []
    for source in Source.objects.filter(next_check_at__lte=now):
        # Moving the next check forward is the claim (a check that crashed is due again
        # then, whatever its "checking" flag says).
        if Source.objects.filter(pk=source.pk, next_check_at__lte=now).update(
            checking=True, next_check_at=now + timedelta(hours=source.every_hours)
        ):
            claimed.append(source.pk)
    return claimed


def source_check(
    *, source_id: uuid.UUID | str, enqueue: bool = True, wait_seconds: float = 0.0
) -> CheckResult:
    """Check a source now. With ``enqueue`` the changed documents go to the workers;
    without, they are ingested here (the command's way) and searchable on return. When
    another check of it is running, wait up to ``wait_seconds`` for it to end, then check."""
    source = Source.objects.select_related("license").filter(pk=source_id).first()
    if source is None:  # forgotten after its check was queued
        raise ApplicationError(gettext_noop("This source was forgotten."), status=404)
    with _checked_alone(source, wait_seconds):
        return _check(source, enqueue=enqueue)


@contextlib.contextmanager
def _checked_alone(source: Source, wait_seconds: float) -> Iterator[None]:
    """One check of a source at a time (Check now pressed twice, a command beside beat's
    check): a session advisory lock, held while the check runs, released however it ends."""
    key = lock_key(source.pk)
    deadline = time.monotonic() + wait_seconds
    while not lock_try(key):
        if time.monotonic() >= deadline:
            raise ApplicationError(
                gettext_noop("%(url)s is being checked already; its result will show here."),
                params={"url": source.url[:200]},
                status=409,
            )
        time.sleep(0.5)
    try:
        yield
    finally:
        lock_release(key)


def _check(source: Source, *, enqueue: bool) -> CheckResult:
    Source.objects.filter(pk=source.pk).update(checking=True)
    result = CheckResult()
    # A pass left unfinished goes on: the pages it checked are not fetched again.
    pass_ = _Pass(started=source.pass_started_at or timezone.now())
    try:
        with Fetcher() as fetcher:
            if source.mode == SourceMode.SITE:
                reached = _check_site(source, fetcher, pass_, result, enqueue=enqueue)
            else:
                reached = _check_listed(source, fetcher, pass_, result, enqueue=enqueue)
            if not result.left or source.mode != SourceMode.SITE:
                # A sitemap lists every page; a site's are known once its pass is whole.
                for page in SourcePage.objects.filter(source=source).exclude(url__in=reached):
                    _forget_page(page, result)
    except SourceForgotten:
        logger.info("source %s was forgotten during its check: stopped", source.pk)
        return result
    except ApplicationError as exc:
        _finish(source, result, pass_, error=exc)
        raise
    except BaseException:
        Source.objects.filter(pk=source.pk).update(checking=False)  # killed, crashed
        raise
    _finish(source, result, pass_, error=None)
    if not enqueue:
        _ingest_here(result.documents)
    return result


@dataclass
class _Pass:
    """One pass over a source's pages, perhaps over several checks, each within its time."""

    started: datetime
    deadline: float = field(
        default_factory=lambda: time.monotonic() + settings.SOURCES_CHECK_MAX_MINUTES * 60
    )

    fetched: int = 0  # pages this check fetched: at least one, so every check moves on

    def checked(self, page: SourcePage | None) -> bool:
        return bool(page and page.last_checked_at and page.last_checked_at >= self.started)

    def may_fetch(self) -> bool:
        if self.fetched and time.monotonic() >= self.deadline:
            return False
        self.fetched += 1
        return True


def _finish(
    source: Source, result: CheckResult, pass_: _Pass, *, error: ApplicationError | None
) -> None:
    now = timezone.now()
    unfinished = bool(result.left) and error is None
    Source.objects.filter(pk=source.pk).update(
        checking=False,
        last_checked_at=now,
        next_check_at=now if unfinished else now + timedelta(hours=source.every_hours),
        pass_started_at=pass_.started if unfinished else None,
        last_result=result.as_dict(),
        error=error.english if error else "",
        error_i18n={"template": error.template, "params": error.params} if error else {},
    )


def _ingest_here(document_ids: list[str]) -> None:
    for document_id in document_ids:
        ingestion.document_ingest(document_id=document_id)
        sentence_vectors.document_embed_sentences(document_id=document_id)


# -- discovering pages ---------------------------------------------------------------------


def _check_listed(
    source: Source, fetcher: Fetcher, pass_: _Pass, result: CheckResult, *, enqueue: bool
) -> set[str]:
    """A page source's page, or a sitemap's; the URLs listed (all of them, checked or not)."""
    if source.mode == SourceMode.SITEMAP:
        urls = [(url, 1) for url in _sitemap_urls(source, fetcher)][: source.max_pages]
    else:
        urls = [(source.url, 0)]
    known = {page.url: page for page in SourcePage.objects.filter(source=source)}
    for url, depth in urls:
        if pass_.checked(known.get(url)):
            continue
        if not pass_.may_fetch():
            result.left += 1
            continue
        _check_page(source, url, depth, fetcher, result, enqueue=enqueue)
    return {url for url, _depth in urls}


def _sitemap_urls(source: Source, fetcher: Fetcher) -> list[str]:
    urls: list[str] = []
    queue, read = deque([source.url]), 0
    host = urlsplit(source.url).netloc
    while queue and read < MAX_SITEMAPS and len(urls) < source.max_pages:
        fetched = fetcher.get(queue.popleft(), accept=SITEMAP_TYPES)
        if fetched.status != 200:
            raise FetchError(
                gettext_noop("The sitemap %(url)s answered %(status)s; nothing was changed."),
                params={"url": fetched.url[:200], "status": fetched.status},
            )
        read += 1
        index, listed = _sitemap_entries(fetched)
        for url in listed:
            if urlsplit(url).netloc != host:  # another site's pages: not this source's
                continue
            if index:
                queue.append(url)
            elif url not in urls:
                urls.append(url)
    return urls


def _sitemap_entries(fetched: Fetched) -> tuple[bool, list[str]]:
    """(whether it is a sitemap index, the URLs it lists), from XML, gzipped XML or text."""
    body = _gunzipped(fetched) if fetched.body[:2] == b"\x1f\x8b" else fetched.body
    if fetched.content_type == "text/plain" and body.lstrip()[:1] != b"<":
        lines = (line.strip() for line in body.decode("utf-8", errors="replace").splitlines())
        return False, [line for line in lines if line.startswith(("http://", "https://"))]
    try:
        root = defusedxml.ElementTree.fromstring(body, forbid_dtd=True)
    except (DefusedXmlException, SyntaxError) as exc:
        raise FetchError(
            gettext_noop("The sitemap %(url)s is not valid XML: %(detail)s."),
            params={"url": fetched.url[:200], "detail": str(exc)[:200]},
        ) from exc
    listed = [(loc.text or "").strip() for loc in root.iter(f"{_SITEMAP_NS}loc")]
    return root.tag == f"{_SITEMAP_NS}sitemapindex", [url for url in listed if url]


def _gunzipped(fetched: Fetched) -> bytes:
    """A gzipped sitemap, read up to sitemaps.org's 50 MB (a bomb stops there)."""
    inflater = zlib.decompressobj(wbits=31)
    try:
        body = inflater.decompress(fetched.body, MAX_SITEMAP_BYTES + 1)
    except zlib.error as exc:
        raise FetchError(
            gettext_noop("The sitemap %(url)s is not valid gzip: %(detail)s."),
            params={"url": fetched.url[:200], "detail": str(exc)[:200]},
        ) from exc
    if len(body) > MAX_SITEMAP_BYTES:
        raise FetchError(
            gettext_noop("The sitemap %(url)s unpacks to more than %(limit)s MB; it was not read."),
            params={"url": fetched.url[:200], "limit": MAX_SITEMAP_BYTES // 1048576},
        )
    return body


def _check_site(
    source: Source, fetcher: Fetcher, pass_: _Pass, result: CheckResult, *, enqueue: bool
) -> set[str]:
    """Breadth first from the address, through links under its host and path prefix, to
    ``max_depth`` and ``max_pages``, each page checked as it is reached. A page checked
    earlier in this pass, one that did not change or failed, and one there is no time for
    lend the links they had. The start page must answer, or nothing is changed."""
    prefix = _prefix(source.url)
    known = {page.url: page for page in SourcePage.objects.filter(source=source)}
    found: dict[str, int] = {source.url: 0}
    queue = deque([source.url])
    while queue:
        url = queue.popleft()
        depth, page = found[url], known.get(url)
        if pass_.checked(page):
            links = page.links if page else []
        elif not pass_.may_fetch():
            result.left += 1
            links = page.links if page else []
        else:
            links = _check_page(
                source, url, depth, fetcher, result, enqueue=enqueue, strict=depth == 0
            )
        if depth >= source.max_depth:
            continue
        for link in links:
            if link.startswith(prefix) and link not in found and len(found) < source.max_pages:
                found[link] = depth + 1
                queue.append(link)
    return set(found)


def page_links(fetched: Fetched) -> list[str]:
    """The page's links, in order, once each, at most MAX_LINKS_PER_PAGE (as many as a
    source may keep pages: a hostile page of a million anchors costs no more)."""
    try:
        root = lxml.html.document_fromstring(fetched.body)
    except (lxml.etree.ParserError, ValueError):
        return []
    links: dict[str, None] = {}
    for element, attribute, link, _pos in root.iterlinks():
        if element.tag == "a" and attribute == "href":
            absolute = urljoin(fetched.url, link).split("#")[0]
            if absolute.startswith(("http://", "https://")):
                links[absolute] = None
                if len(links) >= MAX_LINKS_PER_PAGE:
                    break
    return list(links)


def _prefix(url: str) -> str:
    parts = urlsplit(url)
    path = parts.path if parts.path.endswith("/") else parts.path.rsplit("/", 1)[0] + "/"
    return f"{parts.scheme}://{parts.netloc}{path}"


# -- one page ------------------------------------------------------------------------------


def _check_page(
    source: Source,
    url: str,
    depth: int,
    fetcher: Fetcher,
    result: CheckResult,
    *,
    enqueue: bool,
    strict: bool = False,
) -> list[str]:
    """Fetch, compare and keep one page; its links (a site's page's). ``strict``: a page
    that cannot be read raises (a site's start page: then nothing is changed)."""
    page = SourcePage.objects.filter(source=source, url=url).first()
    if not fetcher.allowed(url):
        if strict:
            raise FetchError(
                gettext_noop("robots.txt does not allow %(url)s; nothing was changed."),
                params={"url": url[:200]},
            )
        result.skipped_by_robots += 1
        if page is not None:
            _forget_page(page, result)
        return []
    try:
        fetched = fetcher.get(
            url,
            accept=(*HTML_TYPES, *DOCUMENT_TYPES),
            etag=page.etag if page and page.document_id else "",
            last_modified=page.last_modified if page and page.document_id else "",
        )
    except NotReadable as exc:
        if strict:
            raise
        if source.mode != SourceMode.SITE:  # a page or a sitemap's is asked for by name
            _page_error(source, url, depth, page, exc, result)
            return []
        result.skipped_by_type += 1
        if page is not None:
            _forget_page(page, result)
        return []
    except FetchError as exc:
        if strict:
            raise
        _page_error(source, url, depth, page, exc, result)
        return page.links if page else []
    if strict and fetched.status not in (200, 304):
        raise FetchError(
            gettext_noop("%(url)s answered %(status)s; nothing was changed."),
            params={"url": url[:200], "status": fetched.status},
        )
    if fetched.gone:
        if page is not None:
            _forget_page(page, result)
        return []
    if fetched.not_modified and page is not None:
        _touch(page, fetched, result)
        return page.links
    if fetched.status != 200:
        answered = FetchError(
            gettext_noop("The page answered HTTP %(status)s."), params={"status": fetched.status}
        )
        _page_error(source, url, depth, page, answered, result)
        return page.links if page else []
    return _store_page(source, url, depth, page, fetched, result, enqueue=enqueue).links


def _store_page(
    source: Source,
    url: str,
    depth: int,
    page: SourcePage | None,
    fetched: Fetched,
    result: CheckResult,
    *,
    enqueue: bool,
) -> SourcePage:
    web_page = fetched.content_type not in DOCUMENT_TYPES
    fetched = replace(fetched, body=_stored_body(fetched))
    text_hash = (
        _main_text_hash(fetched.body) if web_page else hashlib.sha256(fetched.body).hexdigest()
    )
    page = page or SourcePage(source=source, url=url)
    page.depth, page.status_code, page.error, page.error_i18n = depth, fetched.status, "", {}
    page.etag, page.last_modified = fetched.etag, fetched.last_modified
    page.links = page_links(fetched) if source.mode == SourceMode.SITE and web_page else []
    page.last_checked_at = timezone.now()
    document = Document.objects.filter(pk=page.document_id).first() if page.document_id else None
    if document is not None and page.text_hash == text_hash:
        page.save()
        result.unchanged += 1
        return page
    page.text_hash, page.last_changed_at = text_hash, timezone.now()
    with transaction.atomic():  # the page and its document, or neither
        _still_kept(source)
        try:
            with transaction.atomic():
                if document is None:
                    document = _new_document(source, fetched, url, enqueue=enqueue)
                    result.new += 1
                else:
                    document = _replace_document(document, fetched, enqueue=enqueue)
                    result.changed += 1
        except ApplicationError as exc:
            page.error = exc.english
            page.error_i18n = {"template": exc.template, "params": exc.params}
            page.save()
            result.errors += 1
            return page
        page.document = document
        page.save()
    if document.status == DocumentStatus.QUEUED:
        result.documents.append(str(document.pk))
    return page


class SourceForgotten(Exception):  # noqa: N818 - a state the check meets, not a fault
    """The source was forgotten while it was being checked."""


def _still_kept(source: Source) -> None:
    """Lock the source's row until the page is written (its forgetting waits for it), or
    stop the check if it was forgotten meanwhile."""
    if not Source.objects.select_for_update().filter(pk=source.pk).exists():
        raise SourceForgotten


def _new_document(source: Source, fetched: Fetched, url: str, *, enqueue: bool) -> Document:
    creation = uploads.document_create(
        file=io.BytesIO(fetched.body),
        filename=_citation_name(url),
        license=source.license,
        enqueue=enqueue,
        kind_hint=_kind_hint(fetched),
    )
    return creation.document


def _replace_document(document: Document, fetched: Fetched, *, enqueue: bool) -> Document:
    return reingestion.document_replace_file(
        document=document,
        file=io.BytesIO(fetched.body),
        kind_hint=_kind_hint(fetched),
        enqueue=enqueue,
    )


def _kind_hint(fetched: Fetched) -> str:
    """A page is read as HTML whatever it looks like; a linked document as its content is
    (a PDF, a Word file…), or as its type says for text."""
    return DOCUMENT_TYPES.get(fetched.content_type, "html")


def _stored_body(fetched: Fetched) -> bytes:
    """What a page or a text file is stored as. A stored file keeps no headers, so the
    charset its server declares is read here: a text in another charset is stored as UTF-8
    behind a byte-order mark, which readers (and browsers) believe before a page's own
    ``<meta>``. Anything else is stored as it came."""
    kind = _kind_hint(fetched)
    header = fetched.headers.get("content-type", "")
    declared = http_content_type_encoding(header)
    if kind not in _TEXT_KINDS or declared is None:
        return fetched.body
    try:
        if kind == "html":
            text, details = decode_html(fetched.body, header)
        else:
            text, details = decode_declared(fetched.body, declared)
    except IngestionError:  # undecodable: stored as it came, its reading says why
        return fetched.body
    if not details.get("encoding_declared"):
        return fetched.body
    return codecs.BOM_UTF8 + text.encode("utf-8")


_TEXT_KINDS = {"html", "txt", "md", "csv"}


def _citation_name(url: str) -> str:
    """The document's name is its URL: what a citation shows and a reader opens."""
    return url if len(url) <= 255 else url[:254] + "…"


def _main_text_hash(body: bytes) -> str:
    """A page's identity is its main text: a changed timestamp in a footer, a rotating
    banner or a session token in a link is not a change worth re-embedding."""
    try:
        html = decode_html(body)[0]
    except IngestionError:  # not text at all: its bytes are its identity
        return hashlib.sha256(body).hexdigest()
    text = main_content(html) or html
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()


def _touch(page: SourcePage, fetched: Fetched, result: CheckResult) -> None:
    SourcePage.objects.filter(pk=page.pk).update(
        last_checked_at=timezone.now(), status_code=fetched.status, error="", error_i18n={}
    )
    result.unchanged += 1


def _page_error(
    source: Source,
    url: str,
    depth: int,
    page: SourcePage | None,
    error: ApplicationError,
    result: CheckResult,
) -> None:
    """A page that failed this time keeps its document (it may be back next time)."""
    page = page or SourcePage(source=source, url=url, depth=depth)
    page.error, page.last_checked_at = error.english[:2000], timezone.now()
    page.error_i18n = {"template": error.template, "params": error.params}
    with transaction.atomic():
        _still_kept(source)
        page.save()
    result.errors += 1


def _forget_page(page: SourcePage, result: CheckResult) -> None:
    document = page.document
    page.delete()
    if document is not None and not document.source_pages.exists():
        forgetting.document_forget(document=document)
    result.removed += 1


def source_pages_by_state(source: Source) -> Counter[str]:
    states: Counter[str] = Counter()
    for page in source.pages.select_related("document"):
        states["error" if page.error else (page.document.status if page.document else "none")] += 1
    return states
