"""The README is the front page: every file it links to exists (the docs site's own links
and anchors are checked by `make docs`, which `make test` runs)."""

from __future__ import annotations

import re

from tests.conftest import ROOT


def test_every_relative_link_of_the_readme_exists():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", readme)
    relative = [link for link in links if not link.startswith(("http://", "https://"))]
    assert relative, "the README links the docs"
    assert [link for link in relative if not (ROOT / link).exists()] == []


def test_the_readme_stays_one_screen_and_a_bit():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_benchmarks_hold_todays_figures_only():
    """Issue 41: history is in git; the file keeps today's figures in at most 250 lines."""
    assert len((ROOT / "BENCHMARKS.md").read_text().splitlines()) <= 250
