"""The console in Spanish and Brazilian Portuguese: what is translated so far is served by
the admin's language, and the catalogs are complete and compiled."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import polib
import pytest

from tests.factories import as_owner
from tests.portality.i18n_support import (
    SAME_IN_EVERY_LANGUAGE,
    english_left,
    english_phrases,
    untranslated_template_texts,
)
from tests.portality.test_layout import PRODUCT

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = sorted((ROOT / "locale").glob("*/LC_MESSAGES/django.po"))


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(
        as_owner(django_user_model.objects.create_user("admin", password="pw", is_staff=True))
    )
    return client


def test_there_are_catalogs_for_spanish_and_brazilian_portuguese():
    assert {path.parts[-3] for path in CATALOGS} == {"es", "pt_BR"}


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parts[-3])
def test_every_entry_is_translated_and_none_is_fuzzy(path):
    catalog = polib.pofile(str(path))
    assert not catalog.metadata_is_fuzzy
    assert [e.msgid for e in catalog.untranslated_entries()] == []
    assert [e.msgid for e in catalog.fuzzy_entries()] == []
    # Spanish has three plural forms (the third for millions): a missing one reads as empty.
    forms = int(re.search(r"nplurals=(\d+)", catalog.metadata["Plural-Forms"]).group(1))
    short = [
        e.msgid
        for e in catalog
        if e.msgid_plural
        and sorted(k for k, v in e.msgstr_plural.items() if v) != list(range(forms))
    ]
    assert short == []


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parts[-3])
def test_the_committed_mo_is_the_po_compiled(path, tmp_path):
    compiled = tmp_path / "django.mo"
    polib.pofile(str(path)).save_as_mofile(str(compiled))
    assert compiled.read_bytes() == path.with_suffix(".mo").read_bytes(), (
        "run `make messages` (or .venv/bin/python scripts/messages.py) and commit the .mo"
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "expected", "english"),
    [
        (
            "pt-BR,pt;q=0.9",
            ["Painel", "Conhecimento", "Documentos por status", "Sair"],
            "Recent failures",
        ),
        (
            "es-ES,es;q=0.9",
            ["Panel", "Conocimiento", "Documentos por estado", "Salir"],
            "Recent failures",
        ),
        ("en-US,en", ["Dashboard", "Knowledge", "Recent failures", "Log out"], "Documentos"),
    ],
)
def test_the_dashboard_follows_the_browser_language(admin_client, accept, expected, english):
    html = admin_client.get("/", HTTP_ACCEPT_LANGUAGE=accept).content.decode()
    for text in expected:
        assert text in html
    assert english not in html


@pytest.mark.django_db
def test_the_switcher_sets_the_language(admin_client):
    response = admin_client.post("/i18n/setlang/", {"language": "pt-br", "next": "/"})
    assert response.status_code == 302
    html = admin_client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="pt-br">' in html and "Painel" in html


@pytest.mark.django_db
@pytest.mark.parametrize("accept", ["es", "pt-br", "en"])
def test_the_switcher_names_each_language_as_it_names_itself(admin_client, accept):
    html = admin_client.get("/", HTTP_ACCEPT_LANGUAGE=accept).content.decode()
    options = re.findall(r'<option value="([a-z-]+)" lang="[a-z-]+"[^>]*>([^<]+)</option>', html)
    assert options == [("en", "English"), ("es", "Español"), ("pt-br", "Português Brasileiro")]


# -- nothing a person reads escapes translation ------------------------------------------------

TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))


def test_the_checks_find_an_unmarked_string():
    source = '<p>{% translate "Fine" %}</p><button title="Forget it">{{ n }} Forget</button>'
    assert untranslated_template_texts(source, SAME_IN_EVERY_LANGUAGE) == ["Forget it", "Forget"]


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT / "templates")))
def test_every_template_string_is_marked_for_translation(path):
    found = untranslated_template_texts(path.read_text(), SAME_IN_EVERY_LANGUAGE)
    assert found == [], f"wrap these in {{% translate %}} / {{% blocktranslate %}}: {found}"


SCRIPTS = sorted((ROOT / "static" / "js").glob("*.js"))
_TRANSLATED_CALL = re.compile(
    r'\b(?:gettext|ngettext)\(\s*"(?:[^"\\]|\\.)*"(?:\s*,\s*"(?:[^"\\]|\\.)*")?'
)
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
# Words a script uses as code: event names, headers, keys, HTTP methods.
_CODE_WORDS = {"Accept", "POST", "Enter", "Content-Type", "X-CSRFToken"}


# Class names: el(tag, "classes", …) and className = "…".
_CLASS_NAMES = re.compile(r'\bel\("\w+", "[^"]*"|className = "[^"]*"')


def prose_outside_gettext(script: str) -> list[str]:
    script = _TRANSLATED_CALL.sub("gettext(", script)
    script = _CLASS_NAMES.sub("", script.replace('"use strict"', ""))
    script = re.sub(r"^\s*//.*$", "", script, flags=re.MULTILINE)
    return [
        text
        for text in _STRING.findall(script)
        if text not in _CODE_WORDS
        and not re.search(r"[\[\]=#]", text)  # a CSS selector
        and (re.search(r"[A-Za-z]{2,} [A-Za-z]{2,}", text) or re.fullmatch(r"[A-Z][a-z]+\W?", text))
    ]


def test_the_script_check_finds_an_unmarked_string():
    script = 'a = gettext("Retry"); b = "Copied"; c = el("p", "chat muted", "Not sent yet");'
    assert prose_outside_gettext(script + 'd = ngettext("x y", "x ys", n);') == [
        "Copied",
        "Not sent yet",
    ]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_every_console_script_string_goes_through_the_catalog(path):
    assert prose_outside_gettext(path.read_text()) == []


# -- every console page, in Portuguese and Spanish -------------------------------------------


@pytest.fixture
def console_data(media_root, fake_embedder):
    from knowledge.models import DocumentStatus
    from licenses.services import license_forge
    from tests.factories import make_document
    from tests.memory.support import consent, propose

    license = license_forge(
        user_name="Ana", machine_id="sala-01", allowed_origins=["https://app.example.com"]
    ).license
    ready = make_document("# Horario\n\nLa piscina abre a las 8.", filename="horario.md")
    failed = make_document("  \n\t  ", filename="vacio.txt", license=license)
    assert failed.status == DocumentStatus.FAILED
    consent(license, "ana")
    propose(license, "Prefiere la sala con vistas al jardín")
    source = _source_with_pages(ready)
    return {"license": license, "ready": ready, "failed": failed, "source": source}


def _source_with_pages(document):
    """A web source as a check leaves it: one page kept, one failing with its reason."""
    from django.utils import timezone  # noqa: PLC0415

    from knowledge.models import Source, SourcePage  # noqa: PLC0415

    source = Source.objects.create(
        url="https://ayuda.example.com/sitemap.xml",
        mode="sitemap",
        last_checked_at=timezone.now(),
        next_check_at=timezone.now(),
        last_result={"new": 1, "changed": 0, "unchanged": 0, "removed": 0, "errors": 1},
    )
    SourcePage.objects.create(
        source=source, url="https://ayuda.example.com/horario", document=document
    )
    SourcePage.objects.create(
        source=source,
        url="https://ayuda.example.com/lento",
        error="https://ayuda.example.com/lento took longer than 30 seconds to answer.",
        error_i18n={
            "template": "%(url)s took longer than %(limit)s seconds to answer.",
            "params": {"url": "https://ayuda.example.com/lento", "limit": 30},
        },
    )
    return source


def console_pages(data) -> list[str]:
    return [
        "/",
        "/knowledge/",
        f"/knowledge/{data['ready'].pk}/",
        f"/knowledge/{data['failed'].pk}/",
        "/knowledge/search/?query=piscina+horario&scope=global",
        "/knowledge/search/?query=zzz&scope=global&min_score=0.99",
        "/licenses/",
        f"/licenses/{data['license'].pk}/",
        "/memories/",
        "/chat/",
        "/knowledge/redaction/",
        "/knowledge/redaction/?scope=sala-01",
        "/chat/assistant/",
        f"/chat/assistant/{data['license'].pk}/",
        "/knowledge/sources/",
        f"/knowledge/sources/{data['source'].pk}/",
        "/account/members/",
        "/account/tokens/",
        "/account/audit/",
        "/accounts/two-factor/",
    ]


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
@pytest.mark.django_db
@pytest.mark.parametrize("accept", ["pt-BR,pt;q=0.9", "es-ES,es;q=0.9"])
def test_every_console_page_is_free_of_english(admin_client, console_data, accept):
    phrases = english_phrases()
    left = {}
    for url in console_pages(console_data):
        response = admin_client.get(url, HTTP_ACCEPT_LANGUAGE=accept)
        assert response.status_code == 200, url
        if found := english_left(response.content.decode(), phrases):
            left[url] = sorted(found)
    assert left == {}


@pytest.mark.slow  # over a second on its own (make test-fast leaves it out)
@pytest.mark.django_db
def test_the_english_detector_sees_the_english_console(admin_client, console_data):
    """The check above can fail: in English, every page shows some of those phrases."""
    phrases = english_phrases()
    for url in console_pages(console_data):
        html = admin_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert english_left(html, phrases), url


# DRF's exceptions, permission classes and our ApplicationError: what they carry reaches a
# person (an API "detail", a form error, a document's stored failure).
_API_ERRORS = {
    "APIException", "ApplicationError", "AuthenticationFailed", "MethodNotAllowed", "NotAcceptable",
    "NotAuthenticated", "NotFound", "ParseError", "PermissionDenied", "Throttled",
    "UnsupportedMediaType", "ValidationError",
}  # fmt: skip


def untranslated_api_errors(source: str) -> list[str]:
    """Literal strings raised as an API error, or set as a permission's ``message`` (these
    reach a client as ``detail``, so they must go through gettext)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            texts = node.args[:1] if name in _API_ERRORS else []
            if texts and isinstance(texts[0], ast.Dict):  # ValidationError({"field": "…"})
                texts = list(texts[0].values)
        elif isinstance(node, ast.ClassDef):
            texts = [
                statement.value
                for statement in node.body
                if isinstance(statement, ast.Assign)
                and any(
                    getattr(t, "id", "") in {"message", "default_detail"} for t in statement.targets
                )
            ]
        else:
            continue
        found += [
            t.value if isinstance(t, ast.Constant) else ast.unparse(t)  # an f-string: never
            for t in texts
            if isinstance(t, ast.JoinedStr)
            or (isinstance(t, ast.Constant) and isinstance(t.value, str))
        ]
    return found


