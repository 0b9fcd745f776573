"""Keeping, rating, reviewing, purging and erasing what users asked.

Everything a person wrote is redacted (knowledge.redaction) before it is stored; how long it
is kept is the license's ``Retention`` or ``CONVERSATION_RETENTION_DAYS``; with 0 days only
the numbers are kept (the row, without text or vector, until the next purge)."""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from accounts.audit import audit_record, person_pseudonym
from accounts.selectors import audit_recorded_since
from conversations.gaps import as_floats, gap_assign
from conversations.models import (
    Cause,
    Conversation,
    Exchange,
    Gap,
    GapStatus,
    Rating,
    Reason,
    Retention,
    Verdict,
)
from conversations.signals import conversations_erased
from datastores.erasures import erasure_record
from datastores.locks import transaction_lock
from knowledge.models import Document, SourceType
from knowledge.redaction import redact_said
from knowledge.reingestion import document_new_version
from knowledge.search import SearchResponse, search
from knowledge.searching import (
    search_log_link,
    search_log_record,
    search_logs_expire_queries,
    search_logs_forget_queries,
)
from knowledge.selectors import search_log_queries
from knowledge.uploads import document_create
from licenses.models import License
from licenses.principals import principal_for_admin
from memory.services import memories_erase_person
from text.citations import markers, quotes_are_passages
from text.folding import fold
from web.exceptions import ApplicationError

logger = logging.getLogger(__name__)

MAX_COMMENT_CHARS = 1000
FORGOTTEN_PASSAGE = "[…]"


@dataclass(frozen=True)
class Said:
    """One answer as the chat gives it, to be kept."""

    license: License | None
    user_ref: str
    session_id: str
    by_staff: bool
    question: str
    answer: str
    language: str
    answerer: str
    citations: list[dict[str, object]]
    no_information: bool
    best_score: float | None
    min_score: float
    latency_ms: float
    vector: list[float] | None = None
    model: str = ""
    search_log_ids: list[int] = field(default_factory=list)  # its searches' access log rows
    asked_at: datetime | None = None  # when the question arrived (None: just now)
    # What an "is there…?" question names that no page of its scope holds ("wifi" in "¿hay
    # wifi en el gimnasio?", answered with the gym's hours): a gap, as "no information" is.
    lacks: tuple[str, ...] = ()


def retention_days(license: License | None) -> int:
    if license is not None:
        own = Retention.objects.filter(license=license).values_list("days", flat=True).first()
        if own is not None:
            return own
    return int(settings.CONVERSATION_RETENTION_DAYS)


def _redacted(text: str) -> str:
    return redact_said(text).text if text else ""


def exchange_record(said: Said) -> Exchange | None:
    """Keep one answer (redacted) and, for an end user's question the knowledge did not
    answer confidently, count it in the gap of the same meaning. None when its person was
    erased while they were being answered: nothing of it is kept."""
    keep_text = retention_days(said.license) > 0
    low_score = said.best_score is not None and said.best_score < said.min_score
    vector = said.vector or None  # of what was asked, without its personal data
    with transaction.atomic():
        # An erasure and an answer to the same person take turns: the answer sees it.
        transaction_lock("conversations", said.license.pk if said.license else None, said.user_ref)
        if _erased_since_asked(said):
            search_logs_forget_queries(log_ids=said.search_log_ids)
            return None
        conversation = _conversation(said)
        exchange = Exchange.objects.create(
            conversation=conversation,
            license=said.license,
            by_staff=said.by_staff,
            question=_redacted(said.question) if keep_text else "",
            answer=_redacted(said.answer) if keep_text else "",
            language=said.language,
            answerer=said.answerer,
            citations=said.citations if keep_text else [],
            chunk_ids=[int(c["chunk_id"]) for c in said.citations],  # type: ignore[call-overload]
            no_information=said.no_information,
            low_score=low_score,
            best_score=said.best_score,
            latency_ms=said.latency_ms,
            model=said.model,
            question_vector=vector if keep_text else None,
        )
        search_log_link(log_ids=said.search_log_ids, exchange_id=exchange.pk, keep_query=keep_text)
        if not said.by_staff and vector and (said.no_information or low_score or said.lacks):
            gap_assign(exchange, vector, said.model)
    return exchange


