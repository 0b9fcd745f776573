"""/api/v1/me/memories: an end user reviews, edits, exports and forgets their memories.

The user is the widget token's (or, for a product backend holding the license key, the
``user`` it names); nothing in the request can reach another user's memories."""

from __future__ import annotations

import json
from uuid import UUID

from django.http import HttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from licenses.models import License
from licenses.permissions import IsAdminOrLicense
from licenses.principals import end_user_from_request
from licenses.throttles import MemoryRateThrottle
from memory import selectors, services
from memory.models import Memory, MemoryConsent, MemoryEventKind


def _owner(request: Request) -> tuple[License, str]:
    return end_user_from_request(request)


def _memory_or_404(request: Request, pk: UUID) -> tuple[Memory, str]:
    license, user_ref = _owner(request)
    memory = selectors.memory_get_for_user(license=license, user_ref=user_ref, memory_id=pk)
    if memory is None:
        raise exceptions.NotFound(_("No such memory."))
    return memory, user_ref


class MemorySerializer(serializers.ModelSerializer):
    class Meta:
        model = Memory
        fields = [
            "id",
            "memory_type",
            "description",
            "confidence",
            "source",
            "source_reference",
            "source_message",
            "active",
            "pending",
            "created_at",
            "updated_at",
            "expires_at",
            "last_accessed_at",
        ]


class MemoryConsentSerializer(serializers.ModelSerializer):
    class Meta:
        model = MemoryConsent
        fields = ["given", "given_at", "withdrawn_at"]


class MemoryHistorySerializer(serializers.Serializer):
    at = serializers.DateTimeField()
    event = serializers.ChoiceField(choices=MemoryEventKind.choices)
    by = serializers.ChoiceField(
        choices=["you", "staff", "product"], help_text="Never a staff member's name."
    )
    memory_id = serializers.UUIDField(allow_null=True, help_text="Empty once it is forgotten.")
    reason = serializers.CharField(allow_blank=True)
    description = serializers.CharField(
        allow_blank=True, help_text="The memory's words, while it is kept."
    )


class MemoryListApi(APIView):
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [MemoryRateThrottle]

    @extend_schema(responses=MemorySerializer(many=True), summary="My memories")
    def get(self, request: Request) -> Response:
        license, user_ref = _owner(request)
        memories = selectors.memory_list_for_user(license=license, user_ref=user_ref)
        consent = services.consent_given(license=license, user_ref=user_ref)
        return Response(
            {"consent": consent, "memories": MemorySerializer(memories, many=True).data}
        )

    @extend_schema(
        responses={
            200: inline_serializer("MemoriesForgotten", {"forgotten": serializers.IntegerField()})
        },
        summary="Forget all my memories",
    )
    def delete(self, request: Request) -> Response:
        license, user_ref = _owner(request)
        count = services.memories_forget_all(
            license=license, user_ref=user_ref, actor=f"user:{user_ref}"
        )
        return Response({"forgotten": count})


class MemoryDetailApi(APIView):
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [MemoryRateThrottle]

    class EditSerializer(serializers.Serializer):
        description = serializers.CharField(max_length=500)

    @extend_schema(
        request=EditSerializer, responses=MemorySerializer, summary="Edit one of my memories"
    )
    def patch(self, request: Request, pk: UUID) -> Response:
        memory, user_ref = _memory_or_404(request, pk)
        data = self.EditSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        memory = services.memory_edit(
            memory=memory, description=data.validated_data["description"], actor=f"user:{user_ref}"
        )
        return Response(MemorySerializer(memory).data)

    @extend_schema(responses={204: None}, summary="Forget one of my memories")
    def delete(self, request: Request, pk: UUID) -> Response:
        memory, user_ref = _memory_or_404(request, pk)
        services.memory_forget(memory=memory, actor=f"user:{user_ref}")
        return Response(status=204)


class MemoryExportApi(APIView):
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [MemoryRateThrottle]

    @extend_schema(
        responses=MemorySerializer(many=True), summary="Download all my memories as JSON"
    )
    def get(self, request: Request) -> HttpResponse:
        license, user_ref = _owner(request)
        memories = selectors.memory_list_for_user(license=license, user_ref=user_ref)
        body = json.dumps(
            {"user": user_ref, "memories": MemorySerializer(memories, many=True).data},
            default=str,
            ensure_ascii=False,
            indent=2,
        )
        response = HttpResponse(body, content_type="application/json")
        response["Content-Disposition"] = 'attachment; filename="my-memories.json"'
        return response


class ConsentApi(APIView):
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [MemoryRateThrottle]

    class InputSerializer(serializers.Serializer):
        given = serializers.BooleanField()

    @extend_schema(
        request=InputSerializer,
        responses={200: inline_serializer("ConsentGiven", {"consent": serializers.BooleanField()})},
        summary="Agree to (or withdraw from) memories",
    )
    def post(self, request: Request) -> Response:
        license, user_ref = _owner(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        consent = services.memory_consent_set(
            license=license,
            user_ref=user_ref,
            given=data.validated_data["given"],
            actor=f"user:{user_ref}",
        )
        return Response({"consent": consent.given})


class MemoryConfirmApi(APIView):
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [MemoryRateThrottle]

    @extend_schema(
        request=None, responses=MemorySerializer, summary="Confirm a memory the assistant proposed"
    )
    def post(self, request: Request, pk: UUID) -> Response:
        memory, user_ref = _memory_or_404(request, pk)
        return Response(
            MemorySerializer(services.memory_confirm(memory=memory, actor=f"user:{user_ref}")).data
        )
