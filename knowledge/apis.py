"""Knowledge API: hybrid search for admins and license holders."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import ADMIN_AUTHENTICATION
from knowledge.search import MAX_QUERY_CHARS, STRATEGIES, SearchOptions
from knowledge.searching import knowledge_search
from licenses.authentication import LicenseKeyAuthentication
from licenses.permissions import IsAdminOrLicense
from licenses.principals import principal_from_request
from licenses.throttles import SearchRateThrottle


class SearchApi(APIView):
    # Not widget tokens: an end user's page may chat, never dump raw chunks.
    authentication_classes = [LicenseKeyAuthentication, *ADMIN_AUTHENTICATION]
    permission_classes = [IsAdminOrLicense]
    throttle_classes = [SearchRateThrottle]

    class InputSerializer(serializers.Serializer):
        query = serializers.CharField(max_length=MAX_QUERY_CHARS, trim_whitespace=True)
        strategy = serializers.ChoiceField(choices=STRATEGIES, required=False)
        top_k = serializers.IntegerField(min_value=1, max_value=50, required=False)
        min_score = serializers.FloatField(min_value=-1, max_value=1, required=False)
        vector_weight = serializers.FloatField(min_value=0, max_value=1, required=False)
        rerank = serializers.BooleanField(required=False, default=False)
        license = serializers.CharField(
            required=False,
            help_text="Admins only: search as this machine_id sees (default: global).",
        )

    class ResultSerializer(serializers.Serializer):
        chunk_id = serializers.IntegerField()
        document_id = serializers.UUIDField()
        filename = serializers.CharField()
        source_type = serializers.CharField()
        scope = serializers.CharField()
        page_start = serializers.IntegerField(allow_null=True)
        page_end = serializers.IntegerField(allow_null=True)
        heading = serializers.CharField()
        content = serializers.CharField()
        vector_score = serializers.FloatField(allow_null=True)
        sentence_score = serializers.FloatField(allow_null=True)
        keyword_score = serializers.FloatField(allow_null=True)
        vector_rank = serializers.IntegerField(allow_null=True)
        keyword_rank = serializers.IntegerField(allow_null=True)
        fused_score = serializers.FloatField()
        rerank_score = serializers.FloatField(allow_null=True)
        exact_match = serializers.BooleanField()

    class OutputSerializer(serializers.Serializer):
        query = serializers.CharField()
        scope = serializers.CharField()
        model = serializers.CharField(allow_null=True)
        strategy = serializers.CharField(source="options.strategy")
        min_score = serializers.FloatField(source="options.min_score")
        candidates = serializers.IntegerField()
        cut_by_threshold = serializers.IntegerField()
        latency_ms = serializers.FloatField()
        searched_as = serializers.CharField(
            help_text="The query as searched when a misspelt word was read as the passages "
            'found spell it ("gimnsio" → "gimnasio"); empty when searched as typed.'
        )
        results = serializers.SerializerMethodField()

        def get_results(self, response) -> list[dict]:  # noqa: ANN001
            return [SearchApi.ResultSerializer(asdict(r)).data for r in response.results]

    @extend_schema(
        request=InputSerializer, responses=OutputSerializer, summary="Hybrid search in your scope"
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        principal = principal_from_request(request, as_license=values.pop("license", None))
        query = values.pop("query")
        response = knowledge_search(
            principal=principal, query=query, options=SearchOptions(**values)
        )
        return Response(self.OutputSerializer(response).data)