def _erased_since_asked(said: Said) -> bool:
    if said.license is None or said.by_staff:
        return False
    return audit_recorded_since(
        action="conversations.erased",
        target=f"license:{said.license.machine_id}",
        since=said.asked_at or timezone.now(),
        user=person_pseudonym(said.license.pk, said.user_ref),
    )


def _conversation(said: Said) -> Conversation:
    lookup = {"license": said.license, "user_ref": said.user_ref, "session_id": said.session_id}
    conversation = Conversation.objects.filter(**lookup).first()
    if conversation is None:
        try:
            with transaction.atomic():
                conversation = Conversation.objects.create(**lookup, by_staff=said.by_staff)
        except IntegrityError:  # the same session's first two answers at once
            conversation = Conversation.objects.get(**lookup)
    else:
        conversation.save(update_fields=["last_at"])
    return conversation


def exchange_for_user(*, license: License, user_ref: str, answer_id: UUID | str) -> Exchange:
    """An answer given to this end user of this license, or a 404 that tells nothing more."""
    exchange = (
        Exchange.objects.filter(
            pk=answer_id, license=license, conversation__user_ref=user_ref, by_staff=False
        )
        .select_for_update()
        .first()
    )
    if exchange is None:
        raise ApplicationError(
            gettext_noop("No answer %(answer_id)s was given to you (or it is no longer kept)."),
            params={"answer_id": str(answer_id)},
            status=404,
        )
    return exchange


def feedback_record(
    *,
    license: License,
    user_ref: str,
    answer_id: UUID | str,
    rating: str,
    reason: str = "",
    comment: str = "",
) -> Exchange:
    """An end user's 👍 or 👎 on one of their answers (a second rating replaces the first).
    A 👎 counts the question in its knowledge gap."""
    if rating not in Rating.values:
        raise ApplicationError(gettext_noop("A rating is up or down."))
    if reason and (reason not in Reason.values or rating != Rating.DOWN):
        raise ApplicationError(
            gettext_noop(
                "A reason goes with a “not helpful” rating: wrong, incomplete, outdated or "
                "not_asked."
            )
        )
    if len(comment) > MAX_COMMENT_CHARS:
        raise ApplicationError(gettext_noop("A comment is at most 1000 characters."))
    with transaction.atomic():
        exchange = exchange_for_user(license=license, user_ref=user_ref, answer_id=answer_id)
        exchange.rating, exchange.reason = rating, reason
        exchange.comment = _redacted(comment.strip()) if exchange.question else ""
        exchange.rated_at = timezone.now()
        exchange.save(update_fields=["rating", "reason", "comment", "rated_at"])
        vector = exchange.question_vector
        if rating == Rating.DOWN and exchange.gap_id is None and vector is not None:
            gap_assign(exchange, as_floats(vector), exchange.model)
    return exchange


def exchange_review(
    *, exchange: Exchange, verdict: str, cause: str = "", comment: str = "", reviewer: str
) -> Exchange:
    """A reviewer's verdict on one answer; a fault (incomplete, wrong) names its cause."""
    if verdict not in Verdict.values:
        raise ApplicationError(
            gettext_noop("A verdict is correct, incomplete, wrong or not_a_fault.")
        )
    if cause and cause not in Cause.values:
        raise ApplicationError(
            gettext_noop("A cause is knowledge_missing, knowledge_wrong or assistant.")
        )
    if verdict in (Verdict.INCOMPLETE, Verdict.WRONG) and not cause:
        raise ApplicationError(gettext_noop("Say the cause of an incomplete or wrong answer."))
    if len(comment) > MAX_COMMENT_CHARS:
        raise ApplicationError(gettext_noop("A comment is at most 1000 characters."))
    exchange.verdict, exchange.cause = verdict, cause
    exchange.review_comment = _redacted(comment.strip())
    exchange.reviewed_by, exchange.reviewed_at = reviewer[:150], timezone.now()
    exchange.save(
        update_fields=["verdict", "cause", "review_comment", "reviewed_by", "reviewed_at"]
    )
    return exchange


