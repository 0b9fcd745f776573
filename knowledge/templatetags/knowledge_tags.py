from __future__ import annotations

import re
from collections.abc import Iterable

from django import template
from django.utils.formats import number_format
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext

from knowledge.forms import STRATEGY_LABELS
from knowledge.models import PII_LABELS
from knowledge.redaction import EMAIL_ADDRESS
from knowledge.reingestion import document_is_stuck
from text.languages import detect_language
from text.words import stem

register = template.Library()

_WORD = re.compile(r"\w+")


@register.filter
def highlight(text: str, query: str) -> SafeString:
    """Escape ``text`` and wrap the words sharing a stem with a query word in <mark>
    ("reservas" marks "reservar"), stemmed in the passage's language, accents ignored."""
    language = detect_language(text or "")
    stems = {stem(w, language) for w in _WORD.findall(query or "") if len(w) >= 3}
    words = (
        m
        for m in _WORD.finditer(text or "")
        if len(m.group(0)) >= 3 and stem(m.group(0), language) in stems
    )
    return _marked(text, ((m, "<mark>") for m in words))


def _marked(text: str, marks: Iterable[tuple[re.Match[str], str]]) -> SafeString:
    """``text`` escaped, each match wrapped in its opening tag (already escaped) and </mark>."""
    pieces, last = [], 0
    for match, opening in marks:
        pieces += [escape(text[last : match.start()]), opening, escape(match.group(0)), "</mark>"]
        last = match.end()
    pieces.append(escape((text or "")[last:]))
    return mark_safe("".join(pieces))  # every piece above was escaped


@register.filter
def strategy_label(strategy: str) -> str:
    """A search strategy's name in the admin's language."""
    return str(STRATEGY_LABELS.get(strategy, strategy))


@register.filter
def is_stuck(document: object) -> bool:
    """Processing for longer than KNOWLEDGE_STUCK_AFTER: the table offers Retry."""
    return document_is_stuck(document)  # type: ignore[arg-type]


@register.filter
def score(value: float | None) -> str:
    return "—" if value is None else number_format(value, 3)


@register.inclusion_tag("knowledge/partials/latency_chart.html")
def latency_chart(days: list, width: int = 560, height: int = 170) -> dict:
    """A server-drawn SVG chart of p50/p95/p99 per day (no JavaScript library): a line per
    percentile with a dot on each day, so one day of data is still a readable chart."""
    if not days:
        return {"days": []}
    top = max(max(d.p50_ms, d.p95_ms, d.p99_ms) for d in days) or 1.0
    left, right, floor, ceiling = 40, width - 12, height - 24, 14

    def x(i: int) -> float:
        return (left + right) / 2 if len(days) == 1 else left + i * (right - left) / (len(days) - 1)

    def y(value: float) -> float:
        return floor - value / top * (floor - ceiling)

    series = []
    for name, attr in (("p99", "p99_ms"), ("p95", "p95_ms"), ("p50", "p50_ms")):
        dots = [
            {
                "x": f"{x(i):.1f}",
                "y": f"{y(getattr(d, attr)):.1f}",
                "value": getattr(d, attr),
                "day": d.day,
            }
            for i, d in enumerate(days)
        ]
        series.append(
            {"name": name, "dots": dots, "line": " ".join(f"{d['x']},{d['y']}" for d in dots)}
        )
    labelled = range(len(days)) if len(days) <= 7 else (0, len(days) - 1)
    return {
        "days": days,
        "series": series,
        "labels": [{"x": f"{x(i):.1f}", "day": days[i].day} for i in labelled],
        "width": width,
        "height": height,
        "left": left,
        "right": right,
        "floor": floor,
        "ceiling": ceiling,
        "top": round(top, 1),
        "first": days[0].day,
        "last": days[-1].day,
    }


@register.filter
def pii_label(kind: str) -> str:
    """A kind of personal data ("EMAIL") as people say it, in the admin's language."""
    return str(PII_LABELS.get(kind, kind))


# A placeholder, or a contact left in clear: an e-mail address, or a phone number with its
# country code or in groups (what an allow-list keeps).
_MARKED = re.compile(
    rf"\[(?P<kind>{'|'.join(PII_LABELS)})\]"
    rf"|{EMAIL_ADDRESS}"
    r"|\+\d{1,3}(?:[ .-]?\d{2,4}){2,5}"
)


@register.filter
def redaction_marked(text: str) -> SafeString:
    """Escape a chunk's text and mark each "[EMAIL]"-like placeholder, saying what it hides,
    and each e-mail address or phone number left in clear (the allow-list's, or an upload
    that asked for no redaction), saying it was kept."""
    kept = gettext("Kept in clear by this upload's redaction (our contact details)")

    def opening(match: re.Match[str]) -> str:
        if match.group("kind"):
            kind = pii_label(match.group("kind"))
            why = gettext("Redacted before storing: %(kind)s") % {"kind": kind}
            return f'<mark class="redacted" title="{escape(why)}">'
        return f'<mark class="kept" title="{escape(kept)}">'

    return _marked(text, ((m, opening(m)) for m in _MARKED.finditer(text or "")))


@register.filter
def passage_marked(text: str, quote: str = "") -> SafeString:
    """A chunk's text, escaped, its placeholders marked, and ``quote`` (the sentence an
    answer cited it for) marked where it stands, so the reader lands on it."""
    at = text.find(quote) if quote else -1
    if at < 0:
        return redaction_marked(text)
    before, middle, after = text[:at], text[at : at + len(quote)], text[at + len(quote) :]
    return mark_safe(
        f'{redaction_marked(before)}<mark class="quote" id="quote">'
        f"{redaction_marked(middle)}</mark>{redaction_marked(after)}"
    )  # each piece was escaped by redaction_marked
