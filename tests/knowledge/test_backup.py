"""A deployment with two licenses, their documents and a user's memories, backed up and
restored into a fresh data dir by the README's commands: everything is there, and searches
the same."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat

import pytest
from django.core.management import CommandError, call_command

from knowledge.search import SearchOptions, search
from licenses.principals import principal_for_license
from licenses.services import license_forge
from tests.disks import small_file_system
from tests.factories import make_document
from tests.memory.support import consent, propose
from tests.portality.test_cli import manage

pytestmark = [pytest.mark.process, pytest.mark.django_db(transaction=True)]

QUESTION = "¿Con cuánta antelación se reserva el salón de fiestas?"


@pytest.fixture
def deployment(media_root):
    alamos = license_forge(user_name="Lucía", machine_id="alamos").license
    robles = license_forge(user_name="Rui", machine_id="robles").license
    make_document(
        "# Salón\n\nEl salón de fiestas se reserva con siete días de antelación.",
        filename="salon-alamos.md",
        license=alamos,
    )
    make_document(
        "# Salão\n\nO salão de festas se reserva com três dias de antecedência.",
        filename="salao-robles.md",
        license=robles,
    )
    make_document("# Piscina\n\nLa piscina abre a las ocho.", filename="piscina.md")
    consent(alamos, "lucia")
    propose(alamos, "Prefiere respuestas cortas", user="lucia")
    return alamos


def test_backup_and_restore_into_a_fresh_data_dir_keep_everything(deployment, tmp_path):
    backup = tmp_path / "backup"
    out = io.StringIO()
    call_command("backup", str(backup), "--json", stdout=out)
    written = json.loads(out.getvalue().strip().splitlines()[-1])
    assert written["licenses"] == 2 and written["documents"] == 3 and written["memories"] == 1
    manifest = json.loads((backup / "manifest.json").read_text())
    assert [m["model"] for m in manifest["embedding_models"] if m["active"]]
    assert len(manifest["files"]) == 3
    before = [
        (r.filename, r.content)
        for r in search(principal=principal_for_license(deployment), query=QUESTION,
                        options=SearchOptions()).results
    ]  # fmt: skip

    fresh = tmp_path / "fresh"
    restored = manage(fresh, "restore", str(backup), "--json")
    assert restored.returncode == 0, restored.stderr
    assert json.loads(restored.stdout.strip().splitlines()[-1]) == {
        **{k: written[k] for k in ("licenses", "documents", "chunks", "embeddings", "memories")},
        "forgotten_again": {},
    }
    found = manage(fresh, "search", QUESTION, "--license", "alamos", "--json")
    assert found.returncode == 0, found.stderr
    after = [(r["filename"], r["content"]) for r in json.loads(found.stdout)["results"]]
    assert after == before and after[0][0] == "salon-alamos.md"
    assert "salao-robles.md" not in {name for name, _ in after}  # still apart
    memories = manage(
        fresh, "shell", "-c",
        "from memory.models import Memory; print([m.description for m in Memory.objects.all()])",
    )  # fmt: skip
    assert "Prefiere respuestas cortas" in memories.stdout
    originals = sorted(p.name for p in (fresh / "media").rglob("*") if p.is_file())
    assert len(originals) == 3

    again = manage(fresh, "restore", str(backup))  # a deployment with data is not overwritten
    assert again.returncode != 0 and "fresh data dir" in again.stderr


def test_a_backup_never_overwrites_and_a_failed_one_leaves_nothing(deployment, tmp_path):
    existing = tmp_path / "taken"
    existing.mkdir()
    with pytest.raises(CommandError, match="already exists"):
        call_command("backup", str(existing))
    with pytest.raises(CommandError, match="not a Portality Brain backup"):
        call_command("restore", str(tmp_path))


def test_a_backup_where_nothing_can_be_written_says_why(deployment, tmp_path):
    """It answered with a Python traceback (FileNotFoundError, NotADirectoryError)."""
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(CommandError, match=r"could not be written to .*a-file/backup: Not a dir"):
        call_command("backup", str(tmp_path / "a-file" / "backup"))


# -- third outside attack run, F3 and F4 ----------------------------------------------------------


def _modes(root):
    return {
        p.relative_to(root).as_posix() or ".": stat.S_IMODE(p.stat().st_mode)
        for p in [root, *root.rglob("*")]
    }


def test_a_backup_is_private_whatever_the_umask(deployment, tmp_path):
    previous = os.umask(0o022)
    try:
        call_command("backup", str(tmp_path / "backup"), stdout=io.StringIO())
    finally:
        os.umask(previous)
    modes = _modes(tmp_path / "backup")
    assert len(modes) > 5
    for name, mode in modes.items():
        expected = 0o700 if (tmp_path / "backup" / name).is_dir() else 0o600
        assert mode == expected, (name, oct(mode))


@pytest.fixture
def backup(deployment, tmp_path):
    call_command("backup", str(tmp_path / "backup"), stdout=io.StringIO())
    return tmp_path / "backup"


def _restore_refused(backup_dir, settings, tmp_path, match):
    settings.MEDIA_ROOT = tmp_path / "restored-media"
    before = {t: _count(t) for t in ("licenses_license", "knowledge_document", "memory_memory")}
    with pytest.raises(CommandError, match=match):
        call_command("restore", str(backup_dir), "--force")
    assert not (tmp_path / "restored-media").exists() or not any(
        (tmp_path / "restored-media").rglob("*")
    )
    assert {t: _count(t) for t in before} == before
    assert not (tmp_path / "secret_key").exists()


def _count(table):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {table}")
        return cursor.fetchone()[0]


def test_a_manifest_path_outside_media_is_refused_before_anything_is_written(
    backup, settings, tmp_path
):
    manifest = json.loads((backup / "manifest.json").read_text())
    (backup / "secret_key").write_bytes(b"attacker's key")  # media/../secret_key in the backup
    manifest["files"] = {"../secret_key": hashlib.sha256(b"attacker's key").hexdigest()}
    (backup / "manifest.json").write_text(json.dumps(manifest))
    _restore_refused(backup, settings, tmp_path, "outside media")


def test_a_restore_with_no_room_for_the_files_changes_nothing_and_says_so(
    deployment, settings, tmp_path
):
    """It answered with a traceback, leaving a half-copied file under a temporary name; then
    it restored the database and left the files missing until a second restore."""
    from knowledge.models import Document

    make_document("La piscina abre a las ocho. " * 8000, filename="grande.md", ingest=False)
    call_command("backup", str(tmp_path / "backup"), stdout=io.StringIO())
    make_document("# Después\n\nSubido tras la copia.", filename="despues.md", ingest=False)

    with small_file_system(tmp_path / "restored-media") as place:
        settings.MEDIA_ROOT = place
        with pytest.raises(CommandError, match="nothing was restored.*same restore again"):
            call_command("restore", str(tmp_path / "backup"), "--force")
        assert not [path for path in place.rglob("*") if path.is_file()]
    assert Document.objects.filter(filename="despues.md").exists()  # the database as it was


def test_a_changed_dump_is_refused(backup, settings, tmp_path):
    with open(backup / "database.dump", "ab") as dump:
        dump.write(b"\0")
    _restore_refused(backup, settings, tmp_path, "database.dump does not match")


def test_a_changed_original_is_refused_before_the_database_is_touched(backup, settings, tmp_path):
    manifest = json.loads((backup / "manifest.json").read_text())
    name = sorted(manifest["files"])[-1]
    (backup / "media" / name).write_bytes(b"tampered")
    _restore_refused(backup, settings, tmp_path, "differs from the manifest")


def test_with_a_signing_key_an_edited_manifest_is_refused(deployment, settings, tmp_path):
    settings.BACKUP_SIGNING_KEY = "kept-by-the-operator"
    call_command("backup", str(tmp_path / "signed"), stdout=io.StringIO())
    assert (tmp_path / "signed" / "manifest.sig").is_file()
    manifest = json.loads((tmp_path / "signed" / "manifest.json").read_text())
    manifest["database_sha256"] = "0" * 64
    (tmp_path / "signed" / "manifest.json").write_text(json.dumps(manifest))
    _restore_refused(tmp_path / "signed", settings, tmp_path, "manifest.sig")
    (tmp_path / "signed" / "manifest.sig").unlink()
    _restore_refused(tmp_path / "signed", settings, tmp_path, "manifest.sig")


def test_a_restore_forgets_again_what_was_forgotten_after_the_backup(
    deployment, tmp_path, settings
):
    """Third attack run, F7: restoring an older backup brought back what had been forgotten
    since. The erasure journal (ids only) is replayed."""
    from knowledge.forgetting import document_forget
    from knowledge.models import Document
    from memory.models import Memory
    from memory.services import memory_forget

    settings.ERASURE_JOURNAL = tmp_path / "erasure-journal.jsonl"
    call_command("backup", str(tmp_path / "backup"), stdout=io.StringIO())
    document_forget(document=Document.objects.get(filename="salon-alamos.md"))
    memory_forget(memory=Memory.objects.get(), actor="user:lucia")
    journal = settings.ERASURE_JOURNAL.read_text()
    assert "salon" not in journal and "Prefiere" not in journal  # ids only
    assert stat.S_IMODE(settings.ERASURE_JOURNAL.stat().st_mode) == 0o600

    fresh = tmp_path / "fresh"
    restored = manage(
        fresh, "restore", str(tmp_path / "backup"), "--erasure-journal",
        str(settings.ERASURE_JOURNAL), "--json",
    )  # fmt: skip
    assert restored.returncode == 0, restored.stderr
    counts = json.loads(restored.stdout.strip().splitlines()[-1])
    assert counts["documents"] == 2 and counts["memories"] == 0
    assert counts["forgotten_again"] == {"document": 1, "memory": 1}
    found = manage(fresh, "search", QUESTION, "--license", "alamos", "--json")
    assert "salon-alamos.md" not in found.stdout
