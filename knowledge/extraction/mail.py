"""E-mail messages (.eml: RFC 5322 with MIME), read with the standard library's ``email``
package (``policy.default`` decodes encoded headers, charsets, quoted-printable and
base64): the subject is the title, who wrote it to whom and when is the first paragraph,
then the text (the plain part, or the HTML part read as a page is), then each attachment
under its own heading, read as the same file uploaded alone would be.

An attachment that cannot be read (encrypted, damaged, of no supported type) is named on
the document's page with why; the message and its other attachments are still read. A
message attached to a message (a forward) is read with its text, not its attachments: the
reading stops one level down, as people read a forward.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from email import policy
from email.message import EmailMessage, MIMEPart
from email.parser import BytesParser
from pathlib import Path

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext_noop, pgettext

from knowledge.extraction.base import (
    HEADING_LINE,
    Budget,
    Extraction,
    IngestionError,
    Outline,
    PageText,
    is_title_line,
)
from knowledge.extraction.markup import html_outline

# More than people attach to a message; a message carrying hundreds is an archive.
MAX_ATTACHMENTS = 20
_HEADERS = ("from", "to", "cc", "date")

# Reads one attachment's bytes, named as it was attached, as an upload of that file would
# be read (the extraction dispatcher's, so that this module need not know every reader);
# None when it holds nothing worth reading (a logo in a signature).
ReadAttachment = Callable[[bytes, str], Extraction | None]
TOO_MANY = gettext_noop(
    "only the first %(limit)s attachments of a message are read: %(left)s more were left out"
)


def extract_eml(
    path: Path, *, budget: Budget, read_attachment: ReadAttachment, labels: dict[str, str]
) -> Extraction:
    """``labels``: the words the product adds ("From", "Attachment"…), in the deployment's
    language (``office.section_words().mail``)."""
    with open(path, "rb") as stream:
        message = BytesParser(policy=policy.default).parse(stream)
    if not _is_message(message):
        raise IngestionError(
            gettext_noop(
                "This file is not an e-mail message: it has no sender, recipient, subject or "
                "date. Save the message again from your mail program (as .eml) and upload it."
            )
        )
    outline = Outline()
    details: dict[str, object] = {}
    _write_message(message, outline, labels, level=1)
    read, unread = _write_attachments(message, outline, labels, budget, read_attachment)
    if read:
        details["attachments_read"] = read
    if unread:
        details["attachments_unread"] = unread
    return Extraction([PageText(None, outline.text())], None, details, markdown=True)


@functools.cache
def sender_labels() -> tuple[str, ...]:
    """What opens a message's first paragraph ("From: ", "De: "), in every language the
    product speaks: a message is written in the language of the deployment that read it,
    which may have changed since."""
    labels = set()
    for code, _ in settings.LANGUAGES:
        with translation.override(code):
            labels.add(f"{pgettext('e-mail', 'From')}: ")
    return tuple(sorted(labels))


def _is_message(message: EmailMessage) -> bool:
    return any(message.get(name) for name in ("from", "to", "subject", "date", "message-id"))


def _write_message(
    message: EmailMessage, outline: Outline, labels: dict[str, str], *, level: int
) -> None:
    outline.heading(level, _header(message, "subject") or labels["no_subject"])
    said = [f"{labels[name]}: {value}" for name in _HEADERS if (value := _header(message, name))]
    outline.paragraph(" · ".join(said))
    body = message.get_body(preferencelist=("plain", "html"))
    if body is None:
        return
    text = _text_of(body)
    html = _html_saying_more(message, text) if body.get_content_subtype() == "plain" else None
    if html is not None or body.get_content_subtype() == "html":
        html_outline(text if html is None else html, outline)
        return
    for paragraph in text.replace("\r\n", "\n").split("\n\n"):
        title, _, rest = paragraph.strip().partition("\n")
        if is_title_line(title) and rest.strip():
            outline.heading(level + 1, title)  # "Term dates", over "Autumn term runs…"
            paragraph = rest
        outline.paragraph(paragraph)


def _html_saying_more(message: EmailMessage, plain: str) -> str | None:
    """The message's HTML body, when it says over twice what its plain one does: a
    newsletter's plain part is often a stub ("Versión en texto: consulta el boletín en
    HTML."), and that was all of it the knowledge held."""
    part = message.get_body(preferencelist=("html",))
    if part is None:
        return None
    html = _text_of(part)
    said = Outline()
    html_outline(html, said)
    return html if len(said.text()) > 2 * len(plain.strip()) else None


