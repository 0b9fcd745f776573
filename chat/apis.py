"""Chat API: a whole answer, or Server-Sent Events (deltas, then citations, then done)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import StreamingHttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import staff_permission
from accounts.roles import SHAPE_ASSISTANT
from chat.language import accept_language_hints, answer_language
from chat.markdown import answer_html
from chat.models import Assistant
from chat.selectors import NUMBER_FIELDS, TEXT_FIELDS, assistant_profile, assistant_rows
from chat.services import (
    QUESTION_MAX_CHARS,
    ChatTurn,
    assistant_reset,
    assistant_update,
    chat_answer,
    chat_prepare,
    chat_stream,
)
from chat.session import session_transcript
from licenses.authentication import LicenseKeyAuthentication
from licenses.models import License
from licenses.permissions import IsAdminOrLicense
from licenses.principals import Principal, principal_from_request
from licenses.selectors import license_get_for_machine_id
from licenses.throttles import ChatRateThrottle, WidgetRateThrottle
from licenses.widget_tokens import widget_token_issue, widget_token_revoke
from providers import ProviderError
from text.languages import LANGUAGES
from web.http import event_stream


class ChatInputSerializer(serializers.Serializer):
    message = serializers.CharField(max_length=QUESTION_MAX_CHARS, trim_whitespace=True)
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
    excerpt = serializers.CharField(allow_blank=True, help_text="The cited passage.")
    section = serializers.CharField(
        allow_blank=True, help_text="Its heading (or first words): tells passages apart."
    )
    quote = serializers.CharField(
        allow_blank=True, help_text="The passage's sentence the answer relied on."
    )
    curated = serializers.BooleanField(
        help_text="The organisation's own answer (written to close a knowledge gap)."
    )


class ChatOutputSerializer(serializers.Serializer):
    answer = serializers.CharField()
    citations = CitationSerializer(many=True)
    session_id = serializers.CharField()
    answer_id = serializers.CharField(
        allow_blank=True,
        help_text="The kept answer: what feedback names (POST /api/v1/feedback).",
    )
    answer_html = serializers.CharField(
        help_text="The answer's Markdown as safe HTML (no raw HTML, http(s) links only)."
    )


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
            "answer_id": answer.answer_id,
            "answer_html": answer_html(answer.answer),
        }
        return Response(ChatOutputSerializer(payload).data)


# One Server-Sent Event, as the schema documents it (OpenAPI 3.0: a text/event-stream's
# schema describes each event).
STREAM_EVENT = {
    "type": "object",
    "properties": {
        "event": {
            "type": "string",
            "enum": ["sources", "prompt", "delta", "error", "citations", "done"],
        },
        "data": {
            "type": "string",
            "description": "JSON. sources and prompt (staff only): what was retrieved and the "
            "prompt sent; delta: {text}; error: {detail}; citations: [Citation]; done: "
            "{session_id, answer_id, html}.",
        },
    },
    "required": ["event", "data"],
}


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
    yield _event(
        "done",
        {
            "session_id": turn.session_id,
            "answer_id": turn.answer_id,
            "html": answer_html(turn.answer),
        },
    )


class ChatStreamApi(APIView):
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [ChatRateThrottle]

    @extend_schema(
        request=ChatInputSerializer,
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                STREAM_EVENT,
                description="Server-Sent Events: delta*, citations, done (or error); done "
                "carries session_id, answer_id and the answer as safe HTML (html)",
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


class WidgetAssistantSerializer(serializers.Serializer):
    name = serializers.CharField()
    # color is #rrggbb, position right|left, icon chat|help|spark
    title = serializers.CharField()
    greeting = serializers.CharField()
    suggestions = serializers.ListField(child=serializers.CharField())
    color = serializers.CharField()
    position = serializers.CharField()
    icon = serializers.CharField()


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
        assistant = WidgetAssistantSerializer(
            help_text="How the widget presents the assistant; the greeting in the language "
            "asked for."
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("session_id", str, description="The widget's stored session id."),
            OpenApiParameter("user", str, description="License keys only: the end user."),
            OpenApiParameter(
                "lang", str, description="The page's language (es, pt, en) for the greeting."
            ),
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
        user_name = principal.license.user_name if principal.license else ""
        language = answer_language(
            "",
            [
                request.query_params.get("lang", "")[:8],
                *accept_language_hints(request.headers.get("Accept-Language", "")),
            ],
        )
        payload = {
            "session_id": session.id if session else None,
            "user_name": user_name,
            "turns": [_with_html(t) for t in session.turns] if session else [],
            "assistant": _widget_assistant(principal, language, user_name),
        }
        return Response(self.OutputSerializer(payload).data)


def _with_html(turn: dict[str, Any]) -> dict[str, Any]:
    """An answer's turn with its safe HTML, as the widget shows it."""
    return {**turn, "html": answer_html(turn["text"])} if turn.get("role") == "model" else turn


