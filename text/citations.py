"""An answer's citation markers: "[2]" after what source 2 backs. A passage quoted in «…»
keeps its own bracketed numbers (a paper's "[3]", a document's note "[^1]"): they cite
nothing in this answer, and reading them as markers renumbered or dropped them, or left a
forgotten passage's words behind."""

from __future__ import annotations

import re
from collections.abc import Callable

_MARKER_OR_QUOTE = re.compile(r"\[(\d{1,3})\]|[«»]")


def sub_markers(
    answer: str, replace: Callable[[re.Match[str]], str], *, quoted: bool = False
) -> tuple[str, bool]:
    """``answer`` with each citation marker outside quotes replaced, and whether it ends
    inside a quote (``quoted``: whether it starts inside one, as a stream's next piece)."""
    inside = quoted

    def each(match: re.Match[str]) -> str:
        nonlocal inside
        token = match.group(0)
        if token in ("«", "»"):
            inside = token == "«"
            return token
        return token if inside else replace(match)

    return _MARKER_OR_QUOTE.sub(each, answer), inside


def markers(answer: str) -> list[re.Match[str]]:
    """The answer's citation markers, in order (``group(1)`` is the source's number)."""
    found: list[re.Match[str]] = []

    def keep(match: re.Match[str]) -> str:
        found.append(match)
        return match.group(0)

    sub_markers(answer, keep)
    return found
