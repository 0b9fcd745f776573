"""A document's new version, in its place: the service, the console's form and the admin
API's PUT."""

from __future__ import annotations

import io

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import AuditEntry
from knowledge import ingestion, reingestion
from knowledge.models import Chunk, Document, DocumentStatus, SourcePage
from tests.factories import as_owner, make_document, make_license
from tests.knowledge.test_sharing import GYM, HALL, POOL, POOL_HEATED, handbook
from web.exceptions import ApplicationError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_embedder", "media_root")]


def new_version(document, text, filename="manual.md"):
    return reingestion.document_new_version(
        document=document, file=io.BytesIO(text.encode()), filename=filename, enqueue=False
    )


def test_a_new_version_replaces_the_document_in_place(django_capture_on_commit_callbacks):
    document = make_document(handbook(), filename="manual.md")
    old_file = document.file.name

    with django_capture_on_commit_callbacks(execute=True):
        queued = new_version(document, handbook(POOL_HEATED), filename="manual-2026.md")
    assert queued.status == DocumentStatus.QUEUED
    assert Chunk.objects.filter(document=document).count() == 3  # searchable meanwhile
    ingestion.document_ingest(document_id=document.pk)

    document.refresh_from_db()
    assert (document.status, document.filename, document.chunk_count) == (
        "ready",
        "manual-2026.md",
        3,
    )
    assert [c.content for c in document.chunks.order_by("ordinal")] == [POOL_HEATED, GYM, HALL]
    assert document.metadata["vectors_reused"] == 2  # the unchanged sections
    assert not default_storage.exists(old_file)
    assert default_storage.open(document.file.name).read() == handbook(POOL_HEATED).encode()
    event = AuditEntry.objects.get(action="knowledge.new_version")
    assert event.details["new_filename"] == "manual-2026.md"


def test_a_new_version_may_change_the_format():
    document = make_document("Texto. " * 20, filename="nota.txt")

    new_version(document, "# Nota\n\nLa piscina abre a las ocho.", filename="nota.md")
    ingestion.document_ingest(document_id=document.pk)

    document.refresh_from_db()
    assert (document.kind, document.status) == ("md", "ready")


@pytest.mark.parametrize(
    ("text", "words"),
    [("", "is empty"), (None, "the version already stored")],
)
def test_a_refused_version_changes_nothing(text, words):
    document = make_document(handbook(), filename="manual.md")
    before = Document.objects.filter(pk=document.pk).values().get()

    with pytest.raises(ApplicationError, match=words):
        new_version(document, handbook() if text is None else text, filename="otro.md")

    assert Document.objects.filter(pk=document.pk).values().get() == before
    assert default_storage.exists(document.file.name)
    assert not AuditEntry.objects.filter(action="knowledge.new_version").exists()


def test_a_version_that_is_another_document_of_the_scope_is_refused():
    document = make_document(handbook(), filename="manual.md")
    make_document(handbook(POOL_HEATED), filename="otro.md")

    with pytest.raises(ApplicationError, match="already a document of this scope"):
        new_version(document, handbook(POOL_HEATED))

    document.refresh_from_db()
    assert document.status == DocumentStatus.READY
    assert document.chunks.filter(content=POOL).exists()


def test_a_document_being_read_or_from_a_web_source_takes_no_new_version():
    queued = make_document(handbook(), filename="manual.md", ingest=False)
    with pytest.raises(ApplicationError, match="already queued"):
        new_version(queued, handbook(POOL_HEATED))

    page = make_document("<h1>Piscina</h1><p>Abre a las ocho.</p>", filename="https://x.test/p")
    SourcePage.objects.create(
        source=_source(page.license), url="https://x.test/p", depth=0, document=page
    )
    with pytest.raises(ApplicationError, match="comes from a web source"):
        new_version(page, "<h1>Piscina</h1><p>Abre a las nueve.</p>")


def _source(license):
    from knowledge.models import Source

    return Source.objects.create(url="https://x.test/", license=license)


@pytest.fixture
def owner(client, django_user_model):
    client.force_login(as_owner(django_user_model.objects.create_user("o", is_staff=True)))
    return client