def exchange_search_again(
    *, exchange: Exchange, actor: str, as_followed: bool = True
) -> SearchResponse:
    """What a search for this answer's question finds in its scope now: the passages kept,
    and those under the threshold or far below the best, to tell a retrieval miss from a
    missing document. ``as_followed``: a follow-up as its chat searched it, after the
    questions before it (for a reader of the conversation; a gap's reader sees only the
    question). Logged as the reviewer's access, linked to the answer and without its words
    (the answer holds them), so the person's erasure reaches it as it reaches them."""
    if not exchange.question:
        raise ApplicationError(gettext_noop("This question's words were not kept."), status=409)
    principal = principal_for_admin(actor, license=exchange.license)
    asked = _as_the_chat_searched(exchange) if as_followed else exchange.question
    response = search(principal=principal, query=asked)
    search_log_record(principal=principal, response=response, for_answer=exchange.pk)
    return response


def _as_the_chat_searched(exchange: Exchange) -> str:
    """The question as its chat searched it: a follow-up ("¿y el gimnasio?") after the
    questions before it, when the search kept that (chat.services._found_after)."""
    question = exchange.question
    followed = [
        query
        for query in search_log_queries(exchange_id=exchange.pk)
        if query.endswith(question) and len(query) > len(question)
    ]
    return max(followed, key=len, default=question)


def retention_set(*, license: License, days: int | None) -> None:
    """A license's own retention (None: the deployment's again)."""
    if days is not None and not 0 <= days <= 3650:
        raise ApplicationError(gettext_noop("Keep conversations between 0 and 3650 days."))
    with transaction.atomic():
        if days is None:
            Retention.objects.filter(license=license).delete()
        else:
            Retention.objects.update_or_create(license=license, defaults={"days": days})
        audit_record(
            "conversations.retention_set",
            target=f"license:{license.machine_id}",
            details={"days": days},
        )


# -- purge and erasure --------------------------------------------------------------------------

# The exchanges past their retention, summed into the daily counts, then removed (one
# statement: what is counted is exactly what is deleted). A license's own retention wins,
# unless one cut is asked for everyone (``uniform``).
_PURGE = """
WITH gone AS (
    DELETE FROM conversations_exchange e
    USING (
        SELECT e2.id FROM conversations_exchange e2
        LEFT JOIN conversations_retention r ON r.license_id = e2.license_id
        WHERE e2.created_at < %(now)s - make_interval(
            days => CASE WHEN %(uniform)s THEN %(days)s ELSE COALESCE(r.days, %(days)s) END
        )
        LIMIT %(batch)s
    ) expired
    WHERE e.id = expired.id
    RETURNING e.created_at, e.license_id, e.language, e.no_information, e.rating
), counted AS (
    INSERT INTO conversations_dailycount
        (day, license_id, language, questions, no_information, rated_up, rated_down)
    SELECT (created_at AT TIME ZONE %(tz)s)::date, license_id, language, count(*),
           count(*) FILTER (WHERE no_information),
           count(*) FILTER (WHERE rating = 'up'), count(*) FILTER (WHERE rating = 'down')
    FROM gone GROUP BY 1, 2, 3
    ON CONFLICT (day, license_id, language) DO UPDATE SET
        questions = conversations_dailycount.questions + EXCLUDED.questions,
        no_information = conversations_dailycount.no_information + EXCLUDED.no_information,
        rated_up = conversations_dailycount.rated_up + EXCLUDED.rated_up,
        rated_down = conversations_dailycount.rated_down + EXCLUDED.rated_down
    RETURNING questions
)
SELECT (SELECT count(*) FROM gone)
"""
PURGE_BATCH = 20_000


@dataclass(frozen=True)
class Purged:
    exchanges: int
    conversations: int
    gaps: int


