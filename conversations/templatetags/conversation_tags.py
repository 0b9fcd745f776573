"""Server-drawn SVG charts for the insights page (no JavaScript library: they render with
the page, under the strict CSP, printed or read by a screen reader from the table that
follows each one)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()

WIDTH, HEIGHT = 360, 150
LEFT, RIGHT, FLOOR, CEILING = 30, WIDTH - 8, HEIGHT - 22, 10


@register.inclusion_tag("conversations/partials/stacked_bars.html")
def stacked_bars(days: list, first: str, second: str, label: str, nothing: str) -> dict[str, Any]:
    """One bar per day, ``first`` (e.g. answered) stacked under ``second`` (no information);
    ``nothing`` says what there was none of, when every day is empty."""
    top = max((getattr(d, first) + getattr(d, second) for d in days), default=0)
    if not top:
        return {"empty": True, "nothing": nothing}
    step = (RIGHT - LEFT) / len(days)
    scale = (FLOOR - CEILING) / top
    bars = []
    for i, d in enumerate(days):
        low, high = getattr(d, first), getattr(d, second)
        x = LEFT + i * step + step * 0.15
        bars.append(
            {
                "x": f"{x:.1f}",
                "w": f"{step * 0.7:.1f}",
                "y1": f"{FLOOR - low * scale:.1f}",
                "h1": f"{low * scale:.1f}",
                "y2": f"{FLOOR - (low + high) * scale:.1f}",
                "h2": f"{high * scale:.1f}",
                "day": d.day,
                "low": low,
                "high": high,
            }
        )
    # First, middle and last day; the ends anchored inward so their labels are not cut.
    ticks = [
        {"x": f"{LEFT:.1f}", "day": bars[0]["day"], "anchor": "start"},
        {
            "x": f"{float(bars[len(bars) // 2]['x']) + step * 0.35:.1f}",
            "day": bars[len(bars) // 2]["day"],
            "anchor": "middle",
        },
        {"x": f"{RIGHT:.1f}", "day": bars[-1]["day"], "anchor": "end"},
    ]
    return {
        "bars": bars,
        "ticks": ticks,
        "top": top,
        "label": label,
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": RIGHT,
        "floor": FLOOR,
        "ceiling": CEILING,
    }


@register.inclusion_tag("conversations/partials/ranking.html")
def ranking(rows: list[dict[str, Any]], label: str) -> dict[str, Any]:
    """Bars, longest first (``<progress>``: no inline style under the CSP): ``rows`` of
    {"name", "count"}."""
    return {"rows": rows, "top": max((r["count"] for r in rows), default=0), "label": label}


@register.filter
def percent(value: float | None) -> str:
    return "—" if value is None else f"{value * 100:.0f} %"
