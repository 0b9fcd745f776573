"""Compile the console's catalogs (polib: pure Python, no system msgfmt needed) and list
what is left to translate.

The .po files under locale/ are the translations' source: edit them by hand or with a
translator's tool (Poedit, Weblate), then

    make messages     # manage.py makemessages (needs xgettext) keeps them current, then this

The .mo files are committed; tests/portality/test_i18n.py checks that every entry is
translated, none is fuzzy, and each .mo is its .po compiled."""

from __future__ import annotations

import sys
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parent.parent
LOCALES = ("es", "pt_BR")
DOMAINS = ("django", "djangojs")  # templates and Python; the console's scripts


def catalog_path(locale: str, domain: str = "django") -> Path:
    return ROOT / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"


def compile_catalog(locale: str, domain: str) -> list[str]:
    """Write the .mo beside the .po; return the entries still untranslated or fuzzy."""
    path = catalog_path(locale, domain)
    catalog = polib.pofile(str(path), wrapwidth=100)
    catalog.save_as_mofile(str(path.with_suffix(".mo")))
    return [e.msgid for e in catalog.untranslated_entries()] + [
        e.msgid for e in catalog.fuzzy_entries()
    ]


def main() -> int:
    missing = {
        (locale, domain): compile_catalog(locale, domain)
        for locale in LOCALES
        for domain in DOMAINS
    }
    for (locale, domain), msgids in missing.items():
        for msgid in msgids:
            print(f"{locale} ({domain}): translate {msgid!r}", file=sys.stderr)
    return 1 if any(missing.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