def conversations_purge(
    *, older_than_days: int | None = None, now: datetime | None = None
) -> Purged:
    """Remove what is past its retention (``older_than_days``: this many days for every
    license instead), keeping its numbers in the daily counts. In batches, each one
    committed: an interrupted purge loses nothing and the next run goes on."""
    now = now or timezone.now()
    days = int(settings.CONVERSATION_RETENTION_DAYS) if older_than_days is None else older_than_days
    params: dict[str, Any] = {
        "now": now,
        "days": days,
        "uniform": older_than_days is not None,
        "batch": PURGE_BATCH,
        "tz": settings.TIME_ZONE,
    }
    exchanges = 0
    while True:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(_PURGE, params)
            removed = cursor.fetchone()[0]
        exchanges += removed
        if removed < PURGE_BATCH:
            break
    conversations, _ = Conversation.objects.filter(exchanges__isnull=True).delete()
    gaps = _gaps_without_questions()
    _expire_search_queries(now, days, uniform=older_than_days is not None)
    audit_record(
        "conversations.purged",
        details={
            "older_than_days": days,
            "exchanges": exchanges,
            "conversations": conversations,
            "gaps": gaps,
        },
    )
    return Purged(exchanges, conversations, gaps)


def _expire_search_queries(now: datetime, days: int, *, uniform: bool) -> int:
    """The access log keeps the words of a search as long as the conversations of its scope
    keep theirs (a license's own retention wins, unless one cut is asked for everyone); its
    numbers stay."""
    own = {} if uniform else dict(Retention.objects.values_list("license_id", "days"))
    emptied = search_logs_expire_queries(before=now - timedelta(days=days), other_than=own)
    for license_id, license_days in own.items():
        before = now - timedelta(days=license_days)
        emptied += search_logs_expire_queries(before=before, licenses=[license_id])
    return emptied


def _gaps_without_questions() -> int:
    """An open or dismissed gap whose every question is gone goes too (its centre was made
    of them); an answered one stays, without its centre, to show who answered what."""
    empty = Gap.objects.filter(exchanges__isnull=True)
    removed, _ = empty.filter(status__in=[GapStatus.OPEN, GapStatus.DISMISSED]).delete()
    empty.filter(status=GapStatus.ANSWERED).exclude(centroid=None).update(centroid=None)
    return removed


def conversations_erase_user(*, license: License, user_ref: str) -> int:
    """Everything this end user asked and was answered, gone (their erasure); journaled so
    a restore forgets it again. The gaps keep their numbers, not the words."""
    with transaction.atomic():
        transaction_lock("conversations", license.pk, user_ref)  # no answer kept meanwhile
        conversations = Conversation.objects.filter(license=license, user_ref=user_ref)
        ids = [str(pk) for pk in conversations.values_list("pk", flat=True)]
        search_logs_forget_queries(
            exchange_ids=Exchange.objects.filter(conversation__in=conversations).values_list(
                "pk", flat=True
            )
        )
        conversations.delete()
        _gaps_without_questions()
        transaction.on_commit(lambda: erasure_record("conversation", ids))
        audit_record(
            "conversations.erased",
            target=f"license:{license.machine_id}",
            details={"user": person_pseudonym(license.pk, user_ref), "conversations": len(ids)},
        )
        transaction.on_commit(
            lambda: conversations_erased.send(
                sender=Conversation, license_id=license.pk, user_ref=user_ref
            )
        )
    return len(ids)


def conversation_erase_again(conversation_id: str) -> bool:
    """An erased conversation a restored backup brought back, erased again: with its
    questions' words in the access log, as the first time."""
    with transaction.atomic():
        exchanges = Exchange.objects.filter(conversation_id=conversation_id)
        search_logs_forget_queries(exchange_ids=exchanges.values_list("pk", flat=True))
        deleted, _by_model = Conversation.objects.filter(pk=conversation_id).delete()
    return bool(deleted)


@dataclass(frozen=True)
class PersonErased:
    conversations: int
    memories: int


def person_erase(*, license: License, user_ref: str, actor: str) -> PersonErased:
    """An end user's whole erasure, as a privacy officer answers their request: their
    conversations (feedback included) and their memories and consent, in one transaction."""
    with transaction.atomic():
        conversations = conversations_erase_user(license=license, user_ref=user_ref)
        memories = memories_erase_person(license=license, user_ref=user_ref, actor=actor)
        audit_record(
            "user_data.erased",
            target=f"license:{license.machine_id}",
            details={
                "user": person_pseudonym(license.pk, user_ref),
                "conversations": conversations,
                "memories": memories,
            },
        )
    return PersonErased(conversations, memories)


