"""Lists people download from the console and the API, as CSV or JSON: a CSV a
spreadsheet opens with accents right and never runs a formula a user typed."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator
from typing import Any

from django.http import HttpResponse, StreamingHttpResponse

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> str:
    """A spreadsheet never runs what a user typed: a cell that would read as a formula
    starts with an apostrophe (OWASP's CSV injection advice)."""
    text = (
        "; ".join(map(str, value))
        if isinstance(value, list)
        else ""
        if value is None
        else str(value)
    )
    return "'" + text if text.startswith(_FORMULA) else text


def _csv_lines(columns: list[str], rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(columns)
    yield "\ufeff" + buffer.getvalue()  # a BOM: spreadsheets then read UTF-8 accents right
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow([_cell(row[c]) for c in columns])
        yield buffer.getvalue()


def download(
    name: str, columns: list[str], rows: Iterable[dict[str, Any]], as_: str
) -> HttpResponse | StreamingHttpResponse:
    if as_ == "csv":
        response: HttpResponse | StreamingHttpResponse = StreamingHttpResponse(
            _csv_lines(columns, rows), content_type="text/csv; charset=utf-8"
        )
    else:
        body = json.dumps(list(rows), ensure_ascii=False, indent=1, default=str)
        response = HttpResponse(body, content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{name}.{as_}"'
    return response
