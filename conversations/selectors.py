"""Reading what users asked: the review queue, transcripts, gaps, insights and a person's
own conversations. Every list is scoped the way its caller may see it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any
from uuid import UUID

from django.db import connection
from django.db.models import Count, Prefetch, Q, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone
from django.utils.translation import get_language

from conversations.models import Conversation, DailyCount, Exchange, Gap, GapStatus
from licenses.models import License

EXAMPLES_PER_GAP = 5


@dataclass(frozen=True)
class QueueFilters:
    license: License | None = None
    user_ref: str = ""
    since: date | None = None
    until: date | None = None
    rating: str = ""  # up, down, none
    no_information: bool = False
    low_score: bool = False
    in_gap: bool = False  # counted in a knowledge gap: every kind of unanswered question
    language: str = ""
    reviewed: str = ""  # yes, no
    include_staff: bool = False


def exchange_queue(filters: QueueFilters) -> QuerySet[Exchange]:
    """Answers for review, newest first, as the filters say."""
    rows = Exchange.objects.select_related("license", "conversation")
    if not filters.include_staff:
        rows = rows.filter(by_staff=False)
    if filters.license is not None:
        rows = rows.filter(license=filters.license)
    if filters.user_ref:
        rows = rows.filter(conversation__user_ref=filters.user_ref)
    if filters.since:
        rows = rows.filter(created_at__date__gte=filters.since)
    if filters.until:
        rows = rows.filter(created_at__date__lte=filters.until)
    if filters.rating in ("up", "down"):
        rows = rows.filter(rating=filters.rating)
    elif filters.rating == "none":
        rows = rows.filter(rating="")
    if filters.no_information:
        rows = rows.filter(no_information=True)
    if filters.low_score:
        rows = rows.filter(low_score=True)
    if filters.in_gap:
        rows = rows.filter(gap__isnull=False)
    if filters.language:
        rows = rows.filter(language=filters.language)
    if filters.reviewed == "yes":
        rows = rows.exclude(verdict="")
    elif filters.reviewed == "no":
        rows = rows.filter(verdict="")
    return rows.order_by("-created_at")


def conversation_get(conversation_id: UUID | str) -> Conversation | None:
    return (
        Conversation.objects.select_related("license")
        .prefetch_related(Prefetch("exchanges", queryset=Exchange.objects.order_by("created_at")))
        .filter(pk=conversation_id)
        .first()
    )


def exchange_get(answer_id: UUID | str) -> Exchange | None:
    return Exchange.objects.select_related("conversation", "license").filter(pk=answer_id).first()


def gap_list(*, status: str = GapStatus.OPEN, license: License | None = None) -> QuerySet[Gap]:
    """Gaps, most asked first, each with its latest phrasings (``examples``) — never who
    asked them."""
    examples = Exchange.objects.exclude(question="").only("question", "language", "gap_id")
    rows = Gap.objects.select_related("answer_license", "answer_document").prefetch_related(
        Prefetch("exchanges", queryset=examples.order_by("-created_at"), to_attr="phrasings")
    )
    if status:
        rows = rows.filter(status=status)
    if license is not None:
        rows = rows.filter(license_ids__contains=[license.pk])
    return rows.order_by("-count", "-last_asked")


def gap_get(gap_id: int) -> Gap | None:
    return gap_list(status="").filter(pk=gap_id).first()


def gap_examples(gap: Gap, language: str = "") -> list[str]:
    """Distinct phrasings, latest first; the latest asked in ``language`` first of all,
    when one was: a gap asked in Portuguese, Spanish and English is named to each editor
    in their own."""
    seen: list[str] = []
    first = gap_phrasing_in(gap, language) if language else ""
    for question in [first, *(exchange.question for exchange in getattr(gap, "phrasings", []))]:
        if question and question not in seen:
            seen.append(question)
    return seen[:EXAMPLES_PER_GAP]


def gap_phrasing_in(gap: Gap, language: str) -> str:
    """The latest phrasing asked in ``language`` (an editor answers in their own), else the
    latest of all; "" when none is kept."""
    phrasings = getattr(gap, "phrasings", [])
    wanted = language.split("-")[0].lower()
    for exchange in phrasings:
        if exchange.language.split("-")[0].lower() == wanted:
            return str(exchange.question)
    return str(phrasings[0].question) if phrasings else ""


def gap_latest_asked(gap_id: int) -> Exchange | None:
    """The latest answer in this gap whose question is still kept (None: the gap does not
    exist, or its phrasings are past their retention)."""
    answers = Exchange.objects.filter(gap_id=gap_id).exclude(question="")
    return answers.select_related("license").order_by("-created_at").first()


def license_names(gaps: list[Gap]) -> dict[UUID, str]:
    """The machine_id of every license the gaps were asked in, read once for all of them."""
    ids = {license_id for gap in gaps for license_id in gap.license_ids}
    return dict(License.objects.filter(pk__in=ids).values_list("pk", "machine_id"))


def user_conversations(*, license: License, user_ref: str) -> list[dict[str, Any]]:
    """An end user's conversations as they were kept, for their export."""
    conversations = (
        Conversation.objects.filter(license=license, user_ref=user_ref)
        .prefetch_related(Prefetch("exchanges", queryset=Exchange.objects.order_by("created_at")))
        .order_by("started_at")
    )
    return [
        {
            "session_id": c.session_id,
            "started_at": c.started_at.isoformat(),
            "exchanges": [
                {
                    "answer_id": str(e.pk),
                    "asked_at": e.created_at.isoformat(),
                    "question": e.question,
                    "answer": e.answer,
                    "language": e.language,
                    "sources": [x.get("document", "") for x in e.citations],
                    "rating": e.rating,
                    "reason": e.reason,
                    "comment": e.comment,
                }
                for e in c.exchanges.all()
            ],
        }
        for c in conversations
    ]