# -- forgetting below reaches the copies kept here ------------------------------------------------


def exchanges_scrub_passages(*, chunk_ids: list[int]) -> int:
    """Forgotten passages leave no copy in stored answers: each citation of one says the
    source was forgotten, and the words of the answer that cited it are removed."""
    gone = set(chunk_ids)
    scrubbed = 0
    with transaction.atomic():
        for exchange in Exchange.objects.select_for_update().filter(chunk_ids__overlap=chunk_ids):
            numbers = {int(c["number"]) for c in exchange.citations if c.get("chunk_id") in gone}
            exchange.citations = [
                {"number": c["number"], "forgotten": True} if c.get("chunk_id") in gone else c
                for c in exchange.citations
            ]
            exchange.answer = _without_claims(exchange.answer, numbers, exchange.answerer)
            exchange.chunk_ids = [i for i in exchange.chunk_ids if i not in gone]
            exchange.save(update_fields=["citations", "answer", "chunk_ids"])
            scrubbed += 1
    return scrubbed


def _without_claims(answer: str, numbers: set[int], answerer: str) -> str:
    """The answer without the text each marker of ``numbers`` backs (what was said since the
    previous marker): the quotes of a forgotten source."""
    if not numbers:
        return answer
    parts, start = [], 0
    for marker in markers(answer, passages_quoted=quotes_are_passages(answerer)):
        claim = answer[start : marker.start()]
        if int(marker.group(1)) in numbers:
            parts.append(" " + FORGOTTEN_PASSAGE if claim.strip() else "")
        else:
            parts.append(claim + marker.group(0))
        start = marker.end()
    parts.append(answer[start:])
    return "".join(parts).strip()


def exchanges_scrub_memory(*, license_id: object, user_ref: str, description: str) -> int:
    """A forgotten memory leaves no copy in this user's stored questions and answers."""
    said = " ".join(fold(description).split())
    if not said:
        return 0
    scrubbed = 0
    exchanges = Exchange.objects.filter(license_id=str(license_id), conversation__user_ref=user_ref)
    for exchange in exchanges.only("question", "answer"):
        if said in " ".join(fold(exchange.question + " " + exchange.answer).split()):
            Exchange.objects.filter(pk=exchange.pk).update(question="", answer="")
            search_logs_forget_queries(exchange_ids=[exchange.pk])
            scrubbed += 1
    return scrubbed


# -- answering a gap ------------------------------------------------------------------------------

MAX_ANSWER_CHARS = 4000
MAX_QUESTION_CHARS = 300


def gap_answer(
    *, gap_id: int, question: str, answer: str, license: License | None, editor: str
) -> Gap:
    """A knowledge editor's answer to a gap becomes knowledge of the chosen scope (a
    Markdown document headed by the question, ingested like any upload and cited as the
    organisation's answer); the gap closes, saying who answered it and when."""
    question, answer = _answer_checked(question, answer)
    with transaction.atomic():
        gap = _gap_locked(gap_id)
        if gap.status == GapStatus.ANSWERED:
            raise ApplicationError(
                gettext_noop("This gap was already answered by %(editor)s."),
                params={"editor": gap.answered_by},
                status=409,
            )
        gap.answer_license = license
        gap.answer_document = _answer_stored(question, answer, license)
        gap.status = GapStatus.ANSWERED
        gap.dismissed_by, gap.dismissed_at = "", None  # answered after all
        _answer_signed(gap, question, answer, editor)
    return gap


def gap_answer_change(*, gap_id: int, question: str, answer: str, editor: str) -> Gap:
    """Correct an answered gap's answer: its document takes the new text as its new version
    (the same scope and id, so its citations stay; unchanged passages keep their vectors),
    and the gap says who changed it and when."""
    with transaction.atomic():
        gap = _gap_locked(gap_id)
        if gap.status != GapStatus.ANSWERED:
            raise ApplicationError(
                gettext_noop("This gap is not answered: answer it first."), status=409
            )
        question, answer = _answer_checked(question, answer)
        if gap.answer_document is None:  # forgotten before forgetting reopened gaps
            gap.answer_document = _answer_stored(question, answer, gap.answer_license)
        else:
            document_new_version(
                document=gap.answer_document,
                file=io.BytesIO(_answer_markdown(question, answer)),
                filename=_answer_filename(question),
            )
        _answer_signed(gap, question, answer, editor)
    return gap