def _widget_assistant(principal: Principal, language: str, user_name: str) -> dict[str, Any]:
    profile = assistant_profile(principal.license)
    return {
        "name": profile.name,
        "title": profile.title,
        "greeting": profile.greeting_for(language, user_name),
        "suggestions": profile.suggestions,
        "color": profile.widget_color,
        "position": profile.widget_position,
        "icon": profile.launcher_icon,
    }


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
        license = _license_key(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, expires_at = widget_token_issue(
            license=license,
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
        license = _license_key(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        widget_token_revoke(license=license, token=data.validated_data["token"])
        return Response(status=204)


class AssistantSettingsSerializer(serializers.ModelSerializer):
    """The settings a row holds, as the model defines and validates them (the service checks
    the row whole); on a license an empty value means "as the deployment"."""

    class Meta:
        model = Assistant
        fields = [*TEXT_FIELDS, "greeting", "suggestions", *NUMBER_FIELDS]
        extra_kwargs = {
            **{name: {"required": False} for name in (*TEXT_FIELDS, *NUMBER_FIELDS)},
            "greeting": {
                "required": False,
                "help_text": 'By language: {"es": "Hola, {user_name}…", "pt": …, "en": …}.',
            },
            "suggestions": {
                "required": False,
                "help_text": "Up to 4; null on a license = the deployment's.",
            },
        }


class AssistantEffectiveSerializer(serializers.Serializer):
    """What the settings add up to for the assistant's users (a license's own values over
    the deployment's over the defaults)."""

    name = serializers.CharField()
    instructions = serializers.CharField()
    greeting = serializers.DictField(child=serializers.CharField())
    suggestions = serializers.ListField(child=serializers.CharField())
    answer_length = serializers.CharField()
    answerer = serializers.CharField()
    widget_title = serializers.CharField()
    widget_color = serializers.CharField()
    widget_position = serializers.CharField()
    launcher_icon = serializers.CharField()
    session_idle_minutes = serializers.IntegerField()
    session_max_minutes = serializers.IntegerField()
    sessions_at_once = serializers.IntegerField()


class AssistantStateSerializer(serializers.Serializer):
    settings = AssistantSettingsSerializer(help_text="This row's own values ({} when none).")
    effective = AssistantEffectiveSerializer()


class AssistantApi(APIView):
    """The deployment's assistant: GET shows its settings and what they add up to; PATCH
    changes the fields sent."""

    permission_classes = [staff_permission(SHAPE_ASSISTANT)]

    @extend_schema(responses=AssistantStateSerializer, summary="The assistant's settings")
    def get(self, request: Request, machine_id: str | None = None) -> Response:
        return Response(_assistant_state(_license_or_404(machine_id)))

    @extend_schema(
        request=AssistantSettingsSerializer,
        responses=AssistantStateSerializer,
        summary="Change the assistant's settings",
    )
    def patch(self, request: Request, machine_id: str | None = None) -> Response:
        license = _license_or_404(machine_id)
        data = AssistantSettingsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            assistant_update(license=license, values=dict(data.validated_data))
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from None
        return Response(_assistant_state(license))


class LicenseAssistantApi(AssistantApi):
    """One license's own settings, as the deployment's (an empty value means "as the
    deployment"); DELETE goes back to the deployment's. The deployment's own row cannot be
    deleted, so its path has no DELETE."""

    @extend_schema(responses={204: None}, summary="A license's assistant back to the deployment's")
    def delete(self, request: Request, machine_id: str) -> Response:
        assistant_reset(license=_license_named(machine_id))
        return Response(status=204)


def _license_key(request: Request) -> License:
    """Widget tokens are the product backend's to mint and end, with its license key."""
    if not isinstance(request.auth, License):
        raise PermissionDenied(_("Authenticate with the license key."))
    return request.auth


def _license_or_404(machine_id: str | None) -> License | None:
    """None for the deployment's path, else the license its machine_id names."""
    return None if machine_id is None else _license_named(machine_id)


def _license_named(machine_id: str) -> License:
    license = license_get_for_machine_id(machine_id)
    if license is None:
        raise NotFound(_("No license with machine_id %(machine_id)r.") % {"machine_id": machine_id})
    return license


def _assistant_state(license: License | None) -> dict[str, Any]:
    deployment, own = assistant_rows(license)
    row = own if license else deployment
    names = [str(name) for name in AssistantSettingsSerializer().fields]
    settings = {name: getattr(row, name) for name in names} if row else {}
    return {"settings": settings, "effective": asdict(assistant_profile(license))}