def _header(message: EmailMessage, name: str) -> str:
    try:
        value = message.get(name)
        when = getattr(value, "datetime", None) if name == "date" else None
        if when is not None:
            # "2026-11-27 09:30+00:00": the same in every language ("Fri, 27 Nov" is not)
            return str(when.isoformat(sep=" ", timespec="minutes"))
        return " ".join(str(value or "").split())
    except (ValueError, TypeError, IndexError, OverflowError):  # too damaged to decode
        return ""


def _text_of(part: MIMEPart) -> str:
    """A text part's content; its raw bytes as Latin-1 when its charset is unknown."""
    try:
        content = part.get_content()
    except (LookupError, ValueError, AssertionError):
        payload = part.get_payload(decode=True)
        return payload.decode("latin-1") if isinstance(payload, bytes) else ""
    return content if isinstance(content, str) else ""


def _write_attachments(
    message: EmailMessage,
    outline: Outline,
    labels: dict[str, str],
    budget: Budget,
    read_attachment: ReadAttachment,
) -> tuple[list[str], list[dict[str, object]]]:
    read: list[str] = []
    unread: list[dict[str, object]] = []
    deadline = budget.deadline()
    parts = list(message.iter_attachments())
    for number, part in enumerate(parts[:MAX_ATTACHMENTS], start=1):
        name = " ".join((part.get_filename() or f"{labels['attachment']} {number}").split())
        deadline.check(name)
        if part.get_content_type() == "message/rfc822":
            _write_forward(part, name, outline, labels)
            read.append(name)
            continue
        try:
            extraction = read_attachment(_bytes_of(part), name)
        except IngestionError as error:
            unread.append({"name": name, "template": error.template, "params": error.params})
            continue
        if extraction is None:
            continue
        _write_attachment(extraction, name, outline, labels)
        read.append(name)
    if len(parts) > MAX_ATTACHMENTS:  # one line for them all: a message may carry thousands
        left = len(parts) - MAX_ATTACHMENTS
        unread.append(
            {"name": "…", "template": TOO_MANY, "params": {"limit": MAX_ATTACHMENTS, "left": left}}
        )
    return read, unread


def _write_forward(part: EmailMessage, name: str, outline: Outline, labels: dict[str, str]) -> None:
    outline.heading(2, f"{labels['attachment']}: {name}")
    forwarded = part.get_content()
    if isinstance(forwarded, EmailMessage):
        _write_message(forwarded, outline, labels, level=3)


def _bytes_of(part: MIMEPart) -> bytes:
    payload = part.get_payload(decode=True)
    return payload if isinstance(payload, bytes) else b""


def _write_attachment(
    extraction: Extraction, name: str, outline: Outline, labels: dict[str, str]
) -> None:
    """The attachment's text under its name, its own headings two levels down."""
    outline.heading(2, f"{labels['attachment']}: {name}")
    marked = extraction.markdown or extraction.headings
    for page in extraction.pages:
        for block in page.text.split("\n\n"):
            body: list[str] = []
            for line in block.split("\n"):
                heading = HEADING_LINE.match(line) if marked else None
                if heading:
                    outline.paragraph(" ".join(body))
                    body = []
                    outline.heading(len(heading.group(1)) + 2, heading.group(2))
                else:
                    body.append(line)
            outline.paragraph(" ".join(body))