_NOT_OPEN: dict[str, str] = {
    GapStatus.ANSWERED: gettext_noop("This gap is answered: change its answer instead."),
    GapStatus.DISMISSED: gettext_noop("This gap is already dismissed."),
}


def gap_dismiss(*, gap_id: int, editor: str) -> Gap:
    """Not for the knowledge to answer (a test, off topic, spam): the gap leaves the open
    ones, its askings keep counting in it (``gaps.gap_assign``), and it says who dismissed
    it and when."""
    with transaction.atomic():
        gap = _gap_locked(gap_id)
        if gap.status != GapStatus.OPEN:
            raise ApplicationError(_NOT_OPEN[gap.status], status=409)
        gap.status = GapStatus.DISMISSED
        gap.dismissed_by, gap.dismissed_at = editor[:150], timezone.now()
        gap.save(update_fields=["status", "dismissed_by", "dismissed_at"])
        audit_record("gap.dismissed", target=f"gap:{gap.pk}", details={"asked": gap.count})
    return gap


def gap_reopen(*, gap_id: int) -> Gap:
    """A dismissed gap is open again, to be answered."""
    with transaction.atomic():
        gap = _gap_locked(gap_id)
        if gap.status != GapStatus.DISMISSED:
            raise ApplicationError(gettext_noop("This gap is not dismissed."), status=409)
        gap.status = GapStatus.OPEN
        gap.dismissed_by, gap.dismissed_at = "", None
        gap.save(update_fields=["status", "dismissed_by", "dismissed_at"])
        audit_record("gap.reopened", target=f"gap:{gap.pk}", details={"asked": gap.count})
    return gap


def gaps_reopen_forgotten(*, document_id: UUID) -> int:
    """The answer of these gaps was forgotten from the knowledge: they are open again, so
    their next askings count in them and an editor can answer them again (the forgotten
    answer stays on the gap to start from). Inside the forgetting's transaction."""
    return Gap.objects.filter(answer_document_id=document_id, status=GapStatus.ANSWERED).update(
        status=GapStatus.OPEN
    )


def _answer_checked(question: str, answer: str) -> tuple[str, str]:
    question, answer = " ".join(question.split()), answer.strip()
    if not answer:
        raise ApplicationError(gettext_noop("Write the answer."))
    if len(answer) > MAX_ANSWER_CHARS:
        raise ApplicationError(gettext_noop("An answer is at most 4000 characters."))
    if not question or len(question) > MAX_QUESTION_CHARS:
        raise ApplicationError(
            gettext_noop("Write the question it answers (up to 300 characters).")
        )
    return question, answer


def _gap_locked(gap_id: int) -> Gap:
    gap = Gap.objects.select_for_update().filter(pk=gap_id).first()
    if gap is None:
        raise ApplicationError(gettext_noop("No such knowledge gap."), status=404)
    return gap


def _answer_markdown(question: str, answer: str) -> bytes:
    return f"# {question}\n\n{answer}\n".encode()


def _answer_stored(question: str, answer: str, license: License | None) -> Document:
    return document_create(
        file=io.BytesIO(_answer_markdown(question, answer)),
        filename=_answer_filename(question),
        license=license,
        source_type=SourceType.ANSWER,
    ).document


def _answer_signed(gap: Gap, question: str, answer: str, editor: str) -> None:
    gap.answer_question, gap.answer = question, answer
    gap.answered_by, gap.answered_at = editor[:150], timezone.now()
    gap.save()


def _answer_filename(question: str) -> str:
    """The citation's name: the question itself (a file name cannot hold "/" or "?")."""
    name = re.sub(r"[\\/:*?\"<>|¿¡]+", "", question).strip(" .") or "answer"
    return f"{name[:120]}.md"