def test_the_api_error_check_finds_an_unmarked_message():
    source = (
        "class P:\n    message = 'Sign in'\n\nclass Q:\n    message = _('Fine')\n"
        "raise exceptions.NotFound('No such memory.')\nraise NotFound(_('Fine'))\n"
        "raise PermissionDenied(f'For {origin}')\n"
        "raise ValidationError({'license': 'Name it.', 'user': _('Fine')})\n"
    )
    assert untranslated_api_errors(source) == [
        "Sign in",
        "No such memory.",
        "f'For {origin}'",
        "Name it.",
    ]


def test_every_api_error_goes_through_the_catalog():
    # A knowledge editor asking for conversations in Portuguese was refused in English.
    found = {
        f"{path.relative_to(ROOT)}: {text}"
        for app in PRODUCT
        for path in (ROOT / app).rglob("*.py")
        if "migrations" not in path.parts
        for text in untranslated_api_errors(path.read_text())
    }
    assert found == set(), "wrap these in gettext / gettext_lazy"


@pytest.mark.django_db
def test_a_role_refused_by_the_api_is_told_so_in_its_language(django_user_model):
    from rest_framework.test import APIClient

    from accounts.roles import role_grant

    django_user_model.objects.create_user("kim", password="Correct-Horse-Battery-9")
    role_grant(username="kim", role="knowledge_editor")
    client = APIClient(HTTP_ACCEPT_LANGUAGE="pt-BR")
    client.force_authenticate(django_user_model.objects.get(username="kim"))

    response = client.get("/api/v1/conversations")

    assert response.status_code == 403
    assert response.json()["detail"].startswith("Entre com uma conta do console cujo papel")
    assert (
        client.post("/api/v1/search", b"{", content_type="application/json")
        .json()["detail"]
        .startswith("O corpo não é um JSON válido")
    )


