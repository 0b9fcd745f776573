"""Fill the console's catalogs from locale/translations.py and compile them (polib: pure
Python, so no system gettext is needed to build the .mo files).

    make messages     # manage.py makemessages (needs xgettext), then this script

The .mo files are committed; tests/portality/test_i18n.py checks that every entry is
translated, none is fuzzy, and each .mo is its .po compiled."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import polib

ROOT = Path(__file__).resolve().parent.parent
LOCALES = {"es": "ES", "pt_BR": "PT_BR"}
HEADER = {
    "Project-Id-Version": "Portality Brain",
    "Report-Msgid-Bugs-To": "",
    "Last-Translator": "Portality Brain",
    "Language-Team": "Portality Brain",
}


def load_translations() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "translations", ROOT / "locale" / "translations.py"
    )
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


DOMAINS = ("django", "djangojs")  # templates and Python; the console's scripts


def catalog_path(locale: str, domain: str = "django") -> Path:
    return ROOT / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"


def plural_key(singular: str, figure: str) -> str:
    return singular.replace(figure, "").replace("%(counter)s ", "")


def entry_key(entry: polib.POEntry, figure: str) -> str:
    """How locale/translations.py names an entry: plurals by their singular without the
    figure, messages with a context (pgettext) as "context|message"."""
    key = plural_key(entry.msgid, figure) if entry.msgid_plural else entry.msgid
    return f"{entry.msgctxt}|{key}" if entry.msgctxt else key


def fill(locale: str, domain: str, table: dict, figure: str) -> list[str]:
    """Write the translations into the locale's .po; return the messages left untranslated."""
    catalog = polib.pofile(str(catalog_path(locale, domain)), wrapwidth=100)
    catalog.metadata.update(HEADER | {"Language": locale})
    catalog.metadata_is_fuzzy = False
    catalog.header = f"The Portality Brain console in {locale}: written by locale/translations.py."
    nplurals = int(catalog.metadata["Plural-Forms"].split("nplurals=")[1].split(";")[0])
    missing = []
    for entry in catalog:
        key = entry_key(entry, figure)
        translation = table.get(key)
        if translation is None:
            missing.append(key)
            continue
        if entry.msgid_plural:
            one, other = translation
            # Spanish has a third form (millions: "1.000.000 de …"); "other" serves it here.
            entry.msgstr_plural = {n: (one if n == 0 else other) for n in range(nplurals)}
        else:
            entry.msgstr = translation
        if "fuzzy" in entry.flags:
            entry.flags.remove("fuzzy")
    catalog.save()
    catalog.save_as_mofile(str(catalog_path(locale, domain).with_suffix(".mo")))
    return missing


def main() -> int:
    translations = load_translations()
    missing = {
        (locale, domain): fill(locale, domain, getattr(translations, name), translations.FIGURE)
        for locale, name in LOCALES.items()
        for domain in DOMAINS
    }
    for (locale, _domain), keys in missing.items():
        for key in keys:
            print(f"{locale}: no translation for {key!r}", file=sys.stderr)
    return 1 if any(missing.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
