"""Admin API for licenses: rotate a key (tag ``licenses``)."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import ADMIN_AUTHENTICATION
from accounts.permissions import staff_permission
from accounts.roles import MANAGE_LICENSES
from licenses.selectors import license_get_for_machine_id
from licenses.services import MAX_GRACE_SECONDS, license_rotate_key


class RotateSerializer(serializers.Serializer):
    grace_seconds = serializers.IntegerField(
        min_value=0,
        max_value=MAX_GRACE_SECONDS,
        default=0,
        help_text="How long the old key keeps working (0: it stops at once).",
    )


class RotatedSerializer(serializers.Serializer):
    machine_id = serializers.CharField()
    key = serializers.CharField(help_text="Shown once: only its hash is kept.")
    old_key_valid_until = serializers.DateTimeField(allow_null=True)


class LicenseRotateApi(APIView):
    authentication_classes = ADMIN_AUTHENTICATION
    permission_classes = [staff_permission(MANAGE_LICENSES)]

    @extend_schema(
        tags=["licenses"],
        summary="Give a license a new key",
        request=RotateSerializer,
        responses=RotatedSerializer,
    )
    def post(self, request: Request, machine_id: str) -> Response:
        license = license_get_for_machine_id(machine_id)
        if license is None:
            raise Http404
        data = RotateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rotated = license_rotate_key(
            license=license, grace_seconds=data.validated_data["grace_seconds"]
        )
        response = Response(
            RotatedSerializer(
                {
                    "machine_id": rotated.license.machine_id,
                    "key": rotated.key,
                    "old_key_valid_until": rotated.license.previous_key_until,
                }
            ).data
        )
        response["Cache-Control"] = "no-store"
        return response
