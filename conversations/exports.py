"""CSV and JSON files of the review queue and the gaps (the console's and the API's)."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from django.http import HttpResponse, StreamingHttpResponse

from accounts.audit import audit_record, person_pseudonym
from conversations.models import Exchange, Gap
from conversations.selectors import gap_examples, license_names, user_conversations
from licenses.models import License
from memory.apis import MemoryConsentSerializer, MemoryHistorySerializer, MemorySerializer
from memory.selectors import (
    memory_consent_for_user,
    memory_history_for_user,
    memory_list_for_user,
)
from web.downloads import download

EXCHANGE_COLUMNS = [
    "answer_id", "asked_at", "license", "user", "language", "question", "answer",
    "no_information", "low_score", "best_score", "sources", "rating", "reason", "comment",
    "verdict", "cause", "review_comment", "reviewed_by",
]  # fmt: skip
GAP_COLUMNS = [
    "id", "status", "count", "languages", "licenses", "first_asked", "last_asked", "examples",
    "answered_by", "answered_at", "answer_question", "answer", "answer_document",
    "dismissed_by", "dismissed_at",
]  # fmt: skip


def exchange_row(e: Exchange, *, with_user: bool = True) -> dict[str, Any]:
    return {
        "answer_id": str(e.pk),
        "asked_at": e.created_at.isoformat(),
        "license": e.license.machine_id if e.license else "",
        "user": e.conversation.user_ref if with_user else "",
        "language": e.language,
        "question": e.question,
        "answer": e.answer,
        "no_information": e.no_information,
        "low_score": e.low_score,
        "best_score": e.best_score,
        "sources": [c.get("document", "") for c in e.citations if not c.get("forgotten")],
        "rating": e.rating,
        "reason": e.reason,
        "comment": e.comment,
        "verdict": e.verdict,
        "cause": e.cause,
        "review_comment": e.review_comment,
        "reviewed_by": e.reviewed_by,
    }


def gap_row(gap: Gap, names: dict[UUID, str]) -> dict[str, Any]:
    """A gap as the API and the files give it; ``names``: license_names() of its page."""
    return {
        "id": gap.pk,
        "status": gap.status,
        "count": gap.count,
        "languages": gap.languages,
        "licenses": [names[i] for i in gap.license_ids if i in names],
        "first_asked": gap.first_asked.isoformat(),
        "last_asked": gap.last_asked.isoformat(),
        "examples": gap_examples(gap),
        "answered_by": gap.answered_by,
        "answered_at": gap.answered_at.isoformat() if gap.answered_at else None,
        "answer_question": gap.answer_question,
        "answer": gap.answer,
        "answer_document": str(gap.answer_document_id) if gap.answer_document_id else None,
        "dismissed_by": gap.dismissed_by,
        "dismissed_at": gap.dismissed_at.isoformat() if gap.dismissed_at else None,
    }


def exchanges_download(
    rows: QuerySet[Exchange], as_: str, *, with_user: bool
) -> HttpResponse | StreamingHttpResponse:
    audit_record("conversations.exported", details={"format": as_, "with_user": with_user})
    return download(
        "conversations",
        EXCHANGE_COLUMNS,
        (exchange_row(e, with_user=with_user) for e in rows.iterator(chunk_size=500)),
        as_,
    )


def gaps_download(rows: QuerySet[Gap], as_: str) -> HttpResponse | StreamingHttpResponse:
    gaps = list(rows)
    names = license_names(gaps)
    audit_record("gaps.exported", details={"format": as_, "gaps": len(gaps)})
    return download("knowledge-gaps", GAP_COLUMNS, (gap_row(g, names) for g in gaps), as_)


def _consent(license: License, user_ref: str) -> dict[str, Any] | None:
    consent = memory_consent_for_user(license=license, user_ref=user_ref)
    return MemoryConsentSerializer(consent).data if consent else None


def user_data_download(
    license: License, user_ref: str, filename: str, *, by_staff: bool = False
) -> HttpResponse:
    """Everything kept about one end user (memories and conversations), as JSON: what they
    download themselves and what a privacy officer exports for them (``by_staff``: audited)."""
    if by_staff:
        audit_record(
            "user_data.exported",
            target=f"license:{license.machine_id}",
            details={"user": person_pseudonym(license.pk, user_ref)},
        )
    body = {
        "user": user_ref,
        "license": license.machine_id,
        "memories": MemorySerializer(
            memory_list_for_user(license=license, user_ref=user_ref), many=True
        ).data,
        "consent": _consent(license, user_ref),
        "memory_history": MemoryHistorySerializer(
            memory_history_for_user(license=license, user_ref=user_ref), many=True
        ).data,
        "conversations": user_conversations(license=license, user_ref=user_ref),
    }
    response = HttpResponse(
        json.dumps(body, default=str, ensure_ascii=False, indent=2),
        content_type="application/json",
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