@pytest.mark.django_db
@pytest.mark.usefixtures("media_root", "fake_embedder")
@pytest.mark.parametrize(
    ("language", "blank", "throttled"),
    [
        ("pt-BR", "Este campo não pode ficar em branco.", "Pedidos demais em pouco tempo. "
         "Tente de novo em"),
        ("es", "Este campo no puede quedar en blanco.", "Demasiadas solicitudes en poco tiempo. "
         "Inténtalo de nuevo en"),
    ],
)  # fmt: skip
def test_the_framework_s_own_messages_read_right_in_spanish_and_portuguese(
    settings, language, blank, throttled
):
    """A tour of the REST chat API in Portuguese: a blank message was "Este campo pode não
    estar em branco" (DRF's pt_BR: "it might not be blank"); over the rate limit, Spanish
    read "Solicitud fue regulada (throttled)"."""
    from rest_framework.test import APIClient

    from licenses.services import license_forge

    settings.SEARCH_RATE_PER_LICENSE_PER_MINUTE = 1
    client = APIClient(HTTP_ACCEPT_LANGUAGE=language)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {license_forge(user_name='Ana').key}")

    said = client.post("/api/v1/search", {"query": ""}, format="json").json()["detail"]
    assert said == f"query: {blank}"
    client.post("/api/v1/search", {"query": "piscina"}, format="json")
    refused = client.post("/api/v1/search", {"query": "piscina"}, format="json")
    assert refused.status_code == 429
    assert refused.json()["detail"].startswith(throttled), refused.json()


