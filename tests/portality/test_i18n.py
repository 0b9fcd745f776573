"""The console in Spanish and Brazilian Portuguese: what is translated so far is served by
the admin's language, and the catalogs are complete and compiled."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = sorted((ROOT / "locale").glob("*/LC_MESSAGES/django.po"))


@pytest.fixture
def admin_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("admin", password="pw", is_staff=True))
    return client


def test_there_are_catalogs_for_spanish_and_brazilian_portuguese():
    assert {path.parts[-3] for path in CATALOGS} == {"es", "pt_BR"}


@pytest.mark.parametrize("path", CATALOGS, ids=lambda p: p.parts[-3])
def test_every_entry_is_translated_and_none_is_fuzzy(path):
    catalog = polib.pofile(str(path))
    assert not catalog.metadata_is_fuzzy
    assert [e.msgid for e in catalog.untranslated_entries()] == []
    assert [e.msgid for e in catalog.fuzzy_entries()] == []


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
