"""Every console page on a 390 px phone, in a real Chromium, in each language: nothing makes
the page scroll sideways, tables of records read as cards instead of scrolling inside their
own box, and a select shows each of the product's own choices whole once chosen (their
explanations are help text). Screenshots go to test-results/e2e/phone-*.png."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils.timezone import now

from accounts.audit import audit_record
from accounts.members import invitation_create
from accounts.services import token_create
from knowledge.search import SearchOptions, search
from knowledge.searching import search_log_record
from licenses.principals import principal_for_admin
from licenses.services import license_forge
from tests.e2e.browser import chromium_page, log_in
from tests.e2e.test_admin_journey import make_memory, shot
from tests.factories import as_owner, make_document

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDE = "https://an-uncommonly-long-customer-origin.example.com"
MACHINE_ID = "sala-de-reuniones-del-edificio-norte-07"

# Each visible select, each option chosen in turn: the option's text against the room inside
# the box (its padding and the arrow's 16 px aside), measured in the select's own font.
CUT_CHOICES = """() => {
  const ruler = document.createElement('canvas').getContext('2d');
  const cut = [];
  for (const select of document.querySelectorAll('select')) {
    if (!select.offsetParent) continue;
    const chosen = select.selectedIndex;
    for (let i = 0; i < select.options.length; i++) {
      select.selectedIndex = i;
      const style = getComputedStyle(select);
      ruler.font = style.font;
      const room = select.clientWidth - parseFloat(style.paddingLeft)
        - parseFloat(style.paddingRight) - 16;
      const text = select.options[i].text;
      if (ruler.measureText(text).width > room) cut.push(`${select.id || select.name}: ${text}`);
    }
    select.selectedIndex = chosen;
  }
  return cut;
}"""


def console_urls(license, ready, failed, source) -> list[str]:
    return [
        "/",
        "/knowledge/",
        f"/knowledge/{ready.pk}/",
        f"/knowledge/{failed.pk}/",
        "/knowledge/search/?query=horario+de+la+piscina+comunitaria&scope=global",
        "/knowledge/redaction/",
        "/knowledge/sources/",
        f"/knowledge/sources/{source.pk}/",
        "/licenses/",
        f"/licenses/{license.pk}/",
        "/memories/",
        "/chat/",
        "/chat/assistant/",
        f"/chat/assistant/{license.pk}/",
        "/chat/providers/",
        "/conversations/",
        "/conversations/gaps/",
        "/conversations/insights/",
        "/account/members/",
        "/account/audit/",
        "/account/tokens/",
        "/api/docs/",
    ]


@pytest.mark.parametrize("locale", ["es-ES", "pt-BR", "en-US"])
def test_no_console_page_scrolls_sideways_on_a_phone(live_server, django_user_model, locale):
    urls = furnish_console(django_user_model)
    with chromium_page(locale=locale) as page:
        page.set_viewport_size({"width": 390, "height": 844})
        log_in(page, f"{live_server.url}/", "admin", "s3cret-pass")
        wide, framed, cut = {}, {}, {}
        for url in urls:
            page.goto(f"{live_server.url}{url}")
            page.wait_for_load_state("networkidle")
            width = page.evaluate("document.documentElement.scrollWidth")
            scrolling_tables = page.evaluate(SCROLLING_TABLES)
            # A name people chose can be longer than a phone: the picker shows it whole.
            choices = [c for c in page.evaluate(CUT_CHOICES) if MACHINE_ID not in c]
            if width > 390 or scrolling_tables:
                wide[url], framed[url] = width, scrolling_tables
            if choices:
                cut[url] = choices
            if width > 390 or scrolling_tables or choices:
                shot(page, f"phone-{locale}-{url.strip('/').replace('/', '-')[:40] or 'home'}")
        assert wide == {}, framed
        assert cut == {}


def furnish_console(django_user_model) -> list[str]:  # noqa: ANN001
    """An owner "admin" and records with long names on every console page; their URLs."""
    owner = django_user_model.objects.create_user("admin", password="s3cret-pass", is_staff=True)
    as_owner(owner)
    token_create(
        user=owner,
        name="integración-continua-del-edificio-norte",
        expires_at=now() + timedelta(days=30),
    )
    license = license_forge(
        user_name="Marta Fernández de la Concepción",
        machine_id=MACHINE_ID,
        allowed_origins=[WIDE],
    ).license
    make_memory(license)
    ready = make_document(
        "# Horario\n\nLa piscina comunitaria abre a las ocho de la mañana; "
        "escriba a administracion.general.del.condominio@example.com.",
        # one unbroken word: the newcomer's long file name scrolled the document page sideways
        filename="Horario_de_verano_de_la_piscina_comunitaria_del_condominio_2026.md",
        license=license,
    )
    failed = make_document("  \n\t  ", filename="documento-vacio-sin-texto-alguno.txt")
    source = long_source(ready)
    invitation_create(
        email="responsable.de.privacidad.del.condominio@example.com",
        role="privacy_officer",
        base_url="http://testserver",
    )
    audit_record(  # a detail as long as an uploaded file's name
        "knowledge.uploaded",
        target="document:1",
        details={"filename": "Horario_de_verano_de_la_piscina_comunitaria_del_condominio.md"},
    )
    admin = principal_for_admin("admin", license=None)
    for query in ("horario de la piscina comunitaria en verano", "reserva del salón de fiestas"):
        search_log_record(
            principal=admin, response=search(principal=admin, query=query, options=SearchOptions())
        )
    return console_urls(license, ready, failed, source)


# A table in a box that scrolls sideways: on a phone the row's last columns are out of sight.
SCROLLING_TABLES = """[...document.querySelectorAll('.table-wrap')]
  .filter(box => box.scrollWidth > box.clientWidth + 1)
  .map(box => box.querySelector('table')?.className || 'table')"""


def long_source(document):
    """A web source whose addresses are long unbroken words, with a failing page."""
    from knowledge.models import Source, SourcePage  # noqa: PLC0415

    base = "https://centro-de-ayuda-del-condominio-de-las-palmeras.example.com"
    source = Source.objects.create(
        url=f"{base}/preguntas-frecuentes/sitemap-de-todas-las-paginas.xml", mode="sitemap"
    )
    SourcePage.objects.create(
        source=source, url=f"{base}/preguntas-frecuentes/horario-de-la-piscina", document=document
    )
    SourcePage.objects.create(
        source=source,
        url=f"{base}/preguntas-frecuentes/pagina-que-tarda-demasiado-en-responder",
        error=f"{base}/preguntas-frecuentes/pagina-que-tarda-demasiado-en-responder took longer than 30 seconds to answer.",
    )
    return source
