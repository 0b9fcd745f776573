"""Web sources against a real web site on the loopback address (tests/website.py): a
sitemap of pages kept in sync (changed, removed, added), conditional requests that make an
unchanged page cost one request and no embedding, and fetching that refuses private
addresses before connecting, follows redirects carefully, obeys robots.txt and its limits."""

from __future__ import annotations

import gzip
import json
import re
import time
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from datastores.locks import lock_key
from knowledge import fetching
from knowledge.fetching import FetchError, address_refusal
from knowledge.models import Chunk, Document, DocumentStatus, Source, SourcePage
from knowledge.search import SearchOptions
from knowledge.search import search as engine_search
from knowledge.sources import (
    MAX_LINKS_PER_PAGE,
    page_links,
    source_add,
    source_check,
    source_forget,
)
from licenses.principals import principal_for_admin, principal_for_license
from tests.conftest import PDFS, WORKER_SITE_PORT, wait_until
from tests.documents import DOCUMENTS
from tests.factories import make_license
from tests.website import Page, Website
from web.exceptions import ApplicationError

FACTS = {
    "/ayuda/horario": (
        "Horario",
        "La oficina de atención abre de lunes a viernes de 8 a 15 horas.",
    ),
    "/ayuda/devolucoes": ("Devoluções", "As devoluções são aceitas em até trinta dias corridos."),
    "/ayuda/parking": ("Parking", "Visitors park on level minus two beside the lifts."),
    "/ayuda/wifi": ("Wifi", "La contraseña del wifi de invitados cambia cada lunes."),
    "/ayuda/pagos": ("Pagos", "Aceptamos pagos con tarjeta y transferencia bancaria."),
}


@pytest.fixture
def site(settings):
    website = Website()
    server = website.start()
    settings.SOURCES_ALLOWED_HOSTS = [f"127.0.0.1:{website.port}"]
    settings.SOURCES_MIN_DELAY_SECONDS = 0
    for path, (title, text) in FACTS.items():
        website.html(path, title, text)
    website.pages["/robots.txt"] = Page(b"User-agent: *\nDisallow: /privado/\n", "text/plain")
    website.sitemap()
    yield website
    server.shutdown()


def found(query: str, license=None) -> list:
    principal = (
        principal_for_license(license) if license else principal_for_admin("root", license=None)
    )
    options = SearchOptions(strategy="keyword", min_score=-1.0)
    return engine_search(principal=principal, query=query, options=options).results


