"""A deployment with two licenses, their documents and a user's memories, backed up and
restored into a fresh data dir by the README's commands: everything is there, and searches
the same."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from knowledge.search import SearchOptions, search
from licenses.principals import principal_for_license
from licenses.services import license_forge
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
        k: written[k] for k in ("licenses", "documents", "chunks", "embeddings", "memories")
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