def test_the_console_form_uploads_a_new_version(owner):
    document = make_document(handbook(), filename="manual.md")

    page = owner.get(f"/knowledge/{document.pk}/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Subir nueva versión" in page

    answer = owner.post(
        f"/knowledge/{document.pk}/version",
        {"file": SimpleUploadedFile("manual.md", handbook(POOL_HEATED).encode())},
        HTTP_ACCEPT_LANGUAGE="es",
        follow=True,
    )
    assert "la nueva versión está en cola" in answer.content.decode()
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.QUEUED

    again = owner.post(f"/knowledge/{document.pk}/version", HTTP_ACCEPT_LANGUAGE="es", follow=True)
    assert "Elige el archivo de la nueva versión." in again.content.decode()


def named(client, filename, **fields):
    return client.get(
        "/knowledge/named", {"filename": filename, "scope": "global", **fields}
    ).json()["document"]


def test_the_dropzone_learns_the_document_an_upload_would_sit_beside(owner):
    document = make_document(handbook(), filename="manual.md")
    make_document(
        handbook(POOL_HEATED), filename="manual.md", license=make_license(machine_id="sala-1")
    )

    found = named(owner, "manual.md")
    assert (found["id"], found["scope"]) == (str(document.pk), "Global")
    assert found["version_url"] == f"/knowledge/{document.pk}/version"
    assert (found["size_bytes"], found["sha256"]) == (document.size_bytes, document.sha256)
    assert named(owner, "manual.md", scope="license", license="sala-1")["scope"] == "sala-1"
    assert named(owner, "Manual.md") is None
    assert named(owner, "otro.md") is None


def test_an_upload_asking_if_changed_is_stored_only_when_it_is_new_or_a_copy(owner):
    # what the DropZone sends where the browser cannot hash (plain http to another machine)
    document = make_document(handbook(), filename="manual.md")

    def upload(name, text):
        return owner.post(
            "/knowledge/upload",
            {"file": SimpleUploadedFile(name, text.encode()), "scope": "global",
             "source_type": "other", "language": "auto", "ask_if_changed": "on"},
            HTTP_ACCEPT="application/json",
        )  # fmt: skip

    changed = upload("manual.md", handbook(POOL_HEATED))
    assert changed.status_code == 409
    namesake = changed.json()["namesake"]
    assert (namesake["id"], namesake["version_url"]) == (
        str(document.pk), f"/knowledge/{document.pk}/version",
    )  # fmt: skip
    assert Document.objects.count() == 1  # nothing stored until the person decides

    copy = upload("manual.md", handbook())
    assert copy.status_code == 200 and copy.json()["duplicate"] is True
    assert upload("otro.md", handbook(POOL_HEATED)).status_code == 201
    assert Document.objects.count() == 2


def test_a_name_is_compared_as_it_is_shown_redacted_and_web_pages_are_not_offered(owner):
    document = make_document(handbook(), filename="[EMAIL] acta.md")
    page = make_document(handbook(POOL_HEATED), filename="https://x.test/manual.md")
    SourcePage.objects.create(source=_source(None), url=page.filename, depth=0, document=page)

    assert named(owner, "ana.lopez@gmail.com acta.md")["id"] == str(document.pk)
    assert named(owner, "https://x.test/manual.md") is None
    refused = owner.get("/knowledge/named", {"filename": "manual.md", "scope": "license"})
    assert refused.status_code == 400 and "Choose the license" in refused.json()["error"]


def test_the_dropzone_sends_a_new_version_and_reads_json(owner):
    document = make_document(handbook(), filename="manual.md")
    url = f"/knowledge/{document.pk}/version"

    answer = owner.post(
        url,
        {"file": SimpleUploadedFile("manual.md", handbook(POOL_HEATED).encode())},
        HTTP_ACCEPT="application/json",
    )
    assert answer.status_code == 200
    assert (answer.json()["id"], answer.json()["status"]) == (str(document.pk), "queued")

    busy = owner.post(
        url,
        {"file": SimpleUploadedFile("manual.md", handbook(GYM).encode())},
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE="pt-BR",
    )
    assert busy.status_code == 409 and "já está na fila" in busy.json()["error"]
    missing = owner.post(url, HTTP_ACCEPT="application/json", HTTP_ACCEPT_LANGUAGE="es")
    assert missing.json() == {"error": "Elige el archivo de la nueva versión."}
    assert missing.status_code == 400


def test_a_role_that_may_not_upload_sees_no_form_and_is_refused(client, django_user_model):
    from accounts.roles import role_grant

    document = make_document(handbook(), filename="manual.md")
    django_user_model.objects.create_user("s", is_staff=True)
    role_grant(username="s", role="support")
    client.force_login(django_user_model.objects.get(username="s"))

    assert "new-version" not in client.get(f"/knowledge/{document.pk}/").content.decode()
    answer = client.post(
        f"/knowledge/{document.pk}/version",
        {"file": SimpleUploadedFile("manual.md", handbook(POOL_HEATED).encode())},
    )
    assert answer.status_code == 403
    assert Document.objects.get(pk=document.pk).status == DocumentStatus.READY


def test_the_api_puts_a_new_version(owner):
    document = make_document(handbook(), filename="manual.md")

    answer = owner.put(
        f"/api/v1/documents/{document.pk}",
        _multipart({"file": ("manual.md", handbook(POOL_HEATED).encode())}),
        content_type="multipart/form-data; boundary=BoUnDaRy",
    )
    assert answer.status_code == 200, answer.content
    assert (answer.json()["id"], answer.json()["status"]) == (str(document.pk), "queued")

    same = owner.put(
        f"/api/v1/documents/{document.pk}",
        _multipart({"file": ("manual.md", handbook(POOL_HEATED).encode())}),
        content_type="multipart/form-data; boundary=BoUnDaRy",
    )
    assert same.status_code == 409 and "already queued" in same.json()["detail"]


def _multipart(files):
    body = b""
    for field, (name, data) in files.items():
        body += (
            (
                f'--BoUnDaRy\r\nContent-Disposition: form-data; name="{field}"; '
                f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'
            ).encode()
            + data
            + b"\r\n"
        )
    return body + b"--BoUnDaRy--\r\n"


def test_reading_again_keeps_the_rows_of_unchanged_chunks_with_their_vectors():
    """A re-read replaced every chunk: new ids (citations of them broke), every vector sent
    again to a remote backend, every sentence vector embedded again. Unchanged chunks now
    stay the same rows."""
    from knowledge.models import Embedding, SentenceEmbedding
    from knowledge.search import sentence_vectors

    long_gym = f"{GYM} Hay que llevar toalla. Las clases de yoga son los martes y jueves."
    text = handbook().replace(GYM, long_gym)
    document = make_document(text, filename="manual.md")
    gym = Chunk.objects.get(document=document, content=long_gym)
    vectors = set(Embedding.objects.filter(chunk=gym).values_list("pk", flat=True))
    sentences = set(
        SentenceEmbedding.objects.filter(embedding__chunk=gym).values_list("pk", flat=True)
    )
    assert sentences  # the gym section has sentence vectors of its own

    new_version(document, text.replace(POOL, POOL_HEATED))
    ingestion.document_ingest(document_id=document.pk)

    document.refresh_from_db()
    assert [c.content for c in document.chunks.order_by("ordinal")] == [
        POOL_HEATED,
        long_gym,
        HALL,
    ]
    assert Chunk.objects.get(document=document, content=long_gym).pk == gym.pk
    assert set(Embedding.objects.filter(chunk=gym).values_list("pk", flat=True)) == vectors
    assert (
        set(SentenceEmbedding.objects.filter(embedding__chunk=gym).values_list("pk", flat=True))
        == sentences
    )
    assert not Chunk.objects.filter(content=POOL).exists()
    # Nothing left for the sentence pass: the gym kept its own, the new pool is one sentence.
    assert sentence_vectors.document_embed_sentences(document_id=document.pk) == 0
