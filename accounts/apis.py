"""Admin API for a console member's own personal tokens (tag ``tokens``)."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.authentication import ADMIN_AUTHENTICATION
from accounts.models import PersonalToken
from accounts.roles import ROLES


class IsConsoleMember(BasePermission):
    message = _("Sign in with a console account (a personal token, an API token or a session).")

    def has_permission(self, request: Request, view: APIView) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.is_staff and user.is_active)


class TokenSerializer(serializers.ModelSerializer):
    class Meta:
        model = PersonalToken
        fields = [
            "id",
            "name",
            "role",
            "prefix",
            "created_at",
            "expires_at",
            "last_used_at",
            "revoked_at",
        ]


class TokenCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    expires_at = serializers.DateTimeField(help_text="When it stops working (at most a year).")
    role = serializers.ChoiceField(
        choices=list(ROLES),
        required=False,
        allow_blank=True,
        help_text="Limit it to one of your roles; empty: whatever your account may do.",
    )


class TokenCreatedSerializer(TokenSerializer):
    token = serializers.CharField(help_text="Shown once: only its hash is kept.")

    class Meta(TokenSerializer.Meta):
        fields = [*TokenSerializer.Meta.fields, "token"]


class TokenListApi(APIView):
    authentication_classes = ADMIN_AUTHENTICATION
    permission_classes = [IsConsoleMember]

    @extend_schema(
        tags=["tokens"], summary="Your personal API tokens", responses=TokenSerializer(many=True)
    )
    def get(self, request: Request) -> Response:
        return Response(TokenSerializer(selectors.tokens_of(request.user), many=True).data)

    @extend_schema(
        tags=["tokens"],
        summary="Create a personal API token (shown once)",
        request=TokenCreateSerializer,
        responses={201: TokenCreatedSerializer},
    )
    def post(self, request: Request) -> Response:
        data = TokenCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        created = services.token_create(user=request.user, **data.validated_data)
        body = {**TokenSerializer(created.token).data, "token": created.key}
        response = Response(body, status=201)
        response["Cache-Control"] = "no-store"
        return response


class TokenDetailApi(APIView):
    authentication_classes = ADMIN_AUTHENTICATION
    permission_classes = [IsConsoleMember]

    @extend_schema(
        tags=["tokens"], summary="Revoke one of your personal API tokens", responses={204: None}
    )
    def delete(self, request: Request, pk: int) -> Response:
        token = get_object_or_404(selectors.tokens_of(request.user), pk=pk)
        services.token_revoke(token=token)
        return Response(status=204)
