"""What a person sees in a page or a template: text between tags and the attributes that are
read aloud or shown (labels, titles, placeholders, confirmations)."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import polib

LOCALE = Path(__file__).resolve().parents[2] / "locale"
# Names, units and technical terms that are the same in every language.
SAME_IN_EVERY_LANGUAGE = {
    "Portality", "Brain", "API", "PDF", "TXT", "MD", "OCR", "SHA-256", "ms", "p50", "p95",
    "p99", "machine_id", "Top-k", "Global", "MB", "h", "CSV", "JSON",
    # Each language named in its own words in the language filters.
    "English",
    # The embedder's unit: Spanish and Portuguese technical writing says "tokens" too.
    "tokens",
}  # fmt: skip
# English words that are also Spanish or Portuguese words ("no" is "in the" in Portuguese,
# "roles" is Spanish too):
# finding them on a page says nothing.
SHARED_WORDS = {"no", "roles"}

SHOWN_ATTRIBUTES = {"aria-label", "title", "placeholder", "alt", "data-confirm", "hx-confirm"}
# Code and machine text a person copies or reads as is: never translated.
LITERAL_TAGS = {"script", "style", "pre", "code", "textarea", "option", "select"}


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


class _Visible(HTMLParser):
    """Skips code (LITERAL_TAGS) and what the page marks translate="no": people's content,
    such as passages, answers and memories, which is in whatever language it was written."""

    def __init__(self, *, skip_options: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.open: list[tuple[str, bool]] = []  # (tag, shown?) of every open element
        self.literal = LITERAL_TAGS if skip_options else LITERAL_TAGS - {"option", "select"}

    @property
    def shown(self) -> bool:
        return all(shown for _tag, shown in self.open)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if self.shown and attributes.get("translate") != "no":
            for name, value in attrs:
                if name in SHOWN_ATTRIBUTES and value:
                    self.texts.append(value)
            if attributes.get("type") in {"submit", "button"} and attributes.get("value"):
                self.texts.append(attributes["value"] or "")
        if tag not in VOID:
            shown = tag not in self.literal and attributes.get("translate") != "no"
            self.open.append((tag, shown))

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self.open) - 1, -1, -1):  # tolerate unclosed <p>, <li>…
            if self.open[index][0] == tag:
                del self.open[index:]
                return

    def handle_data(self, data: str) -> None:
        if self.shown and data.strip():
            self.texts.append(data.strip())


def visible_texts(html: str, *, skip_options: bool = False) -> list[str]:
    parser = _Visible(skip_options=skip_options)
    parser.feed(html)
    return parser.texts


_TEMPLATE_SYNTAX = re.compile(
    r"\{%\s*blocktranslate.*?%\}.*?\{%\s*endblocktranslate\s*%\}"
    r"|\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}"
    r"|\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}",
    re.DOTALL,
)


def untranslated_template_texts(source: str, allowed: set[str]) -> list[str]:
    """Texts of a template that would reach a person without passing through translation:
    whatever remains once the template tags (translated or computed) are taken out."""
    stripped = _TEMPLATE_SYNTAX.sub(" ", source)
    found = []
    for text in visible_texts(stripped, skip_options=False):
        words = set(re.findall(r"[^\W\d_][\w\-]*", text))
        if words - allowed:
            found.append(text)
    return found


def english_phrases() -> set[str]:
    """Every English message of the console whose translation differs, as the fixed text
    between its placeholders and tags (what would show if it were left in English)."""
    phrases = set()
    for catalog_path in (LOCALE / "pt_BR" / "LC_MESSAGES").glob("*.po"):
        for entry in polib.pofile(str(catalog_path)):
            for msgid in filter(None, (entry.msgid, entry.msgid_plural)):
                if msgid in (entry.msgstr, *entry.msgstr_plural.values()):
                    continue
                for piece in re.split(r"%\(\w+\)[-.\d]*[sdfr]|<[^>]+>|&lt;", msgid):
                    piece = piece.strip(" .,:;·()—–‹›“”\"'")
                    if (
                        re.search(r"[A-Za-z]{2,}", piece)
                        and piece not in SAME_IN_EVERY_LANGUAGE | SHARED_WORDS
                    ):
                        phrases.add(piece)
    return phrases


def english_left(html: str, phrases: set[str]) -> set[str]:
    text = "\n".join(visible_texts(html))
    return {p for p in phrases if re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", text)}