# -- insights -------------------------------------------------------------------------------------


@dataclass
class Day:
    day: date
    questions: int = 0
    no_information: int = 0
    rated_up: int = 0
    rated_down: int = 0

    @property
    def answered(self) -> int:
        return self.questions - self.no_information


@dataclass
class Insights:
    days: list[Day]
    top_documents: list[dict[str, Any]] = field(default_factory=list)
    top_gaps: list[Gap] = field(default_factory=list)

    def total(self, name: str) -> int:
        return sum(getattr(d, name) for d in self.days)

    @property
    def questions(self) -> int:
        return self.total("questions")

    @property
    def answered_share(self) -> float | None:
        return self.total("answered") / self.questions if self.questions else None

    @property
    def no_information_share(self) -> float | None:
        return self.total("no_information") / self.questions if self.questions else None

    @property
    def rated(self) -> int:
        return self.total("rated_up") + self.total("rated_down")

    @property
    def up_share(self) -> float | None:
        return self.total("rated_up") / self.rated if self.rated else None

    @property
    def top_document_rows(self) -> list[dict[str, Any]]:
        return [{"name": d["document"], "count": d["count"]} for d in self.top_documents]

    @property
    def top_gap_rows(self) -> list[dict[str, Any]]:
        language = get_language() or ""  # the page's: each gap named in it when asked so
        return [
            {"name": (gap_examples(g, language) or ["…"])[0], "count": g.count}
            for g in self.top_gaps
        ]


def insights(*, license: License | None = None, days: int = 30) -> Insights:
    """End users' questions per day (kept ones and the purged ones' counts), the documents
    answers cited most and the most asked open gaps — overall, or of one license."""
    first = timezone.localdate() - timedelta(days=days - 1)
    gaps = gap_list(license=license)[:8]
    return Insights(
        _questions_by_day(first, days, license), _top_documents(first, license), list(gaps)
    )


@dataclass(frozen=True)
class AskedRecently:
    questions: int
    no_information: int
    rated_down: int
    open_gaps: int


def asked_recently(*, days: int = 7) -> AskedRecently:
    """The dashboard's line on what end users asked: questions, "no information", 👎, and
    the knowledge gaps still open."""
    first = timezone.localdate() - timedelta(days=days - 1)
    figures = Insights(_questions_by_day(first, days, None))
    return AskedRecently(
        questions=figures.questions,
        no_information=figures.total("no_information"),
        rated_down=figures.total("rated_down"),
        open_gaps=Gap.objects.filter(status=GapStatus.OPEN).count(),
    )


def _questions_by_day(first: date, days: int, license: License | None) -> list[Day]:
    by_day = {first + timedelta(days=i): Day(first + timedelta(days=i)) for i in range(days)}
    live = Exchange.objects.filter(by_staff=False, created_at__date__gte=first)
    archived = DailyCount.objects.filter(day__gte=first)
    if license is not None:
        live, archived = live.filter(license=license), archived.filter(license=license)
    kept = (
        live.annotate(day=TruncDate("created_at"))
        .values("day")
        .annotate(
            questions=Count("pk"),
            no_information=Count("pk", filter=Q(no_information=True)),
            rated_up=Count("pk", filter=Q(rating="up")),
            rated_down=Count("pk", filter=Q(rating="down")),
        )
    )
    counted = archived.values("day").annotate(
        questions=Sum("questions"),
        no_information=Sum("no_information"),
        rated_up=Sum("rated_up"),
        rated_down=Sum("rated_down"),
    )
    for row in [*kept, *counted]:
        day = by_day.get(row["day"])
        if day is not None:
            for name in ("questions", "no_information", "rated_up", "rated_down"):
                setattr(day, name, getattr(day, name) + (row[name] or 0))
    return list(by_day.values())


def _top_documents(first: date, license: License | None, limit: int = 8) -> list[dict[str, Any]]:
    """The documents the kept answers cited most (forgotten sources left out)."""
    scope = "AND e.license_id = %(license)s" if license is not None else ""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c->>'document', c->>'document_id', count(*) FROM conversations_exchange e, "
            "jsonb_array_elements(e.citations) c "
            "WHERE NOT e.by_staff AND e.created_at >= %(first)s AND NOT c ? 'forgotten' "
            f"{scope} GROUP BY 1, 2 ORDER BY 3 DESC, 1 LIMIT %(limit)s",
            {"first": first, "license": license.pk if license else None, "limit": limit},
        )
        rows = cursor.fetchall()
    return [{"document": r[0], "document_id": r[1], "count": r[2]} for r in rows]
