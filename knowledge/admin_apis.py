"""Admin API for knowledge: documents (upload any format, list, read, forget, preview the
chunks) and web sources (add, list, read with their pages, check now, forget). Console
accounts only (an API token or the session), each call checked against the account's role
like the console's pages; a license key is not an admin."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import ADMIN_AUTHENTICATION
from accounts.permissions import staff_permission
from accounts.roles import ADD_KNOWLEDGE, FORGET_KNOWLEDGE, SET_REDACTION, VIEW_KNOWLEDGE
from knowledge import forgetting, reingestion, selectors, sources, uploads
from knowledge.chunk_options import MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS, ChunkOptions
from knowledge.models import (
    Document,
    DocumentStatus,
    FileKind,
    Language,
    Redaction,
    Source,
    SourceMode,
    SourceType,
    SplitMode,
)
from knowledge.preview import chunks_preview, preview_payload
from licenses.models import GLOBAL_SCOPE
from licenses.selectors import license_for_scope

_PERMISSION_BY_METHOD = {
    "GET": VIEW_KNOWLEDGE,
    "POST": ADD_KNOWLEDGE,
    "PUT": ADD_KNOWLEDGE,
    "DELETE": FORGET_KNOWLEDGE,
}
LIST_LIMIT = 200


class AdminApi(APIView):
    authentication_classes = ADMIN_AUTHENTICATION
    permission_classes = [staff_permission(VIEW_KNOWLEDGE, by_method=_PERMISSION_BY_METHOD)]


# -- documents ---------------------------------------------------------------------------


class DocumentSerializer(serializers.ModelSerializer):
    scope = serializers.SerializerMethodField()
    error = serializers.CharField(source="error_message")

    class Meta:
        model = Document
        fields = [
            "id", "filename", "kind", "scope", "status", "stage", "progress", "chunk_count",
            "page_count", "language", "source_type", "split", "chunk_size", "chunk_overlap",
            "error", "created_at", "finished_at",
        ]  # fmt: skip

    def get_scope(self, document: Document) -> str:
        return document.license.machine_id if document.license else GLOBAL_SCOPE


class UploadSerializer(serializers.Serializer):
    # An empty file reaches uploads.upload_checked, which names it ("vacio.txt está vacío."):
    # DRF's own refusal is anonymous and misspelt in Spanish and Portuguese ("vació", "vázio").
    file = serializers.FileField(allow_empty_file=True)
    license = serializers.CharField(required=False, allow_blank=True, max_length=200)
    source_type = serializers.ChoiceField(choices=SourceType.values, default=SourceType.OTHER)
    language = serializers.ChoiceField(choices=Language.values, default=Language.AUTO)
    redaction = serializers.ChoiceField(choices=Redaction.values, default=Redaction.DEFAULT)
    pdf_password = serializers.CharField(
        required=False, allow_blank=True, max_length=uploads.MAX_PDF_PASSWORD_CHARS, default=""
    )
    chunk_size = serializers.IntegerField(
        required=False, min_value=MIN_CHUNK_TOKENS, max_value=MAX_CHUNK_TOKENS
    )
    chunk_overlap = serializers.IntegerField(
        required=False, min_value=0, max_value=MAX_CHUNK_TOKENS // 2
    )
    split = serializers.ChoiceField(choices=SplitMode.values, required=False)

    def upload_options(self, request: Request) -> dict[str, Any]:
        data = self.validated_data
        uploads.redaction_choice_check(
            choice=data["redaction"], may_set_policy=request.user.has_perm(SET_REDACTION)
        )
        return {
            "file": data["file"],
            "filename": data["file"].name,
            "license": license_for_scope(data.get("license", "")),
            "source_type": data["source_type"],
            "language": data["language"],
            "redaction": data["redaction"],
            "pdf_password": data["pdf_password"],
            "chunking": ChunkOptions(
                data.get("chunk_size"), data.get("chunk_overlap"), data.get("split", "")
            ),
        }


class DocumentListApi(AdminApi):
    @extend_schema(
        tags=["knowledge"],
        summary="Knowledge documents, newest first",
        parameters=[
            OpenApiParameter("scope", str, description='"global" or a machine_id'),
            OpenApiParameter("status", str, enum=DocumentStatus.values),
            OpenApiParameter("kind", str, enum=FileKind.values),
            OpenApiParameter("limit", int, description=f"at most {LIST_LIMIT}"),
        ],
        responses=DocumentSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        filters = {k: request.query_params.get(k, "")[:200] for k in ("scope", "status", "kind")}
        documents = selectors.document_list(**{k: v for k, v in filters.items() if v})
        limit = _limit(request.query_params.get("limit"))
        return Response(
            DocumentSerializer(documents.select_related("license")[:limit], many=True).data
        )

    @extend_schema(
        tags=["knowledge"],
        summary="Upload a document (any supported format) to global or a license's scope",
        request={"multipart/form-data": UploadSerializer},
        responses={201: DocumentSerializer, 200: DocumentSerializer},
    )
    def post(self, request: Request) -> Response:
        data = UploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        creation = uploads.document_create(**data.upload_options(request))
        return Response(
            DocumentSerializer(creation.document).data, status=201 if creation.created else 200
        )


class DocumentDetailApi(AdminApi):
    @extend_schema(
        tags=["knowledge"],
        summary="A document and its ingestion state",
        responses=DocumentSerializer,
    )
    def get(self, request: Request, pk: UUID) -> Response:
        return Response(DocumentSerializer(get_object_or_404(Document, pk=pk)).data)

    class NewVersionSerializer(serializers.Serializer):
        file = serializers.FileField(allow_empty_file=True)  # empty: named by the product
        pdf_password = serializers.CharField(
            required=False, allow_blank=True, max_length=uploads.MAX_PDF_PASSWORD_CHARS, default=""
        )

    @extend_schema(
        tags=["knowledge"],
        summary="Upload a new version of a document, in its place (same id, scope and "
        "options; its chunks stay searchable until the new ones replace them)",
        request={"multipart/form-data": NewVersionSerializer},
        responses=DocumentSerializer,
    )
    def put(self, request: Request, pk: UUID) -> Response:
        data = self.NewVersionSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        file = data.validated_data["file"]
        document = reingestion.document_new_version(
            document=get_object_or_404(Document, pk=pk),
            file=file,
            filename=file.name,
            pdf_password=data.validated_data["pdf_password"],
        )
        return Response(DocumentSerializer(document).data)

    @extend_schema(
        tags=["knowledge"],
        summary="Forget a document (its chunks stop being searchable at once)",
        responses={204: None},
    )
    def delete(self, request: Request, pk: UUID) -> Response:
        forgetting.document_forget(document=get_object_or_404(Document, pk=pk))
        return Response(status=204)


class DocumentPreviewApi(AdminApi):
    class OutputSerializer(serializers.Serializer):
        kind = serializers.CharField()
        language = serializers.CharField()
        total_chunks = serializers.IntegerField()
        chunk_size = serializers.IntegerField(allow_null=True)
        chunk_overlap = serializers.IntegerField(allow_null=True)
        split = serializers.CharField()
        chunks = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        tags=["knowledge"],
        summary="Preview the first chunks a file would become (nothing is stored)",
        request={"multipart/form-data": UploadSerializer},
        responses=OutputSerializer,
    )
    def post(self, request: Request) -> Response:
        data = UploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(preview_payload(chunks_preview(**data.upload_options(request))))


# -- web sources -------------------------------------------------------------------------


class SourceSerializer(serializers.ModelSerializer):
    scope = serializers.SerializerMethodField()
    error = serializers.CharField(source="error_message")

    class Meta:
        model = Source
        fields = [
            "id", "url", "scope", "mode", "every_hours", "max_pages", "max_depth", "checking",
            "last_checked_at", "next_check_at", "last_result", "error", "created_at",
        ]  # fmt: skip

    def get_scope(self, source: Source) -> str:
        return source.license.machine_id if source.license else GLOBAL_SCOPE


class SourcePageSerializer(serializers.Serializer):
    url = serializers.CharField()
    document_id = serializers.UUIDField(allow_null=True)
    status = serializers.SerializerMethodField()
    error = serializers.CharField(source="error_message")
    last_checked_at = serializers.DateTimeField(allow_null=True)
    last_changed_at = serializers.DateTimeField(allow_null=True)

    def get_status(self, page: Any) -> str:  # noqa: ANN401 - a SourcePage
        return page.document.status if page.document else ""


class SourceDetailSerializer(SourceSerializer):
    pages = SourcePageSerializer(many=True, source="pages.all")

    class Meta(SourceSerializer.Meta):
        fields = [*SourceSerializer.Meta.fields, "pages"]


class SourceListApi(AdminApi):
    class InputSerializer(serializers.Serializer):
        url = serializers.CharField(max_length=2000)
        license = serializers.CharField(required=False, allow_blank=True, max_length=200)
        mode = serializers.ChoiceField(choices=SourceMode.values, default=SourceMode.PAGE)
        every_hours = serializers.IntegerField(min_value=1, max_value=24 * 365, default=24)
        max_pages = serializers.IntegerField(min_value=1, max_value=10_000, default=50)
        max_depth = serializers.IntegerField(min_value=0, max_value=10, default=2)

    @extend_schema(tags=["sources"], summary="Web sources", responses=SourceSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(SourceSerializer(selectors.source_list(), many=True).data)

    @extend_schema(
        tags=["sources"],
        summary="Add a page, a sitemap or a site; its first check is queued at once",
        request=InputSerializer,
        responses={201: SourceSerializer},
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        license = license_for_scope(fields.pop("license", ""))
        source = sources.source_add(license=license, **fields)
        sources.source_check_soon(source_id=source.pk)
        return Response(SourceSerializer(source).data, status=201)


class SourceDetailApi(AdminApi):
    @extend_schema(
        tags=["sources"], summary="A web source with its pages", responses=SourceDetailSerializer
    )
    def get(self, request: Request, pk: UUID) -> Response:
        source = get_object_or_404(Source.objects.prefetch_related("pages__document"), pk=pk)
        return Response(SourceDetailSerializer(source).data)

    @extend_schema(
        tags=["sources"],
        summary="Forget a source and every document its pages became",
        responses={204: None},
    )
    def delete(self, request: Request, pk: UUID) -> Response:
        sources.source_forget(source=get_object_or_404(Source, pk=pk))
        return Response(status=204)


class SourceCheckApi(AdminApi):
    @extend_schema(
        tags=["sources"],
        summary="Check a source now (queued)",
        request=None,
        responses={202: SourceSerializer},
    )
    def post(self, request: Request, pk: UUID) -> Response:
        source = get_object_or_404(Source, pk=pk)
        sources.source_check_soon(source_id=source.pk)
        source.refresh_from_db()
        return Response(SourceSerializer(source).data, status=202)


def _limit(value: str | None) -> int:
    try:
        return max(1, min(int(value or 50), LIST_LIMIT))
    except ValueError:
        return 50