def embedded_since(fake, start: int) -> str:
    return " ".join(fake.passages[start:])


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
class TestSitemapSource:
    def test_pages_are_searchable_and_cited_by_their_url(self, site):
        source = source_add(url=site.url("/sitemap.xml"), license=None, mode="sitemap")
        result = source_check(source_id=source.pk, enqueue=False)

        assert (result.new, result.errors) == (5, 0)
        assert Document.objects.filter(status=DocumentStatus.READY).count() == 5
        top = found("oficina atención lunes viernes")[0]
        assert top.filename == site.url("/ayuda/horario")
        assert "8 a 15 horas" in top.content

    def test_a_change_a_removal_and_an_addition_are_followed_and_unchanged_pages_cost_nothing(
        self, site, fake_embedder
    ):
        source = source_add(url=site.url("/sitemap.xml"), license=None, mode="sitemap")
        source_check(source_id=source.pk, enqueue=False)
        removed_chunks = list(
            Chunk.objects.filter(document__filename=site.url("/ayuda/wifi")).values_list(
                "pk", flat=True
            )
        )
        site.html(
            "/ayuda/horario",
            "Horario",
            "La oficina de atención abre de lunes a jueves de 9 a 14 horas.",
        )
        del site.pages["/ayuda/wifi"]
        site.html(
            "/ayuda/envios",
            "Envíos",
            "Los envíos a las islas Canarias tardan cinco días laborables.",
        )
        site.sitemap()
        site.requests.clear()
        before = len(fake_embedder.passages)

        result = source_check(source_id=source.pk, enqueue=False)

        assert result.as_dict() == {
            "new": 1, "changed": 1, "unchanged": 3, "removed": 1, "errors": 0,
            "skipped_by_robots": 0, "skipped_by_type": 0, "left": 0,
        }  # fmt: skip
        assert "9 a 14 horas" in found("oficina atención jueves")[0].content
        assert not Chunk.objects.filter(content__contains="8 a 15 horas").exists()
        assert not any("wifi" in r.content for r in found("contraseña wifi invitados"))
        assert not Chunk.objects.filter(pk__in=removed_chunks).exists()  # gone from the database
        assert "cinco días laborables" in found("envíos Canarias")[0].content
        # The unchanged pages: one conditional request each, answered 304, nothing embedded.
        unchanged = ("/ayuda/devolucoes", "/ayuda/pagos", "/ayuda/parking")  # the sitemap's order
        assert [(p, s) for p, cond, s in site.requests if p in unchanged] == [
            (p, 304) for p in unchanged
        ]
        texts = embedded_since(fake_embedder, before)
        assert "jueves" in texts and "Canarias" in texts
        for path in unchanged:
            assert FACTS[path][1].split()[1] not in texts

    def test_a_page_whose_main_text_did_not_change_is_not_re_ingested(self, site, fake_embedder):
        source = source_add(url=site.url("/ayuda/horario"), license=None)
        source_check(source_id=source.pk, enqueue=False)
        title, text = FACTS["/ayuda/horario"]
        site.html("/ayuda/horario", title, text)  # new footer timestamp, new ETag, same text
        before = len(fake_embedder.passages)

        result = source_check(source_id=source.pk, enqueue=False)

        assert (result.unchanged, result.changed) == (1, 0)
        assert len(fake_embedder.passages) == before

    def test_a_changed_page_keeps_the_vectors_of_its_unchanged_chunks(self, site, fake_embedder):
        long_text = [" ".join(f"palabra{n}x{i}" for i in range(60)) + "." for n in range(8)]
        site.html("/largo", "Largo", *long_text)
        source = source_add(url=site.url("/largo"), license=None)
        source_check(source_id=source.pk, enqueue=False)
        first = Document.objects.get(filename=site.url("/largo"))
        assert first.chunk_count >= 2
        site.html("/largo", "Largo", *long_text[:-1], "Un párrafo final nuevo del todo.")

        source_check(source_id=source.pk, enqueue=False)

        document = Document.objects.get(pk=first.pk)
        assert document.metadata["vectors_reused"] >= 1
        assert document.metadata["vectors_embedded"] >= 1
        assert (
            document.metadata["vectors_reused"] + document.metadata["vectors_embedded"]
            == document.chunk_count
        )

    def test_gzipped_and_text_sitemaps_are_read(self, site):
        """sitemaps.org's other forms: a big site's index points at gzipped sitemaps, and a
        small one may list its pages in a text file; both were refused as "not a page"."""
        xml = site.pages["/sitemap.xml"].body
        site.pages["/sitemap-1.xml.gz"] = Page(gzip.compress(xml), "application/x-gzip")
        site.pages["/indice.xml.gz"] = Page(
            gzip.compress(
                b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap>'
                + f"<loc>{site.url('/sitemap-1.xml.gz')}</loc></sitemap></sitemapindex>".encode()
            ),
            "application/gzip",
        )
        listed = "\n".join(site.url(p) for p in ("/ayuda/horario", "/ayuda/pagos"))
        site.pages["/sitemap.txt"] = Page(f"{listed}\n".encode(), "text/plain; charset=utf-8")

        gzipped = source_add(url=site.url("/indice.xml.gz"), license=None, mode="sitemap")
        text = source_add(url=site.url("/sitemap.txt"), license=make_license(), mode="sitemap")

        assert source_check(source_id=gzipped.pk, enqueue=False).new == 5
        assert source_check(source_id=text.pk, enqueue=False).new == 2

    def test_a_gzipped_sitemap_bomb_is_refused_and_forgets_nothing(self, site):
        source = source_add(url=site.url("/sitemap.xml"), license=None, mode="sitemap")
        source_check(source_id=source.pk, enqueue=False)
        bomb = gzip.compress(b"<urlset>" + b" " * (60 * 1024 * 1024) + b"</urlset>")
        assert len(bomb) < 100_000
        site.pages["/sitemap.xml"] = Page(bomb, "application/gzip")

        with pytest.raises(FetchError, match="unpacks to more than 50 MB"):
            source_check(source_id=source.pk, enqueue=False)
        assert Document.objects.count() == 5

    def test_a_failed_sitemap_forgets_nothing(self, site):
        source = source_add(url=site.url("/sitemap.xml"), license=None, mode="sitemap")
        source_check(source_id=source.pk, enqueue=False)
        site.pages["/sitemap.xml"] = Page(b"", status=500)

        with pytest.raises(FetchError, match="answered 500; nothing was changed"):
            source_check(source_id=source.pk, enqueue=False)
        assert Document.objects.count() == 5
        assert "500" in Source.objects.get(pk=source.pk).error

    def test_a_license_source_is_that_license_s_only(self, site):
        sala, otra = make_license(machine_id="sala-01"), make_license(machine_id="sala-02")
        source = source_add(url=site.url("/ayuda/parking"), license=sala)
        source_check(source_id=source.pk, enqueue=False)

        assert found("Visitors park level", license=sala)
        assert not found("Visitors park level", license=otra)

    def test_forgetting_a_source_forgets_its_documents(self, site):
        source = source_add(url=site.url("/sitemap.xml"), license=None, mode="sitemap")
        source_check(source_id=source.pk, enqueue=False)

        assert source_forget(source=source) == 5
        assert not Document.objects.exists() and not SourcePage.objects.exists()


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
class TestSiteSource:
    def test_links_under_the_address_are_followed_to_the_depth_asked(self, site):
        site.html(
            "/ayuda/",
            "Ayuda",
            "Índice de la ayuda.",
            links=(
                "/ayuda/horario",
                "/ayuda/pagos",
                "/ayuda/privado/",
                "/blog/",
                "https://example.com/x",
            ),
        )
        site.html("/ayuda/privado/", "Privado", "Nunca leído: robots.txt lo prohíbe.")
        site.pages["/robots.txt"] = Page(
            b"User-agent: *\nDisallow: /ayuda/privado/\n", "text/plain"
        )
        site.html("/blog/", "Blog", "Fuera del prefijo.")
        source = source_add(url=site.url("/ayuda/"), license=None, mode="site", max_depth=1)

        result = source_check(source_id=source.pk, enqueue=False)

        assert result.skipped_by_robots == 1
        names = set(Document.objects.values_list("filename", flat=True))
        assert names == {site.url("/ayuda/"), site.url("/ayuda/horario"), site.url("/ayuda/pagos")}
        assert "/blog/" not in site.paths_requested()
        assert "/ayuda/privado/" not in site.paths_requested()

    def test_each_page_is_fetched_once_a_check(self, site):
        """The crawl and the check were two passes: every page that leads on was fetched
        twice a check, the second time to compare it."""
        site.html("/ayuda/", "Ayuda", "Índice.", links=("/ayuda/temas",))
        site.html("/ayuda/temas", "Temas", "Temas.", links=("/ayuda/horario", "/ayuda/pagos"))
        source = source_add(url=site.url("/ayuda/"), license=None, mode="site", max_depth=2)

        first = source_check(source_id=source.pk, enqueue=False)
        site.requests.clear()
        again = source_check(source_id=source.pk, enqueue=False)

        assert (first.new, again.unchanged) == (4, 4)
        pages = ["/ayuda/", "/ayuda/temas", "/ayuda/horario", "/ayuda/pagos"]
        assert sorted(site.paths_requested()) == sorted([*pages, "/robots.txt"])
        assert {status for path, _cond, status in site.requests if path != "/robots.txt"} == {304}

    def test_a_check_out_of_time_stops_and_the_next_goes_on_where_it_stopped(
        self, site, settings, client, admin_user
    ):
        """A check that ran past the task's time limit was killed: its result was lost, the
        source stayed "checking…", and a site too big for one check was never whole."""
        links = ("/ayuda/horario", "/ayuda/pagos", "/ayuda/parking", "/ayuda/devolucoes")
        site.html("/ayuda/", "Ayuda", "Índice.", links=(*links, "/ayuda/wifi"))
        source = source_add(url=site.url("/ayuda/"), license=None, mode="site", max_depth=1)
        source_check(source_id=source.pk, enqueue=False)
        site.html("/ayuda/", "Ayuda", "Índice nuevo.", links=links)  # the wifi page unlinked
        site.html("/ayuda/pagos", "Pagos", "Aceptamos solo tarjeta.")
        site.requests.clear()
        settings.SOURCES_CHECK_MAX_MINUTES = 0  # each check then has time for one page

        results = [source_check(source_id=source.pk, enqueue=False)]
        source.refresh_from_db()
        assert (results[0].left, source.checking) == (4, False)
        assert source.pass_started_at is not None and source.next_check_at <= timezone.now()
        client.force_login(admin_user)
        page = client.get(f"/knowledge/sources/{source.pk}/", HTTP_ACCEPT_LANGUAGE="es")
        assert "se quedó sin tiempo con 4 páginas pendientes" in page.content.decode()
        assert Document.objects.filter(filename=site.url("/ayuda/wifi")).exists()
        while results[-1].left and len(results) < 10:
            results.append(source_check(source_id=source.pk, enqueue=False))

        assert [r.left for r in results] == [4, 3, 2, 1, 0]
        assert sum(r.changed for r in results) == 2  # the index and the payments page
        assert "solo tarjeta" in found("aceptamos tarjeta")[0].content
        # Forgotten once the pass was whole, not before; no page fetched twice in the pass.
        assert [r.removed for r in results] == [0, 0, 0, 0, 1]
        assert not Document.objects.filter(filename=site.url("/ayuda/wifi")).exists()
        fetched = [path for path in site.paths_requested() if path != "/robots.txt"]
        assert sorted(fetched) == sorted(["/ayuda/", *links])
        source.refresh_from_db()
        assert source.pass_started_at is None and source.next_check_at > timezone.now()

    def test_a_check_killed_by_its_time_limit_is_not_left_checking(self, site, monkeypatch):
        from celery.exceptions import SoftTimeLimitExceeded  # noqa: PLC0415

        source = source_add(url=site.url("/ayuda/horario"), license=None)

        def killed(*args: object, **kwargs: object) -> None:
            raise SoftTimeLimitExceeded()

        monkeypatch.setattr("knowledge.sources._check_page", killed)
        with pytest.raises(SoftTimeLimitExceeded):
            source_check(source_id=source.pk, enqueue=False)
        source.refresh_from_db()
        assert not source.checking

    def test_a_page_of_a_million_links_costs_no_more_than_the_links_a_source_keeps(self):
        """Each link was checked against a list of the ones before it: a 5 MB page of
        anchors took minutes of a worker's CPU."""
        anchors = b"".join(b'<a href="/p%d">p</a><a href="/p0">p</a>' % n for n in range(150_000))
        page = fetching.Fetched(url="http://ayuda.example/", status=200, body=anchors)
        started = time.monotonic()

        links = page_links(page)

        assert len(links) == MAX_LINKS_PER_PAGE
        assert links[:3] == [
            "http://ayuda.example/p0",
            "http://ayuda.example/p1",
            "http://ayuda.example/p2",
        ]
        assert time.monotonic() - started < 20  # it took over 10 s for 40,000 links

    def test_a_site_s_documents_are_kept_and_its_pictures_skipped(self, site, settings):
        """A help site's PDF and Word files were refused as "not a web page" and counted as
        errors; its photos too, after being downloaded whole."""
        from tests.documents import build  # noqa: PLC0415

        settings.SOURCES_MAX_PAGE_MB = 1
        pdf = (PDFS / "pdflatex-4-pages.pdf").read_bytes()
        site.pages["/ayuda/reglamento.pdf"] = Page(pdf, content_type="application/pdf")
        site.pages["/ayuda/manual"] = Page(
            build("docx"),
            content_type="application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        )
        site.pages["/ayuda/foto.jpg"] = Page(b"\xff\xd8" + b"x" * (3 * 1024 * 1024), "image/jpeg")
        site.pages["/ayuda/antiguo.doc"] = Page(
            (DOCUMENTS / "old.doc").read_bytes(), content_type="application/msword"
        )
        site.html(
            "/ayuda/",
            "Ayuda",
            "Índice de la ayuda.",
            links=(
                "/ayuda/reglamento.pdf",
                "/ayuda/manual",
                "/ayuda/foto.jpg",
                "/ayuda/antiguo.doc",
            ),
        )
        source = source_add(url=site.url("/ayuda/"), license=None, mode="site", max_depth=1)

        result = source_check(source_id=source.pk, enqueue=False)

        assert (result.new, result.errors, result.skipped_by_type) == (4, 0, 1)
        kinds = dict(Document.objects.values_list("filename", "kind"))
        assert kinds == {
            site.url("/ayuda/"): "html",
            site.url("/ayuda/reglamento.pdf"): "pdf",
            site.url("/ayuda/manual"): "docx",
            site.url("/ayuda/antiguo.doc"): "doc",  # Word 97, converted by LibreOffice
        }
        assert list(Document.objects.values_list("status", "error")) == [("ready", "")] * 4
        assert found("Huardest gefburn")[0].filename == site.url("/ayuda/reglamento.pdf")

        site.pages["/ayuda/reglamento.pdf"] = Page(b"%PDF-1.4 roto", content_type="application/pdf")
        again = source_check(source_id=source.pk, enqueue=False)
        assert (again.changed, again.errors) == (1, 0)  # read again; it fails on its own page
        failed = Document.objects.get(filename=site.url("/ayuda/reglamento.pdf"))
        assert failed.status == DocumentStatus.FAILED and failed.kind == "pdf"

    def test_a_page_and_a_text_are_read_in_the_charset_their_server_declares(self, site):
        """A stored file keeps no headers: a page sent as ISO-8859-15 with no <meta> was
        guessed ("49 €" read "49 ¤", "Señal" "Seńal"), and a Russian one read as Japanese."""
        precios = "Precio del abono: 49 €. Señal de reserva."
        site.pages["/ayuda/precios"] = Page(
            f"<html><body><main><h1>Precios</h1><p>{precios}</p></main></body></html>".encode(
                "iso-8859-15"
            ),
            content_type="text/html; charset=ISO-8859-15",
        )
        aviso = "Привет, как дела? Это тест."
        site.pages["/ayuda/aviso.txt"] = Page(aviso.encode("koi8-r"), "text/plain; charset=koi8-r")
        site.html("/ayuda/", "Ayuda", "Índice.", links=("/ayuda/precios", "/ayuda/aviso.txt"))
        source = source_add(url=site.url("/ayuda/"), license=None, mode="site", max_depth=1)

        assert source_check(source_id=source.pk, enqueue=False).new == 3

        def text_of(path: str) -> str:
            chunks = Chunk.objects.filter(document__filename=site.url(path))
            return " ".join(chunks.values_list("content", flat=True))

        assert precios in text_of("/ayuda/precios")
        assert aviso in text_of("/ayuda/aviso.txt")
        again = source_check(source_id=source.pk, enqueue=False)
        assert (again.unchanged, again.changed) == (3, 0)  # the same bytes, the same text


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
class TestFetchingLimits:
    def test_no_cookie_or_credential_is_sent_and_the_user_agent_names_the_product(self, site):
        source = source_add(url=site.url("/sitemap.xml"), license=None, mode="sitemap")
        source_check(source_id=source.pk, enqueue=False)

        assert site.headers_seen and all("Cookie" not in h for h in site.headers_seen)
        assert all(h["User-Agent"].startswith("PortalityBrain/") for h in site.headers_seen)
        with pytest.raises(FetchError, match="user name or password"):
            source_add(url=f"http://ana:secreto@127.0.0.1:{site.port}/", license=None)

    def test_slow_huge_and_non_html_pages_fail_alone_with_their_reason(
        self, site, settings, monkeypatch
    ):
        monkeypatch.setattr(fetching, "TOTAL_SECONDS", 1.0)
        monkeypatch.setattr(fetching, "READ_SECONDS", 1.0)
        settings.SOURCES_MAX_PAGE_MB = 1
        site.pages["/lento"] = Page(b"<html><p>tarde</p></html>", delay=3)
        site.pages["/enorme"] = Page(b"<html><p>" + b"x" * (2 * 1024 * 1024) + b"</p></html>")
        site.pages["/foto"] = Page(b"\x89PNG....", content_type="image/png")
        site.sitemap()
        source = source_add(url=site.url("/sitemap.xml"), license=None, mode="sitemap")

        result = source_check(source_id=source.pk, enqueue=False)

        assert (result.new, result.errors) == (5, 2)  # the PNG is not in a sitemap of pages
        errors = dict(SourcePage.objects.exclude(error="").values_list("url", "error"))
        assert "longer than 1 seconds" in errors[site.url("/lento")]
        assert "larger than 1 MB" in errors[site.url("/enorme")]
        with pytest.raises(FetchError, match="image/png: neither a web page nor a document"):
            fetching.Fetcher().get(site.url("/foto"), accept=fetching.HTML_TYPES)

    def test_a_server_trickling_its_headers_is_cut_off_at_the_time_limit(self, site, monkeypatch):
        """Each byte comes well within the read timeout, so only a deadline for the whole
        request ends it (it used to hold the worker until the task's time limit, an hour)."""
        monkeypatch.setattr(fetching, "TOTAL_SECONDS", 1.0)
        site.pages["/goteo"] = Page(b"<html><p>gota</p></html>", trickle=0.05)
        started = time.monotonic()

        with pytest.raises(FetchError, match="longer than 1 seconds"):
            fetching.Fetcher(min_delay=0).get(site.url("/goteo"), accept=fetching.HTML_TYPES)
        assert time.monotonic() - started < 10  # its headers take 15 s

    def test_redirects_are_followed_and_each_hop_is_checked(self, site):
        site.pages["/viejo"] = Page(b"", status=301, location="/ayuda/pagos")
        site.pages["/fuera"] = Page(b"", status=302, location="http://127.0.0.2:1/admin")
        site.pages["/bucle"] = Page(b"", status=302, location="/bucle")
        with fetching.Fetcher() as fetcher:
            assert fetcher.get(site.url("/viejo"), accept=fetching.HTML_TYPES).url == site.url(
                "/ayuda/pagos"
            )
            with pytest.raises(FetchError, match="127.0.0.2 is a private, loopback or reserved"):
                fetcher.get(site.url("/fuera"), accept=fetching.HTML_TYPES)
            with pytest.raises(FetchError, match="redirects more than 5 times"):
                fetcher.get(site.url("/bucle"), accept=fetching.HTML_TYPES)


@pytest.mark.django_db
class TestRefusedAddresses:
    def test_a_loopback_host_not_allowed_is_refused_before_any_connection(self, site, settings):
        settings.SOURCES_ALLOWED_HOSTS = []
        with pytest.raises(
            FetchError, match=r"localhost resolves to (127\.0\.0\.1|::1), a private, loopback"
        ):
            source_add(url=f"http://localhost:{site.port}/ayuda/horario", license=None)
        assert site.requests == [] and not Source.objects.exists()

    def test_an_address_written_as_one_is_named_once(self, site, settings):
        settings.SOURCES_ALLOWED_HOSTS = []
        with pytest.raises(FetchError) as refused:
            source_add(url=f"http://127.0.0.1:{site.port}/ayuda/horario", license=None)
        # It read "127.0.0.1 resolves to 127.0.0.1, a private…" in the console.
        assert refused.value.english.startswith("127.0.0.1 is a private, loopback")
        assert site.requests == [] and not Source.objects.exists()

    @pytest.mark.parametrize(
        "address",
        [
            "127.0.0.1", "10.1.2.3", "172.16.0.9", "192.168.1.1", "169.254.169.254", "100.64.0.1",
            "0.0.0.0", "224.0.0.1", "::1", "fe80::1", "fc00::1", "::ffff:127.0.0.1", "::ffff:169.254.169.254",
        ],
    )  # fmt: skip
    def test_private_metadata_and_reserved_ranges_are_refused_by_the_address_check(self, address):
        assert address_refusal("intranet.example", 80, [address], allowed=[]) != ""

    def test_public_addresses_and_exactly_allowed_hosts_pass(self):
        assert (
            address_refusal(
                "example.com", 443, ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"], []
            )
            == ""
        )
        assert address_refusal("wiki.intranet", 8080, ["10.0.0.5"], ["wiki.intranet:8080"]) == ""
        assert (
            address_refusal("wiki.intranet", 8081, ["10.0.0.5"], ["wiki.intranet:8080"])
            == "10.0.0.5"
        )
        # One private address among public ones is enough to refuse (DNS answers vary).
        assert address_refusal("mixed.example", 80, ["93.184.215.14", "10.0.0.5"], []) == "10.0.0.5"

    @pytest.mark.parametrize(
        "url", ["ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)", "http:///x"]
    )
    def test_only_http_and_https_addresses(self, url):
        with pytest.raises(FetchError, match="Only http:// and https://"):
            source_add(url=url, license=None)


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_the_source_command(site):
    def run(*args):
        out = StringIO()
        call_command("source", *args, stdout=out, stderr=StringIO())
        return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]

    [added] = run("add", site.url("/sitemap.xml"), "--mode", "sitemap", "--every", "6", "--json")
    assert added["mode"] == "sitemap" and added["every_hours"] == 6 and added["scope"] == "global"
    [checked] = run("check", added["id"], "--json")
    assert checked["new"] == 5
    [listing] = run("list", "--json")
    assert listing[0]["pages"] == 5 and listing[0]["last_result"]["new"] == 5
    [forgotten] = run("forget", added["id"], "--json")
    assert forgotten["documents_forgotten"] == 5
    with pytest.raises(CommandError, match="resolves to"):
        call_command("source", "add", "http://localhost:9/", stdout=StringIO())
    # One sentence named every limit at once, and a depth of -1 was taken.
    for option, value, said in [
        ("--every", "0", "checked every 1 to 8760 hours \\(a year\\); 0 was given"),
        ("--max-pages", "10001", "keeps 1 to 10000 pages; 10001 was given"),
        ("--max-depth", "-1", "followed 0 to 10 deep; -1 was given"),
    ]:
        with pytest.raises(CommandError, match=said):
            call_command("source", "add", site.url("/"), option, value, stdout=StringIO())
    # An id that is no id at all was a ValidationError's traceback.
    for action, wrong in [("check", "not-an-id"), ("forget", ""), ("forget", added["id"])]:
        with pytest.raises(CommandError, match="No source with id.*source list"):
            call_command("source", action, wrong, stdout=StringIO())


