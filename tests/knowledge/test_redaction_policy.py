"""What is redacted is the organisation's choice: per scope, per upload, with an allow-list of
its own contact details — through ingestion, search, the console and the command line."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from knowledge.models import Document, Redaction, RedactionPolicy
from knowledge.policies import redaction_policy_set
from knowledge.search import SearchOptions, search
from licenses.principals import principal_for_admin
from tests.factories import as_owner, make_document, make_license
from web.exceptions import ApplicationError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]

HANDBOOK = (
    "# Manual del residente\n\nPara cualquier incidencia escribe a soporte@alamos.example o "
    "llama a la conserjería al +34 910 000 000, de lunes a viernes."
)
COMPLAINT = (
    "# Queja\n\nLa vecina del 3ºB (luisa.gomez@gmail.com, 612 345 678) se queja del ruido. "
    "Copia a soporte@alamos.example."
)
OURS = ["soporte@alamos.example", "+34 910 000 000"]


def text_of(document: Document) -> str:
    return " ".join(document.chunks.values_list("content", flat=True))


def test_a_handbook_that_keeps_our_contacts_is_searchable_by_them_and_others_stay_redacted():
    redaction_policy_set(license=None, kinds=["EMAIL", "PHONE"], keep_contacts=False, allow=OURS)
    handbook = make_document(HANDBOOK, filename="manual.md", redaction=Redaction.KEEP_CONTACTS)
    complaint = make_document(COMPLAINT, filename="queja.md")  # the scope's default

    assert "soporte@alamos.example" in text_of(handbook)
    assert "+34 910 000 000" in text_of(handbook)
    assert handbook.metadata["pii_kept"] == {"EMAIL": 1, "PHONE": 1}
    assert handbook.metadata["pii_redacted"] == {}
    assert "luisa.gomez@gmail.com" not in text_of(complaint)
    assert "soporte@alamos.example" not in text_of(complaint)  # the default does not keep them
    assert complaint.metadata["pii_redacted"] == {"EMAIL": 2, "PHONE": 1}

    found = search(
        principal=principal_for_admin("admin", license=None),
        query="soporte@alamos.example",
        options=SearchOptions(strategy="keyword", min_score=0.0),
    )
    assert [r.filename for r in found.results] == ["manual.md"]


def test_keeping_by_default_still_redacts_everyone_else_and_all_ignores_the_list():
    redaction_policy_set(license=None, kinds=["EMAIL", "PHONE"], keep_contacts=True, allow=OURS)
    complaint = make_document(COMPLAINT, filename="queja.md")
    everything = make_document(HANDBOOK, filename="manual.md", redaction=Redaction.ALL)
    nothing = make_document(COMPLAINT + " ", filename="publico.md", redaction=Redaction.NONE)

    assert "soporte@alamos.example" in text_of(complaint)
    assert "luisa.gomez@gmail.com" not in text_of(complaint) and "612 345 678" not in text_of(
        complaint
    )
    assert "soporte@alamos.example" not in text_of(everything)
    assert "luisa.gomez@gmail.com" in text_of(nothing)
    assert nothing.metadata["redaction"] == {"choice": "none", "kinds": []}


def test_a_license_chooses_its_own_kinds_and_adds_to_the_global_allow_list():
    sala = make_license(machine_id="sala")
    redaction_policy_set(license=None, kinds=["EMAIL", "PHONE"], keep_contacts=False, allow=OURS)
    redaction_policy_set(license=sala, kinds=["EMAIL"], keep_contacts=True, allow=["@sala.example"])
    text = "Escribe a info@sala.example, a soporte@alamos.example o a ana@gmail.com; móvil 612 345 678."
    own = make_document(f"# Aviso\n\n{text}", filename="aviso.md", license=sala)
    shared = make_document(f"# Aviso\n\n{text}", filename="aviso.md")

    assert "info@sala.example" in text_of(own) and "soporte@alamos.example" in text_of(own)
    assert "ana@gmail.com" not in text_of(own)
    assert "612 345 678" in text_of(own)  # this license does not redact phones
    assert "612 345 678" not in text_of(shared) and "info@sala.example" not in text_of(shared)


def test_a_bad_policy_is_refused_whole():
    redaction_policy_set(license=None, kinds=["EMAIL"], keep_contacts=False, allow=OURS)
    with pytest.raises(ApplicationError, match="not an e-mail address"):
        redaction_policy_set(license=None, kinds=["PHONE"], keep_contacts=True, allow=["alamos"])
    with pytest.raises(ApplicationError, match="Unknown kind"):
        redaction_policy_set(license=None, kinds=["PASSPORT"], keep_contacts=True, allow=[])
    policy = RedactionPolicy.objects.get(license=None)
    assert (policy.kinds, policy.keep_contacts, policy.allow) == (["EMAIL"], False, OURS)


@pytest.fixture
def owner_client(client, django_user_model):
    as_owner(django_user_model.objects.create_user("owner", password="pw", is_staff=True))
    client.force_login(django_user_model.objects.get(username="owner"))
    return client


def test_console_upload_asks_to_keep_our_contacts_and_the_preview_says_what_was_redacted(
    owner_client,
):
    redaction_policy_set(license=None, kinds=["EMAIL", "PHONE"], keep_contacts=False, allow=OURS)
    response = owner_client.post(
        "/knowledge/upload",
        {
            "file": SimpleUploadedFile("queja.md", COMPLAINT.encode()),
            "scope": "global",
            "source_type": "other",
            "language": "auto",
            "redaction": "keep_contacts",
        },
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 201
    document = Document.objects.get()
    assert document.redaction == Redaction.KEEP_CONTACTS
    from knowledge.ingestion import document_ingest

    document_ingest(document_id=document.pk)
    page = owner_client.get(
        f"/knowledge/{document.pk}/", HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert "Conservados como datos de contacto propios de la organización" in page
    assert (
        '<mark class="redacted" title="Ocultado antes de guardar: direcciones de correo electrónico">[EMAIL]</mark>'
        in page
    )
    assert "soporte@alamos.example" in page
    # The newcomer's finding: reasons only as hover tooltips, kept contacts not marked.
    assert '<mark class="kept"' in page and ">soporte@alamos.example</mark>" in page
    legend = page.split('class="muted small redaction-legend">')[1].split("</p>")[0]
    assert "[EMAIL]" in legend and "ocultad" in legend.lower()


def test_console_policy_page_sets_a_scope_and_refuses_a_bad_entry(owner_client):
    sala = make_license(machine_id="sala")
    assert owner_client.get("/knowledge/redaction/?scope=sala").status_code == 200
    refused = owner_client.post(
        "/knowledge/redaction/?scope=sala", {"kinds": ["EMAIL"], "allow": "alamos"}
    )
    assert refused.status_code == 200 and not RedactionPolicy.objects.exists()
    saved = owner_client.post(
        "/knowledge/redaction/?scope=sala",
        {"kinds": ["EMAIL", "PHONE"], "keep_contacts": "on", "allow": "soporte@alamos.example\n"},
    )
    assert saved.status_code == 302
    policy = RedactionPolicy.objects.get(license=sala)
    assert (policy.kinds, policy.keep_contacts, policy.allow) == (
        ["EMAIL", "PHONE"],
        True,
        ["soporte@alamos.example"],
    )
    owner_client.post("/knowledge/redaction/?scope=sala", {"reset": "1"})
    assert not RedactionPolicy.objects.filter(license=sala).exists()
    assert owner_client.get("/knowledge/redaction/?scope=nadie").status_code == 404


def test_only_owners_set_the_policy(client, django_user_model):
    from accounts.roles import role_grant

    editor = django_user_model.objects.create_user("ed", password="pw", is_staff=True)
    role_grant(username="ed", role="knowledge_editor")
    client.force_login(editor)
    assert client.get("/knowledge/redaction/").status_code == 403
    assert client.post("/knowledge/redaction/", {"kinds": []}).status_code == 403


def test_ingest_command_takes_the_redaction(tmp_path, capsys):
    redaction_policy_set(license=None, kinds=["EMAIL", "PHONE"], keep_contacts=False, allow=OURS)
    handbook = tmp_path / "manual.md"
    handbook.write_text(HANDBOOK)
    call_command("ingest", str(handbook), "--redaction", "keep_contacts", "--json")
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert "soporte@alamos.example" in text_of(Document.objects.get(pk=line["document_id"]))


def test_every_kind_s_placeholder_is_marked_with_what_it_hides():
    """A kind added to the redactor is marked in chunk text like the others."""
    from knowledge.redaction import KINDS
    from knowledge.templatetags.knowledge_tags import redaction_marked

    for kind in KINDS:
        assert '<mark class="redacted" title="Redacted before storing: ' in redaction_marked(
            f"Texto [{kind}] aquí."
        ), kind
