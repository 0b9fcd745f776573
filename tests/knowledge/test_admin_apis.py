"""The admin API for documents and web sources: what the console does, for scripts."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.roles import role_grant
from knowledge.models import Document, DocumentStatus, Source
from knowledge.sources import source_check
from licenses.services import license_forge
from tests.documents import build
from tests.factories import as_owner

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_embedder", "media_root")]


@pytest.fixture
def api(django_user_model):
    user = as_owner(django_user_model.objects.create_user("api-owner", password="x", is_staff=True))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def test_upload_list_read_preview_and_forget_a_document(api, django_capture_on_commit_callbacks):
    sala = license_forge(user_name="Ana", machine_id="sala-api").license
    preview = api.post(
        "/api/v1/documents/preview",
        {"file": SimpleUploadedFile("deck.pptx", build("pptx")), "chunk_size": 64},
        format="multipart",
    )
    assert preview.status_code == 200, preview.content
    assert preview.json()["chunks"][0]["section"] == "Slide 1: Política de vacaciones"
    assert not Document.objects.exists()

    manual = build("docx")  # once: a ZIP's entries carry the time they were written
    created = api.post(
        "/api/v1/documents",
        {
            "file": SimpleUploadedFile("manual.docx", manual),
            "license": "sala-api",
            "split": "fixed",
        },
        format="multipart",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["kind"], body["scope"], body["split"], body["status"]) == (
        "docx",
        "sala-api",
        "fixed",
        "queued",
    )
    again = api.post(
        "/api/v1/documents",
        {"file": SimpleUploadedFile("m.docx", manual), "license": "sala-api"},
        format="multipart",
    )
    assert again.status_code == 200  # the same bytes in the same scope

    listed = api.get("/api/v1/documents", {"scope": "sala-api", "kind": "docx"}).json()
    assert [d["id"] for d in listed] == [body["id"]]
    assert api.get(f"/api/v1/documents/{body['id']}").json()["filename"] == "manual.docx"
    assert api.delete(f"/api/v1/documents/{body['id']}").status_code == 204
    assert not Document.objects.filter(license=sala).exists()


@pytest.mark.parametrize(
    ("fields", "status", "words"),
    [
        ({"file": ("m.docm", "macros")}, 400, "contains macros"),
        ({"license": "nadie"}, 404, "No license with machine_id nadie"),
        ({"chunk_size": 5}, 400, "chunk_size"),
    ],
)
def test_bad_uploads_get_a_sentence_and_store_nothing(api, fields, status, words):
    from tests.knowledge.test_formats import with_macros  # noqa: PLC0415

    data = {"file": SimpleUploadedFile("manual.docx", build("docx"))}
    if "file" in fields:
        data["file"] = SimpleUploadedFile(fields.pop("file")[0], with_macros(build("docx")))
    data.update(fields)
    response = api.post("/api/v1/documents", data, format="multipart")
    assert response.status_code == status and words in str(response.json())
    assert not Document.objects.exists()


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("es", "vacio.txt está vacío."),
        ("pt-br", "vacio.txt está vazio."),
        ("en", "vacio.txt is empty."),
    ],
)
def test_an_empty_file_is_refused_by_name_in_the_reader_s_language(api, language, sentence):
    """DRF refused it first, anonymously, and misspelt ("El archivo enviado está vació.")."""
    response = api.post(
        "/api/v1/documents",
        {"file": SimpleUploadedFile("vacio.txt", b"")},
        format="multipart",
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 400 and sentence in str(response.json())
    assert not Document.objects.exists()


def test_sources_through_the_api(api, settings, django_capture_on_commit_callbacks, monkeypatch):
    from knowledge import queue  # noqa: PLC0415
    from tests.website import Website  # noqa: PLC0415

    queued: list[str] = []
    monkeypatch.setattr(
        queue, "task_send", lambda _name, source_id: queued.append(source_id) or True
    )
    site = Website()
    server = site.start()
    settings.SOURCES_ALLOWED_HOSTS = [f"127.0.0.1:{site.port}"]
    settings.SOURCES_MIN_DELAY_SECONDS = 0
    try:
        site.html("/faq", "FAQ", "La sala de reuniones se reserva con un día de antelación.")
        with django_capture_on_commit_callbacks(execute=True):
            added = api.post(
                "/api/v1/sources", {"url": site.url("/faq"), "every_hours": 6}, format="json"
            )
        assert added.status_code == 201, added.content
        source_id = added.json()["id"]
        assert queued == [source_id]
        source_check(source_id=source_id, enqueue=False)

        detail = api.get(f"/api/v1/sources/{source_id}").json()
        assert detail["last_result"]["new"] == 1
        assert (
            detail["pages"][0]["url"] == site.url("/faq")
            and detail["pages"][0]["status"] == DocumentStatus.READY
        )
        with django_capture_on_commit_callbacks(execute=True):
            assert api.post(f"/api/v1/sources/{source_id}/check").status_code == 202
        assert len(queued) == 2
        assert api.delete(f"/api/v1/sources/{source_id}").status_code == 204
        assert not Source.objects.exists() and not Document.objects.exists()
    finally:
        server.shutdown()
    settings.SOURCES_ALLOWED_HOSTS = []
    refused = api.post("/api/v1/sources", {"url": "http://localhost:8/"}, format="json")
    assert refused.status_code == 400 and "loopback" in refused.json()["detail"]


def test_roles_and_license_keys(django_user_model):
    forged = license_forge(user_name="Ana", machine_id="sala-k")
    as_license = APIClient()
    as_license.credentials(HTTP_AUTHORIZATION=f"Bearer {forged.key}")
    assert as_license.get("/api/v1/documents").status_code in (401, 403)

    support = django_user_model.objects.create_user("apoyo", password="x", is_staff=True)
    role_grant(username="apoyo", role="support")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=support).key}")
    response = client.post("/api/v1/sources", {"url": "https://example.com/"}, format="json")
    assert response.status_code == 403 and not Source.objects.exists()