@pytest.mark.django_db(transaction=True)
def test_a_check_queued_to_the_real_worker(celery_worker, settings, media_root):
    """The task path: beat's due sources → a check in the worker → pages ingested there."""
    from knowledge.tasks import sources_check_due_task  # noqa: PLC0415

    settings.MEDIA_ROOT = media_root  # the worker reads the same files
    website = Website(port=WORKER_SITE_PORT)
    server = website.start()
    settings.SOURCES_ALLOWED_HOSTS = [f"127.0.0.1:{WORKER_SITE_PORT}"]
    try:
        website.html(
            "/faq", "FAQ", "El ascensor de servicio se revisa el primer martes de cada mes."
        )
        source_add(url=website.url("/faq"), license=None)

        assert sources_check_due_task.delay().get(timeout=60) == 1  # as beat queues it
        wait_until(
            lambda: Document.objects.filter(status=DocumentStatus.READY).exists(),
            timeout=120,
            what="the page ingested by the worker",
        )
        assert Source.objects.get().last_result["new"] == 1
        assert sources_check_due_task.delay().get(timeout=60) == 0  # not due again so soon
    finally:
        server.shutdown()


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
class TestConsole:
    @pytest.fixture
    def queued(self, monkeypatch):
        """The checks the console queues (the worker's path is tested above)."""
        from knowledge import queue  # noqa: PLC0415

        calls: list[str] = []
        monkeypatch.setattr(
            queue, "task_send", lambda _name, source_id: calls.append(source_id) or True
        )
        return calls

    def test_an_editor_adds_checks_and_forgets_a_source(
        self, site, client, admin_user, queued, django_capture_on_commit_callbacks
    ):
        from tests.factories import as_owner  # noqa: PLC0415

        client.force_login(as_owner(admin_user))
        with django_capture_on_commit_callbacks(execute=True):  # queued once it is stored
            response = client.post(
                "/knowledge/sources/",
                {"url": site.url("/sitemap.xml"), "scope": "global", "mode": "sitemap",
                 "every_hours": 12, "max_pages": 50, "max_depth": 2},
            )  # fmt: skip
        source = Source.objects.get()
        assert response.status_code == 302 and queued == [str(source.pk)]
        # Not checked yet: no "0 página" (0 is singular in Brazilian Portuguese's rule)
        unchecked = client.get(f"/knowledge/sources/{source.pk}/", HTTP_ACCEPT_LANGUAGE="pt-br")
        assert ">Páginas</h2>" in unchecked.content.decode()
        source_check(source_id=source.pk, enqueue=False)  # what the queued check does

        page = client.get(f"/knowledge/sources/{source.pk}/").content.decode()
        assert site.url("/ayuda/horario") in page and "5 new" in page
        # When it was checked reads as a time ago, not a bare "0 minutos".
        listed = client.get("/knowledge/sources/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
        assert re.search(
            r'"Última comprobación">(hace (un |\d+\xa0)(segundos?|minutos?)|ahora)</td>', listed
        )
        with django_capture_on_commit_callbacks(execute=True):
            assert client.post(f"/knowledge/sources/{source.pk}/check").status_code == 302
        assert queued == [str(source.pk)] * 2
        client.post(f"/knowledge/sources/{source.pk}/forget")
        assert not Source.objects.exists() and not Document.objects.exists()

    def test_a_refused_address_is_explained_on_the_form(self, client, admin_user, settings, queued):
        from tests.factories import as_owner  # noqa: PLC0415

        settings.SOURCES_ALLOWED_HOSTS = []
        client.force_login(as_owner(admin_user))
        response = client.post(
            "/knowledge/sources/",
            {"url": "http://localhost:9/", "scope": "global", "mode": "page", "every_hours": 24,
             "max_pages": 50, "max_depth": 2},
            HTTP_ACCEPT_LANGUAGE="es",
        )  # fmt: skip
        assert response.status_code == 200 and not Source.objects.exists() and queued == []
        assert "dirección privada" in response.content.decode()

    def test_support_may_look_but_not_add(self, client, django_user_model, queued):
        from accounts.roles import role_grant  # noqa: PLC0415

        user = django_user_model.objects.create_user("apoyo", password="x", is_staff=True)
        role_grant(username="apoyo", role="support")
        client.force_login(user)
        assert client.get("/knowledge/sources/").status_code in (200, 403)
        response = client.post(
            "/knowledge/sources/", {"url": "https://example.com/", "scope": "global"}
        )
        assert response.status_code == 403 and not Source.objects.exists()


@pytest.mark.django_db
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_one_check_of_a_source_at_a_time(site, other_session):
    """Check now pressed while beat's check runs: the second one says so and changes nothing."""
    import threading  # noqa: PLC0415

    from web.exceptions import ApplicationError  # noqa: PLC0415

    source = source_add(url=site.url("/ayuda/horario"), license=None)
    key = lock_key(source.pk)
    other_session.execute("SELECT pg_advisory_lock(%s)", [key])
    with pytest.raises(ApplicationError, match="being checked already"):
        source_check(source_id=source.pk, enqueue=False)
    assert not Document.objects.exists() and site.requests == []
    # The command waits for the running check instead (here: it ends a second later).
    threading.Timer(
        1.0, lambda: other_session.execute("SELECT pg_advisory_unlock(%s)", [key])
    ).start()
    assert source_check(source_id=source.pk, enqueue=False, wait_seconds=30).new == 1


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("fake_embedder", "media_root")
def test_a_source_forgotten_during_its_check_leaves_no_page_s_document(site):
    """Forget pressed while a check ran: the page being written then became a document
    nothing pointed to any more — searchable, in no table row to forget it by."""
    from tests.concurrency import twice_at_once

    source = source_add(url=site.url("/sitemap.xml"), license=None, mode="sitemap")

    checked, forgotten, waited = twice_at_once(
        Document,
        lambda: source_check(source_id=source.pk, enqueue=False),
        lambda: source_forget(source=Source.objects.get(pk=source.pk)),
    )

    assert waited and forgotten == 1, forgotten  # it waited for the page, then forgot it
    assert checked.new == 1 and not isinstance(checked, Exception)  # and the check stopped
    assert not Document.objects.exists() and not SourcePage.objects.exists()
    assert not found("oficina atención lunes")
    with pytest.raises(ApplicationError, match="This source was forgotten"):
        source_check(source_id=source.pk)  # a check queued before it was forgotten
