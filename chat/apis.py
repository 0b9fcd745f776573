"""Chat API: a whole answer, or Server-Sent Events (deltas, then citations, then done)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from typing import Any

from django.http import StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from chat.language import accept_language_hints
from chat.services import ChatTurn, chat_answer, chat_prepare, chat_stream
from chat.session import session_transcript
from licenses.authentication import LicenseKeyAuthentication
from licenses.models import License
from licenses.permissions import IsAdminOrLicense
from licenses.principals import Principal, principal_from_request
from licenses.throttles import ChatRateThrottle, WidgetRateThrottle
from licenses.widget_tokens import widget_token_issue, widget_token_revoke
from portality.http import event_stream
from portality.languages import LANGUAGES
from portality.providers import ProviderError


class ChatInputSerializer(serializers.Serializer):
    message = serializers.CharField(max_length=4000, trim_whitespace=True)
    session_id = serializers.CharField(max_length=64, required=False, allow_blank=True)
    user = serializers.CharField(
        max_length=120,
        required=False,
        default="default",
        help_text="The end user's reference within the license (sessions are per user).",
    )
    license = serializers.CharField(
        required=False, help_text="Admins only: speak as this machine_id."
    )
    lang = serializers.ChoiceField(
        choices=list(LANGUAGES),
        required=False,
        help_text="The page's language: answers follow the question's language, and this "
        "one when a short question does not tell.",
    )


class CitationSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    document = serializers.CharField()
    document_id = serializers.CharField()
    page = serializers.IntegerField(allow_null=True)
    chunk_id = serializers.IntegerField()
    score = serializers.FloatField()
    excerpt = serializers.CharField(allow_blank=True)


class ChatOutputSerializer(serializers.Serializer):
    answer = serializers.CharField()
    citations = CitationSerializer(many=True)
    session_id = serializers.CharField()


@dataclass(frozen=True)
class _ChatRequest:
    principal: Principal
    question: str
    session_id: str | None
    user_ref: str
    language_hints: list[str | None]

    def as_arguments(self) -> dict[str, Any]:
        """What chat_answer and chat_prepare take (a shallow copy: the principal stays one)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _chat_request(request: Request) -> _ChatRequest:
    data = ChatInputSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    values = data.validated_data
    return _ChatRequest(
        principal=principal_from_request(request, as_license=values.get("license")),
        question=values["message"],
        session_id=values.get("session_id") or None,
        # A widget token names its end user; only a license key's backend may say which user.
        user_ref=getattr(request.user, "user_ref", None) or values["user"],
        language_hints=[
            values.get("lang"),
            *accept_language_hints(request.headers.get("Accept-Language", "")),
        ],
    )


class ChatApi(APIView):
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [ChatRateThrottle]

    @extend_schema(
        request=ChatInputSerializer, responses=ChatOutputSerializer, summary="Ask the assistant"
    )
    def post(self, request: Request) -> Response:
        answer = chat_answer(**_chat_request(request).as_arguments())
        payload = {
            "answer": answer.answer,
            "citations": [asdict(c) for c in answer.citations],
            "session_id": answer.session_id,
        }
        return Response(ChatOutputSerializer(payload).data)


def _event(name: str, data: object) -> str:
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _sse(turn: ChatTurn, principal: Principal, user_ref: str, *, explain: bool) -> Iterator[str]:
    if explain:  # admins see what was retrieved, with every score, and the exact prompt
        yield _event(
            "sources", [asdict(r) | {"document_id": str(r.document_id)} for r in turn.results]
        )
        yield _event("prompt", {"text": turn.prompt.as_text()})
    try:
        for delta in chat_stream(turn, principal=principal, user_ref=user_ref):
            yield _event("delta", {"text": delta})
    except ProviderError as exc:
        yield _event("error", {"detail": exc.message})
        return
    yield _event("citations", [asdict(c) for c in turn.citations])
    yield _event("done", {"session_id": turn.session_id})


class ChatStreamApi(APIView):
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [ChatRateThrottle]

    @extend_schema(
        request=ChatInputSerializer,
        responses={
            200: OpenApiResponse(
                description="text/event-stream: delta*, citations, done (or error)"
            )
        },
        summary="Ask the assistant, streamed as Server-Sent Events",
    )
    def post(self, request: Request) -> StreamingHttpResponse:
        chat = _chat_request(request)
        turn = chat_prepare(**chat.as_arguments())
        principal, user_ref = chat.principal, chat.user_ref
        explain = bool(getattr(request.user, "is_staff", False))
        return event_stream(request._request, _sse(turn, principal, user_ref, explain=explain))


class ChatSessionApi(APIView):
    """The conversation so far, for a widget reopened after a page reload, and the name the
    assistant greets the user by. Only the caller's own session: the key is per license and
    end user, so another user's session id finds nothing."""

    permission_classes = [IsAdminOrLicense]
    throttle_classes = [WidgetRateThrottle]

    class OutputSerializer(serializers.Serializer):
        session_id = serializers.CharField(allow_null=True)
        user_name = serializers.CharField(allow_blank=True)
        turns = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        parameters=[
            OpenApiParameter("session_id", str, description="The widget's stored session id."),
            OpenApiParameter("user", str, description="License keys only: the end user."),
        ],
        responses=OutputSerializer,
        summary="My conversation so far",
    )
    def get(self, request: Request) -> Response:
        principal = principal_from_request(request)
        user_ref = getattr(request.user, "user_ref", None) or request.query_params.get("user", "")
        session_id = request.query_params.get("session_id", "")[:64]
        session = (
            session_transcript(
                license_id=principal.license_id,
                user_ref=user_ref[:120] or "default",
                session_id=session_id,
            )
            if session_id
            else None
        )
        payload = {
            "session_id": session.id if session else None,
            "user_name": principal.license.user_name if principal.license else "",
            "turns": session.turns if session else [],
        }
        return Response(self.OutputSerializer(payload).data)


class WidgetTokenApi(APIView):
    """For a product's backend (license key only): a token the page's widget can hold."""

    authentication_classes = [LicenseKeyAuthentication]
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [WidgetRateThrottle]

    class InputSerializer(serializers.Serializer):
        user = serializers.CharField(
            max_length=120, help_text="The end user's reference in your product."
        )
        origin = serializers.CharField(
            max_length=255, help_text="The page origin the widget runs on."
        )

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()
        expires_at = serializers.DateTimeField()

    @extend_schema(
        request=InputSerializer,
        responses=OutputSerializer,
        summary="Exchange a license key for a widget token",
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.auth, License):
            return Response({"detail": "Authenticate with the license key."}, status=403)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, expires_at = widget_token_issue(
            license=request.auth,
            user_ref=data.validated_data["user"],
            origin=data.validated_data["origin"],
        )
        return Response(self.OutputSerializer({"token": token, "expires_at": expires_at}).data)


class WidgetTokenRevokeApi(APIView):
    """For a product's backend (license key only): end a widget token before it expires
    (its user logged out, the page leaked it). The token is refused from then on."""

    authentication_classes = [LicenseKeyAuthentication]
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [WidgetRateThrottle]

    class InputSerializer(serializers.Serializer):
        token = serializers.CharField(max_length=2000, help_text="The widget token to end.")

    @extend_schema(request=InputSerializer, responses={204: None}, summary="Revoke a widget token")
    def post(self, request: Request) -> Response:
        if not isinstance(request.auth, License):
            return Response({"detail": "Authenticate with the license key."}, status=403)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        widget_token_revoke(license=request.auth, token=data.validated_data["token"])
        return Response(status=204)
