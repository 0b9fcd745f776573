"""A name a person typed, as it is shown and put into the assistant's instructions."""

from __future__ import annotations


def one_line(value: str) -> str:
    """``value`` on one line, its spaces collapsed, without what does not print: a line
    break would start a new instruction where the name goes, and a right-to-left override
    would turn the name around on screen."""
    return " ".join("".join(c for c in value if c.isprintable() or c.isspace()).split())
