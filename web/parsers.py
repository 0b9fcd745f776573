"""Request bodies the API accepts: JSON no deeper than people write, with no NUL characters.

Python's json module recurses once per nesting level: a body nested 100,000 deep raised
RecursionError (a 500). PostgreSQL refuses NUL in text: a "\\u0000" in a field raised a
database error (another 500). Both are now a 400 that says what is wrong."""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32


class SafeJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ParseError(_("The body is not UTF-8 text.")) from None
        if nesting_depth(text) > MAX_DEPTH:
            raise ParseError(
                _("The JSON body is nested deeper than %(levels)d levels.") % {"levels": MAX_DEPTH}
            )
        try:
            data = json.loads(text) if text.strip() else {}
        except ValueError as exc:
            raise ParseError(_("The body is not valid JSON: %(error)s") % {"error": exc}) from None
        if not storable_text(data):
            raise ParseError(
                _("Text may not contain NUL characters (\\u0000) or unpaired surrogates (\\ud800).")
            )
        return data


def nesting_depth(text: str) -> int:
    """The deepest [ or { nesting outside strings, in one pass and without recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def storable_text(data: Any) -> bool:
    """Every string in ``data`` can be stored by PostgreSQL: no NUL, valid UTF-8 (JSON's
    "\\ud800" escapes decode to unpaired surrogates, which UTF-8 cannot encode)."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return False
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return False
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True
