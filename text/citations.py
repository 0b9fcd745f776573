"""An answer's citation markers: "[2]" after what source 2 backs. The offline answerer
quotes passages in «…», and a passage keeps its own bracketed numbers (a paper's "[3]", a
document's note "[^1]"): in its answers they cite nothing, and reading them as markers
renumbered or dropped them, or left a forgotten passage's words behind. A model's answer
may put its own markers inside «…»: there every marker counts."""

from __future__ import annotations

import re
from collections.abc import Callable

OFFLINE_ANSWERER = "extractive"  # chat.extractive.ExtractiveLLM.name: its «…» are passages
_MARKER_OR_QUOTE = re.compile(r"\[(\d{1,3})\]|[«»]")


def quotes_are_passages(answerer: str) -> bool:
    return answerer == OFFLINE_ANSWERER


def sub_markers(
    answer: str,
    replace: Callable[[re.Match[str]], str],
    *,
    passages_quoted: bool,
    quoted: bool = False,
) -> tuple[str, bool]:
    """``answer`` with each citation marker replaced (outside «quotes» when they quote
    passages), and whether it ends inside a quote (``quoted``: whether it starts inside
    one, as a stream's next piece)."""
    inside = quoted

    def each(match: re.Match[str]) -> str:
        nonlocal inside
        token = match.group(0)
        if token in ("«", "»"):
            inside = token == "«"
            return token
        return token if inside and passages_quoted else replace(match)

    return _MARKER_OR_QUOTE.sub(each, answer), inside


def markers(answer: str, *, passages_quoted: bool) -> list[re.Match[str]]:
    """The answer's citation markers, in order (``group(1)`` is the source's number)."""
    found: list[re.Match[str]] = []

    def keep(match: re.Match[str]) -> str:
        found.append(match)
        return match.group(0)

    sub_markers(answer, keep, passages_quoted=passages_quoted)
    return found
