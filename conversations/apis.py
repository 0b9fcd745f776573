"""The API of what users asked: feedback (an end user's 👍/👎), conversations (staff review
them), knowledge gaps (editors answer them), and an end user's own conversations.

Staff calls are checked against the account's role like the console's pages; end-user calls
take the user from the widget token (or, with the license key, the ``user`` named), so
nothing in a request reaches another user's answers."""

from __future__ import annotations

from datetime import date
from typing import Any
from uuid import UUID

from django.http import HttpResponse, StreamingHttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import ADMIN_AUTHENTICATION
from accounts.permissions import staff_permission
from accounts.roles import (
    ANSWER_GAPS,
    DELETE_MEMORIES,
    ERASE_CONVERSATIONS,
    REVIEW_CONVERSATIONS,
    SEARCH_AS_ADMIN,
    VIEW_CONVERSATIONS,
    VIEW_GAPS,
)
from conversations import selectors, services
from conversations.exports import (
    exchange_row,
    exchanges_download,
    gap_row,
    gaps_download,
    user_data_download,
)
from conversations.models import Cause, Exchange, Rating, Reason, Verdict
from knowledge.apis import SearchApi
from licenses.permissions import IsAdminOrLicense
from licenses.principals import end_user_from_request
from licenses.selectors import license_for_scope
from licenses.throttles import USER_REF_MAX_LENGTH, MemoryRateThrottle
from memory.apis import MemoryConsentSerializer, MemoryHistorySerializer, MemorySerializer

LIST_LIMIT = 200


class StaffApi(APIView):
    authentication_classes = ADMIN_AUTHENTICATION


# -- feedback ------------------------------------------------------------------------------------


class FeedbackInputSerializer(serializers.Serializer):
    answer_id = serializers.UUIDField(help_text="The answer_id the chat returned.")
    rating = serializers.ChoiceField(choices=Rating.values)
    reason = serializers.ChoiceField(choices=Reason.values, required=False, allow_blank=True)
    comment = serializers.CharField(
        max_length=services.MAX_COMMENT_CHARS, required=False, allow_blank=True
    )
    user = serializers.CharField(
        max_length=USER_REF_MAX_LENGTH, required=False, help_text="License keys only: the end user."
    )


class FeedbackApi(APIView):
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [MemoryRateThrottle]

    @extend_schema(
        tags=["feedback"],
        request=FeedbackInputSerializer,
        responses={
            200: inline_serializer(
                "FeedbackRecorded",
                {"answer_id": serializers.UUIDField(), "rating": serializers.CharField()},
            )
        },
        summary="Rate an answer (helpful or not, a reason and a comment)",
    )
    def post(self, request: Request) -> Response:
        data = FeedbackInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        license, user_ref = end_user_from_request(request, values.get("user", ""))
        exchange = services.feedback_record(
            license=license,
            user_ref=user_ref,
            answer_id=values["answer_id"],
            rating=values["rating"],
            reason=values.get("reason", ""),
            comment=values.get("comment", ""),
        )
        return Response({"answer_id": str(exchange.pk), "rating": exchange.rating})


# -- conversations (staff) -----------------------------------------------------------------------


class QueueQuerySerializer(serializers.Serializer):
    """The review queue's filters, as query parameters (the schema documents them from here)."""

    license = serializers.CharField(required=False, help_text="A machine_id.")
    user = serializers.CharField(
        required=False, max_length=USER_REF_MAX_LENGTH, help_text="An end user's reference."
    )
    since = serializers.DateField(required=False, help_text="Asked on or after (YYYY-MM-DD).")
    until = serializers.DateField(required=False, help_text="Asked on or before (YYYY-MM-DD).")
    rating = serializers.ChoiceField(choices=["up", "down", "none"], required=False)
    no_information = serializers.BooleanField(
        required=False,
        default=False,
        help_text="true: only answers that said there was no information.",
    )
    low_score = serializers.BooleanField(
        required=False,
        default=False,
        help_text="true: only answers under the calibrated retrieval score.",
    )
    in_gap = serializers.BooleanField(
        required=False,
        default=False,
        help_text="true: only answers counted in a knowledge gap (no information, rated "
        "not helpful, under the calibrated score, or asking about what no document mentions).",
    )
    language = serializers.ChoiceField(choices=["es", "pt", "en"], required=False)
    reviewed = serializers.ChoiceField(choices=["yes", "no"], required=False)


