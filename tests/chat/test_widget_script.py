"""The widget at a stable URL (/widget.js) and at an earlier release's hashed name."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat.views import WIDGET_CACHE_SECONDS

ROOT = Path(__file__).resolve().parents[2]
SOURCE = (ROOT / "static" / "widget" / "portality-chat.js").read_bytes()


def test_the_stable_url_serves_the_current_widget_briefly_cached(client):
    response = client.get("/widget.js")
    assert response.status_code == 200 and response.content == SOURCE
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == f"public, max-age={WIDGET_CACHE_SECONDS}"
    etag = response["ETag"]
    again = client.get("/widget.js", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again["ETag"] == etag
    assert client.head("/widget.js").status_code == 200


@pytest.mark.parametrize("old_hash", ["0123456789ab", "fedcba987654"])
def test_an_earlier_releases_hashed_name_still_loads_the_current_widget(client, old_hash):
    # The snippet once pointed at portality-chat.<hash>.js, cached for ten years; after an
    # upgrade that file no longer exists and every embedding page lost its widget.
    response = client.get(f"/static/widget/portality-chat.{old_hash}.js")
    assert response.status_code == 200 and response.content == SOURCE


def test_other_missing_static_files_are_still_404(client):
    assert client.get("/static/widget/portality-chat.js.map").status_code == 404
    assert client.get("/static/widget/other.0123456789ab.js").status_code == 404


# The widget's size budget (docs/widget.md): what a host page downloads, gzipped.
WIDGET_BUDGET_GZIPPED = 10 * 1024


def test_the_widget_stays_within_its_size_budget():
    import gzip

    assert len(gzip.compress(SOURCE, compresslevel=9)) <= WIDGET_BUDGET_GZIPPED


def test_the_widget_s_message_box_takes_no_longer_a_question_than_the_assistant():
    from chat.services import QUESTION_MAX_CHARS

    assert f'maxlength="{QUESTION_MAX_CHARS}"'.encode() in SOURCE
