from __future__ import annotations

import re
import unicodedata

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

_WORD = re.compile(r"\w+")


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _stem(word: str) -> str:
    # A crude prefix "stem", only to show the admin which words matched (the search itself
    # uses Postgres's Snowball stemmers): "reservas" and "reservar" both mark "reserva".
    return word[: max(4, len(word) - 2)]


@register.filter
def highlight(text: str, query: str) -> SafeString:
    """Escape ``text`` and wrap words matching the query (accent- and case-insensitive) in <mark>."""
    stems = {_stem(_fold(w)) for w in _WORD.findall(query or "") if len(w) >= 3}
    pieces, last = [], 0
    for match in _WORD.finditer(text or ""):
        folded = _fold(match.group(0))
        if len(folded) >= 3 and any(folded.startswith(stem) for stem in stems):
            pieces += [
                escape(text[last : match.start()]),
                "<mark>",
                escape(match.group(0)),
                "</mark>",
            ]
            last = match.end()
    pieces.append(escape((text or "")[last:]))
    return mark_safe("".join(pieces))  # every piece above was escaped


@register.filter
def filesize(num_bytes: int) -> str:
    size = float(num_bytes or 0)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"


@register.filter
def score(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


@register.inclusion_tag("knowledge/partials/latency_chart.html")
def latency_chart(points: list, width: int = 560, height: int = 160) -> dict:
    """A server-drawn SVG line chart of p50/p95/p99 per day: no JavaScript library needed."""
    if not points:
        return {"points": []}
    top = max(max(p.value_a, p.value_b, p.value_c) for p in points) or 1.0
    step = (width - 40) / max(1, len(points) - 1)

    def line(attr: str) -> str:
        return " ".join(
            f"{30 + i * step:.1f},{height - 20 - (getattr(p, attr) / top) * (height - 40):.1f}"
            for i, p in enumerate(points)
        )

    return {
        "points": points,
        "width": width,
        "height": height,
        "top": round(top, 1),
        "p50": line("value_a"),
        "p95": line("value_b"),
        "p99": line("value_c"),
        "first": points[0].day,
        "last": points[-1].day,
    }
