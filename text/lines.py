"""A line a person typed (a name, a file's name, a memory), as it is shown and as it goes
into the assistant's instructions."""

from __future__ import annotations


def one_line(value: str) -> str:
    """``value`` on one line, its spaces collapsed, without what does not print: a line
    break would start a new instruction where a name goes, and a right-to-left override or
    a zero-width space would change on screen what the text says ("abc\u202edef" shows
    as "abcfed")."""
    return " ".join("".join(c for c in value if c.isprintable() or c.isspace()).split())