class QueuePageQuerySerializer(QueueQuerySerializer):
    # Bounded: PostgreSQL's OFFSET is a bigint, and a larger number was a 500 (the fuzzer's).
    offset = serializers.IntegerField(required=False, default=0, min_value=0, max_value=2**31 - 1)
    limit = serializers.IntegerField(required=False, default=50, min_value=1, max_value=LIST_LIMIT)


class ExportFormatSerializer(serializers.Serializer):
    """``?as=csv|json`` (a field named by a keyword, so added by name)."""

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        fields["as"] = serializers.ChoiceField(choices=["csv", "json"], default="csv")
        return fields


class QueueExportQuerySerializer(ExportFormatSerializer, QueueQuerySerializer):
    """The review queue's filters and the export's format."""


def queue_filters(values: dict[str, Any]) -> selectors.QueueFilters:
    since: date | None = values.get("since")
    until: date | None = values.get("until")
    return selectors.QueueFilters(
        license=license_for_scope(values.get("license")),
        user_ref=values.get("user", ""),
        since=since,
        until=until,
        rating=values.get("rating", ""),
        no_information=values.get("no_information", False),
        low_score=values.get("low_score", False),
        in_gap=values.get("in_gap", False),
        language=values.get("language", ""),
        reviewed=values.get("reviewed", ""),
    )


class MyExchangeSerializer(serializers.Serializer):
    """A question and its answer as the person who asked sees them (their own data)."""

    answer_id = serializers.UUIDField()
    asked_at = serializers.DateTimeField()
    question = serializers.CharField()
    answer = serializers.CharField()
    language = serializers.CharField()
    sources = serializers.ListField(child=serializers.CharField())
    rating = serializers.CharField()
    reason = serializers.CharField()
    comment = serializers.CharField()


class ExchangeSerializer(MyExchangeSerializer):
    """The same exchange in the review queue: who asked, how retrieval did, the review."""

    license = serializers.CharField()
    user = serializers.CharField()
    no_information = serializers.BooleanField()
    low_score = serializers.BooleanField()
    best_score = serializers.FloatField(allow_null=True)
    verdict = serializers.CharField()
    cause = serializers.CharField()
    review_comment = serializers.CharField()
    reviewed_by = serializers.CharField()


class CitedExchangeSerializer(ExchangeSerializer):
    citations = serializers.ListField(child=serializers.DictField())


class ConversationSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    license = serializers.CharField()
    user = serializers.CharField()
    started_at = serializers.DateTimeField()
    exchanges = CitedExchangeSerializer(many=True)


class QueueRowSerializer(ExchangeSerializer):
    conversation_id = serializers.UUIDField()


class QueuePageSerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="Answers matching the filters, on every page.")
    results = QueueRowSerializer(many=True)


class ConversationListApi(StaffApi):
    permission_classes = [staff_permission(VIEW_CONVERSATIONS)]

    @extend_schema(
        tags=["conversations"],
        parameters=[QueuePageQuerySerializer],
        responses=QueuePageSerializer,
        summary="Answers users were given (the review queue), newest first",
    )
    def get(self, request: Request) -> Response:
        query = QueuePageQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        values = query.validated_data
        rows = selectors.exchange_queue(queue_filters(values))
        page = rows[values["offset"] : values["offset"] + values["limit"]]
        return Response(
            {
                "count": rows.count(),
                "results": [
                    exchange_row(e) | {"conversation_id": str(e.conversation_id)} for e in page
                ],
            }
        )


class ConversationExportApi(StaffApi):
    permission_classes = [staff_permission(VIEW_CONVERSATIONS)]

    @extend_schema(
        tags=["conversations"],
        parameters=[QueueExportQuerySerializer],
        responses={
            (200, "text/csv"): OpenApiTypes.STR,
            (200, "application/json"): ExchangeSerializer(many=True),
        },
        summary="The review queue as a CSV or JSON file",
    )
    def get(self, request: Request) -> HttpResponse | StreamingHttpResponse:
        query = QueueExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = selectors.exchange_queue(queue_filters(query.validated_data))
        return exchanges_download(rows, query.validated_data["as"], with_user=True)


class ConversationDetailApi(StaffApi):
    permission_classes = [staff_permission(VIEW_CONVERSATIONS)]

    @extend_schema(
        tags=["conversations"],
        parameters=[OpenApiParameter("id", OpenApiTypes.UUID, OpenApiParameter.PATH)],
        responses=ConversationSerializer,
        summary="One conversation, every answer with its citations",
    )
    def get(self, request: Request, pk: UUID) -> Response:
        conversation = selectors.conversation_get(pk)
        if conversation is None:
            raise exceptions.NotFound(_("No such conversation."))
        return Response(
            {
                "id": str(conversation.pk),
                "license": conversation.license.machine_id if conversation.license else "",
                "user": conversation.user_ref,
                "started_at": conversation.started_at,
                "exchanges": [
                    exchange_row(e) | {"citations": e.citations}
                    for e in conversation.exchanges.all()
                ],
            }
        )


class ReviewInputSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=Verdict.values)
    cause = serializers.ChoiceField(choices=Cause.values, required=False, allow_blank=True)
    comment = serializers.CharField(
        max_length=services.MAX_COMMENT_CHARS, required=False, allow_blank=True
    )


class AnswerReviewApi(StaffApi):
    permission_classes = [staff_permission(REVIEW_CONVERSATIONS)]

    @extend_schema(
        tags=["conversations"],
        request=ReviewInputSerializer,
        responses=ExchangeSerializer,
        summary="Record a verdict (and a cause) on one answer",
    )
    def post(self, request: Request, pk: UUID) -> Response:
        exchange = selectors.exchange_get(pk)
        if exchange is None:
            raise exceptions.NotFound(_("No such answer."))
        data = ReviewInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        exchange = services.exchange_review(
            exchange=exchange,
            verdict=values["verdict"],
            cause=values.get("cause", ""),
            comment=values.get("comment", ""),
            reviewer=request.user.get_username(),
        )
        return Response(exchange_row(exchange))


class CutSerializer(serializers.Serializer):
    reason = serializers.ChoiceField(
        choices=["threshold", "far_below_best"],
        help_text="Under the calibrated threshold, or far below the best result.",
    )
    result = SearchApi.ResultSerializer()


class SearchAgainSerializer(SearchApi.OutputSerializer):
    cut = CutSerializer(many=True, help_text="Retrieved but not kept: the best few, and why.")


def _searched_again(request: Request, exchange: Exchange, *, as_followed: bool) -> Response:
    response = services.exchange_search_again(
        exchange=exchange, actor=request.user.get_username(), as_followed=as_followed
    )
    return Response(SearchAgainSerializer(response).data)


class AnswerSearchApi(StaffApi):
    permission_classes = [staff_permission(VIEW_CONVERSATIONS), staff_permission(SEARCH_AS_ADMIN)]

    @extend_schema(
        tags=["conversations"],
        responses=SearchAgainSerializer,
        summary="What a search for this answer's question finds in its scope now (kept and "
        "cut), logged as your access, linked to the answer",
    )
    def get(self, request: Request, pk: UUID) -> Response:
        exchange = selectors.exchange_get(pk)
        if exchange is None:
            raise exceptions.NotFound(_("No such answer."))
        return _searched_again(request, exchange, as_followed=True)


class EraseInputSerializer(serializers.Serializer):
    license = serializers.CharField(help_text="The end user's license (machine_id).")
    user = serializers.CharField(max_length=USER_REF_MAX_LENGTH)
    memories = serializers.BooleanField(
        default=False,
        help_text="Also forget their memories and their consent to be remembered: their whole "
        "erasure (a role that may delete memories).",
    )


class ConversationEraseApi(StaffApi):
    permission_classes = [staff_permission(ERASE_CONVERSATIONS)]

    @extend_schema(
        tags=["conversations"],
        request=EraseInputSerializer,
        responses={
            200: inline_serializer(
                "ConversationsErasedByStaff",
                {
                    "conversations_erased": serializers.IntegerField(),
                    "memories_forgotten": serializers.IntegerField(
                        required=False, help_text="With memories=true."
                    ),
                },
            )
        },
        summary="Erase one end user's conversations, or with memories everything kept about "
        "them (their right to erasure)",
    )
    def post(self, request: Request) -> Response:
        data = EraseInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        license = license_for_scope(data.validated_data["license"])
        if license is None:
            raise exceptions.ValidationError({"license": _("Name the end user's license.")})
        user_ref = data.validated_data["user"]
        if not data.validated_data["memories"]:
            erased = services.conversations_erase_user(license=license, user_ref=user_ref)
            return Response({"conversations_erased": erased})
        if not request.user.has_perm(DELETE_MEMORIES):
            raise exceptions.PermissionDenied(_("Your role may not delete memories."))
        person = services.person_erase(
            license=license, user_ref=user_ref, actor=f"admin:{request.user.get_username()}"
        )
        return Response(
            {"conversations_erased": person.conversations, "memories_forgotten": person.memories}
        )


# -- knowledge gaps ------------------------------------------------------------------------------


class GapSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    count = serializers.IntegerField()
    languages = serializers.ListField(child=serializers.CharField())
    licenses = serializers.ListField(child=serializers.CharField())
    first_asked = serializers.CharField()
    last_asked = serializers.CharField()
    examples = serializers.ListField(child=serializers.CharField())
    answered_by = serializers.CharField()
    answered_at = serializers.CharField(allow_null=True)
    answer_question = serializers.CharField(
        help_text="The question the answer is headed by (kept when its document is forgotten)."
    )
    answer = serializers.CharField()
    answer_document = serializers.CharField(
        allow_null=True, help_text="The answer's document; null once forgotten."
    )
    dismissed_by = serializers.CharField(help_text="Who dismissed it (empty: not dismissed).")
    dismissed_at = serializers.CharField(allow_null=True)


class GapQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=["open", "answered", "dismissed", "all"], default="open", required=False
    )
    license = serializers.CharField(required=False, help_text="Only gaps asked in this machine_id.")


class GapExportQuerySerializer(ExportFormatSerializer, GapQuerySerializer):
    """The gaps' filters and the export's format."""


def _gaps(request: Request, query: type[GapQuerySerializer]) -> tuple[Any, dict[str, Any]]:
    """The gaps the query parameters ask for (a queryset), and the parameters validated."""
    data = query(data=request.query_params)
    data.is_valid(raise_exception=True)
    values = data.validated_data
    status = "" if values["status"] == "all" else values["status"]
    license = license_for_scope(values.get("license"))
    return selectors.gap_list(status=status, license=license), values


class GapListApi(StaffApi):
    permission_classes = [staff_permission(VIEW_GAPS)]

    @extend_schema(
        tags=["knowledge-gaps"],
        parameters=[GapQuerySerializer],
        responses=GapSerializer(many=True),
        summary="Questions the knowledge did not answer, grouped by meaning (no one's identity)",
    )
    def get(self, request: Request) -> Response:
        gaps = list(_gaps(request, GapQuerySerializer)[0][:LIST_LIMIT])
        names = selectors.license_names(gaps)
        return Response([gap_row(g, names) for g in gaps])


class GapExportApi(StaffApi):
    permission_classes = [staff_permission(VIEW_GAPS)]

    @extend_schema(
        tags=["knowledge-gaps"],
        parameters=[GapExportQuerySerializer],
        responses={
            (200, "text/csv"): OpenApiTypes.STR,
            (200, "application/json"): GapSerializer(many=True),
        },
        summary="Knowledge gaps as a CSV or JSON file",
    )
    def get(self, request: Request) -> HttpResponse | StreamingHttpResponse:
        gaps, values = _gaps(request, GapExportQuerySerializer)
        return gaps_download(gaps, values["as"])


class GapSearchApi(StaffApi):
    permission_classes = [staff_permission(VIEW_GAPS), staff_permission(SEARCH_AS_ADMIN)]

    @extend_schema(
        tags=["knowledge-gaps"],
        responses=SearchAgainSerializer,
        summary="What a search for a gap's latest phrasing finds in its scope now: is it in "
        "a document already?",
    )
    def get(self, request: Request, pk: int) -> Response:
        exchange = selectors.gap_latest_asked(pk)
        if exchange is None:
            raise exceptions.NotFound(_("No such knowledge gap, or none of its phrasings is kept."))
        # The phrasing alone: a gap's reader never sees the questions its person asked before.
        return _searched_again(request, exchange, as_followed=False)


class GapAnswerInputSerializer(serializers.Serializer):
    answer = serializers.CharField(max_length=services.MAX_ANSWER_CHARS)
    license = serializers.CharField(
        required=False, allow_blank=True, help_text="A machine_id; empty: global."
    )
    question = serializers.CharField(
        max_length=services.MAX_QUESTION_CHARS,
        required=False,
        allow_blank=True,
        help_text="The question it answers (its heading); empty: the gap's latest phrasing.",
    )


class GapAnswerChangeInputSerializer(serializers.Serializer):
    answer = serializers.CharField(max_length=services.MAX_ANSWER_CHARS)
    question = serializers.CharField(
        max_length=services.MAX_QUESTION_CHARS,
        required=False,
        allow_blank=True,
        help_text="The question it answers (its heading); empty: the one it has.",
    )