# -- what the API, the scripts and stored failures say ------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "missing", "refused"),
    [
        (
            "pt-BR",
            "As credenciais de autenticação não foram fornecidas.",
            "https://x.example não está entre as origens do widget desta licença",
        ),
        (
            "es",
            "Las credenciales de autenticación no se proveyeron.",
            "https://x.example no está entre los orígenes del widget de esta licencia",
        ),
        (
            "en",
            "Authentication credentials were not provided.",
            "https://x.example is not among this license's widget origins",
        ),
    ],
)
def test_api_errors_follow_accept_language_and_keep_their_code(accept, missing, refused):
    from rest_framework.test import APIClient

    from licenses.services import license_forge

    client = APIClient(HTTP_ACCEPT_LANGUAGE=accept)
    response = client.post("/api/v1/search", {"query": "x"}, format="json")
    assert (response.status_code, response.json()) == (
        401,
        {"detail": missing, "code": "not_authenticated"},
    )
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {license_forge(user_name='Ana').key}")
    response = client.post(
        "/api/v1/widget/token", {"user": "u", "origin": "https://x.example"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["detail"].startswith(refused) and response.json()["code"] == "invalid"


@pytest.mark.django_db
def test_the_scripts_catalog_speaks_the_page_language(client):
    catalog = client.get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    assert "Esquecer selecionados" in catalog and "enviando\\u2026" in catalog


@pytest.mark.django_db
def test_a_stored_failure_is_shown_in_each_admin_language(admin_client, console_data):
    url = f"/knowledge/{console_data['failed'].pk}/"
    said = {
        accept: admin_client.get(url, HTTP_ACCEPT_LANGUAGE=accept).content.decode()
        for accept in ("en", "es", "pt-BR")
    }
    assert "No text could be extracted: the document is empty." in said["en"]
    assert "No se pudo extraer texto: el documento está vacío." in said["es"]
    assert "Não foi possível extrair texto: o documento está vazio." in said["pt-BR"]
    assert console_data["failed"].error == "No text could be extracted: the document is empty."


@pytest.mark.django_db
def test_the_switcher_leaves_the_pages_own_language_choices_alone(admin_client):
    """The header lists the site's languages under its own name: the knowledge page's
    document-language field still offers the document languages (a regression: it once
    offered en / es / pt-br, which uploads then refused)."""
    html = admin_client.get("/knowledge/", HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    field = re.search(r'<select id="upload-language".*?</select>', html, re.DOTALL).group(0)
    assert re.findall(r'value="([^"]+)"', field) == ["auto", "es", "pt", "en", "other"]
    assert ">Detectar<" in field


@pytest.mark.django_db
def test_a_processing_stage_is_named_in_the_admin_language(admin_client, console_data):
    from knowledge.models import Document, DocumentStatus

    document = console_data["ready"]
    Document.objects.filter(pk=document.pk).update(
        status=DocumentStatus.PROCESSING, stage="embedding", progress=40
    )
    url = f"/knowledge/{document.pk}/"
    assert (
        "calculando vetores · 40%"
        in admin_client.get(url, HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    )
    status = admin_client.get(f"{url}status", HTTP_ACCEPT_LANGUAGE="es").json()
    assert (status["stage"], status["stage_label"]) == ("embedding", "calculando vectores")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "phrase"),
    [("es-ES,es;q=0.9", "Volver a la consola"), ("pt-BR,pt;q=0.9", "Voltar ao console")],
)
def test_the_api_docs_page_has_the_console_header_in_the_readers_language(client, accept, phrase):
    html = client.get("/api/docs/", HTTP_ACCEPT_LANGUAGE=accept).content.decode()
    assert phrase in html and "Portality <strong>Brain</strong>" in html
    assert 'id="swagger-ui"' in html  # the reference itself, below


# Pictographs need an emoji font, which a kiosk or a server's desktop often lacks: there 👍
# showed as an empty box (the console's insights and review queue, the widget's rating).
PICTOGRAPH = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf]")
TEMPLATE_COMMENT = re.compile(r"\{% comment %\}.*?\{% endcomment %\}|\{#.*?#\}", re.S)
SCRIPT_COMMENT = re.compile(r"^\s*//.*$", re.M)


def test_no_text_a_person_sees_needs_an_emoji_font():
    shown = {
        str(path): TEMPLATE_COMMENT.sub("", path.read_text())
        for path in (ROOT / "templates").rglob("*.html")
    }
    shown |= {
        str(path): SCRIPT_COMMENT.sub("", path.read_text())
        for path in (ROOT / "static").rglob("*.js")
    }
    for app in PRODUCT:
        for path in (ROOT / app).rglob("*.py"):
            shown[str(path)] = " ".join(_strings_outside_docstrings(path))
    for language in ("es", "pt_BR"):
        catalog = polib.pofile(str(ROOT / "locale" / language / "LC_MESSAGES" / "django.po"))
        for entry in catalog.translated_entries():
            texts = [entry.msgid, entry.msgstr, *entry.msgstr_plural.values()]
            shown[f"{language}: {entry.msgid[:40]}"] = " ".join(texts)
    assert {
        where: PICTOGRAPH.findall(text) for where, text in shown.items() if PICTOGRAPH.search(text)
    } == {}


def _strings_outside_docstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


# Spanish speaks to the reader as "tú" throughout; the formal "usted" had crept into the
# upload's errors and the dashboard's first steps ("suelte", "Ábralo, guárdelo y suba").
USTED = re.compile(
    r"\b(suba|suelte|pregunte|elija|inicie sesión|envíe|quite|compruebe|mantenga|desmarque|pulse|"
    r"introduzca|seleccione|escriba|inténtelo|ábralo|guárdelo|guárdela|súbalo|súbala|"
    r"divídalo|expórtelo|usted)\b",
    re.IGNORECASE,
)


def test_spanish_speaks_to_the_reader_as_tu():
    entries = [
        entry
        for domain in ("django", "djangojs")
        for entry in polib.pofile(
            str(ROOT / "locale" / "es" / "LC_MESSAGES" / f"{domain}.po")
        ).translated_entries()
    ]
    formal = {
        entry.msgid[:60]: USTED.findall(text)
        for entry in entries
        for text in (entry.msgstr, *entry.msgstr_plural.values())
        if USTED.search(text)
    }
    assert formal == {}
