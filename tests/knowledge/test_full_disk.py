"""A full disk is not the uploader's fault, and must not read as a bug: an upload that found
no room answered 500 "Internal error" and left what it had written of the file."""

from __future__ import annotations

import errno

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from knowledge.models import Document
from tests.disks import small_file_system
from tests.factories import as_owner

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fake_embedder")]
BIG = ("La oficina abre a las ocho. " * 8000).encode()  # 224 KB: over the room left


@pytest.fixture
def full_disk(settings, tmp_path):
    """The media storage on a real file system of 64 KB."""
    with small_file_system(tmp_path / "media") as place:
        settings.MEDIA_ROOT = place
        yield place


@pytest.fixture
def owner(django_user_model):
    return as_owner(django_user_model.objects.create_user("s", password="x", is_staff=True))


def dropzone_upload(client, body: bytes, *, language: str):
    """A file dropped on the Knowledge page, as the DropZone's script sends it."""
    return client.post(
        "/knowledge/upload",
        {
            "file": SimpleUploadedFile("grande.txt", body),
            "scope": "global",
            "source_type": "other",
            "language": "auto",
        },  # fmt: skip
        HTTP_ACCEPT="application/json",
        HTTP_ACCEPT_LANGUAGE=language,
    )


def _files(place) -> list:
    return [p for p in place.rglob("*") if p.is_file()]


def test_an_upload_with_no_room_left_says_so_and_keeps_nothing(full_disk, owner, caplog):
    client = APIClient()
    client.force_authenticate(owner)

    response = client.post(
        "/api/v1/documents",
        {"file": SimpleUploadedFile("grande.txt", BIG)},
        format="multipart",
        HTTP_ACCEPT_LANGUAGE="es",
    )

    assert response.status_code == 507
    assert response.json()["code"] == "insufficient_storage"
    assert "no queda espacio" in response.json()["detail"]
    assert not Document.objects.exists() and _files(full_disk) == []
    assert "the media storage is full" in caplog.text  # the operator's log says what to do


def test_the_dropzone_is_told_too(full_disk, owner, client):
    client.force_login(owner)

    response = dropzone_upload(client, BIG, language="pt-br")

    assert response.status_code == 507
    assert "não há espaço" in response.json()["error"]
    assert not Document.objects.exists() and _files(full_disk) == []


@pytest.mark.parametrize(
    ("path", "expected"),
    [("/api/v1/documents", '"code": "insufficient_storage"'), ("/knowledge/", "No room left")],
)
def test_a_full_disk_anywhere_else_is_said_as_such_not_as_a_bug(rf, admin_user, path, expected):
    """Another write that found no room (a file Django keeps while a large upload arrives,
    say) reached the generic 500 "Internal error"."""
    from web.errors import server_error  # noqa: PLC0415

    request = rf.get(path)
    request.user = admin_user
    try:
        raise OSError(errno.ENOSPC, "No space left on device")
    except OSError:
        response = server_error(request)

    assert response.status_code == 507 and expected in response.content.decode()


def test_a_database_whose_disk_is_full_is_said_as_such():
    """PostgreSQL's "could not extend file" (SQLSTATE 53100), as Django raises it."""
    import psycopg  # noqa: PLC0415
    from django.db import OperationalError  # noqa: PLC0415

    from web.errors import out_of_space  # noqa: PLC0415

    failure = OperationalError("could not extend file")
    failure.__cause__ = psycopg.errors.DiskFull("could not extend file")
    bug = OperationalError("syntax error")
    bug.__cause__ = psycopg.errors.SyntaxError("syntax error")

    assert out_of_space(failure) and not out_of_space(bug)


def test_a_large_upload_with_no_room_to_arrive_is_said_in_the_dropzone(
    settings, tmp_path, owner, client
):
    """A file over 2.5 MB arrives in a temporary file first: with no room there, Django
    fails before any view runs, and the DropZone read an HTML page as "Unexpected server
    answer (500)"."""
    client.force_login(owner)
    client.raise_request_exception = False  # as a real server: the error page answers
    with small_file_system(tmp_path / "uploads-arriving") as place:
        settings.FILE_UPLOAD_TEMP_DIR = str(place)
        response = dropzone_upload(client, BIG * 15, language="es")
        # The half-written temporary file is deleted when its request is freed; this test
        # keeps the request (response.wsgi_request), so it closes the file itself.
        for handler in response.wsgi_request.upload_handlers:
            if getattr(handler, "file", None):
                handler.file.close()

    assert response.status_code == 507
    assert "no queda espacio" in response.json()["detail"]
    assert not Document.objects.exists()


def test_any_error_a_console_script_meets_is_answered_as_json(rf, admin_user):
    """The DropZone asks for JSON: an error page in HTML read as "Unexpected server answer"."""
    from web.errors import server_error  # noqa: PLC0415

    request = rf.get("/knowledge/upload", HTTP_ACCEPT="application/json")
    request.user = admin_user
    try:
        raise ValueError("a bug")
    except ValueError:
        response = server_error(request)

    assert response.status_code == 500 and '"code": "server_error"' in response.content.decode()