class GapAnswerApi(StaffApi):
    permission_classes = [staff_permission(ANSWER_GAPS)]

    @extend_schema(
        tags=["knowledge-gaps"],
        request=GapAnswerInputSerializer,
        responses=GapSerializer,
        summary="Answer a gap: the answer becomes curated knowledge in the chosen scope",
    )
    def post(self, request: Request, pk: int) -> Response:
        data = GapAnswerInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        gap = selectors.gap_get(pk)
        if gap is None:
            raise exceptions.NotFound(_("No such knowledge gap."))
        examples = selectors.gap_examples(gap)
        question = values.get("question") or (examples[0] if examples else "")
        services.gap_answer(
            gap_id=pk,
            question=question,
            answer=values["answer"],
            license=license_for_scope(values.get("license")),
            editor=request.user.get_username(),
        )
        return _gap_now(pk)

    @extend_schema(
        tags=["knowledge-gaps"],
        request=GapAnswerChangeInputSerializer,
        responses=GapSerializer,
        summary="Change an answered gap's answer: its document takes the new text as its new "
        "version (same scope and id)",
    )
    def put(self, request: Request, pk: int) -> Response:
        data = GapAnswerChangeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        gap = selectors.gap_get(pk)
        if gap is None:
            raise exceptions.NotFound(_("No such knowledge gap."))
        services.gap_answer_change(
            gap_id=pk,
            question=data.validated_data.get("question") or gap.answer_question,
            answer=data.validated_data["answer"],
            editor=request.user.get_username(),
        )
        return _gap_now(pk)


class GapDismissApi(StaffApi):
    permission_classes = [staff_permission(ANSWER_GAPS)]

    @extend_schema(
        tags=["knowledge-gaps"],
        request=None,
        responses=GapSerializer,
        summary="Dismiss an open gap: not for the knowledge to answer (a test, off topic, "
        "spam); its askings keep counting in it, out of the open gaps",
    )
    def post(self, request: Request, pk: int) -> Response:
        services.gap_dismiss(gap_id=pk, editor=request.user.get_username())
        return _gap_now(pk)


class GapReopenApi(StaffApi):
    permission_classes = [staff_permission(ANSWER_GAPS)]

    @extend_schema(
        tags=["knowledge-gaps"],
        request=None,
        responses=GapSerializer,
        summary="Reopen a dismissed gap",
    )
    def post(self, request: Request, pk: int) -> Response:
        services.gap_reopen(gap_id=pk)
        return _gap_now(pk)


def _gap_now(pk: int) -> Response:
    """The gap as this request just left it."""
    gap = selectors.gap_get(pk)
    assert gap is not None  # noqa: S101 - just changed, inside this request
    return Response(gap_row(gap, selectors.license_names([gap])))


# -- an end user's own ---------------------------------------------------------------------------


END_USER = OpenApiParameter("user", str, description="License keys only: the end user.")


class MyConversationSerializer(serializers.Serializer):
    session_id = serializers.CharField()
    started_at = serializers.DateTimeField()
    exchanges = MyExchangeSerializer(many=True)


class MyDataSerializer(serializers.Serializer):
    user = serializers.CharField()
    license = serializers.CharField(help_text="The license's machine_id.")
    memories = MemorySerializer(many=True)
    consent = MemoryConsentSerializer(
        allow_null=True, help_text="Whether memories are allowed, and when (null: never asked)."
    )
    memory_history = MemoryHistorySerializer(
        many=True, help_text="What happened to the memories and the consent, oldest first."
    )
    conversations = MyConversationSerializer(many=True)


class EndUserApi(APIView):
    """What an end user reads or erases of their own (a widget token, or the license key
    naming the user), rate-limited like their memories."""

    permission_classes = [IsAdminOrLicense]
    throttle_classes = [MemoryRateThrottle]


class MyConversationsApi(EndUserApi):
    @extend_schema(
        tags=["conversations"],
        parameters=[END_USER],
        responses=MyConversationSerializer(many=True),
        summary="My conversations, as kept",
    )
    def get(self, request: Request) -> Response:
        license, user_ref = end_user_from_request(request)
        return Response(selectors.user_conversations(license=license, user_ref=user_ref))

    @extend_schema(
        tags=["conversations"],
        parameters=[END_USER],
        responses={
            200: inline_serializer(
                "ConversationsErased", {"conversations_erased": serializers.IntegerField()}
            )
        },
        summary="Erase my conversations",
    )
    def delete(self, request: Request) -> Response:
        license, user_ref = end_user_from_request(request)
        erased = services.conversations_erase_user(license=license, user_ref=user_ref)
        return Response({"conversations_erased": erased})


class MyDataApi(EndUserApi):
    @extend_schema(
        tags=["conversations"],
        parameters=[END_USER],
        responses=MyDataSerializer,
        summary="Download everything kept about me (memories and conversations) as JSON",
    )
    def get(self, request: Request) -> HttpResponse:
        license, user_ref = end_user_from_request(request)
        return user_data_download(license, user_ref, "my-data.json")
