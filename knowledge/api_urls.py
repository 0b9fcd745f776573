from __future__ import annotations

from django.urls import path

from knowledge import admin_apis, apis

app_name = "knowledge-api"

urlpatterns = [
    path("search", apis.SearchApi.as_view(), name="search"),
    path("documents", admin_apis.DocumentListApi.as_view(), name="documents"),
    path("documents/preview", admin_apis.DocumentPreviewApi.as_view(), name="document-preview"),
    path("documents/<uuid:pk>", admin_apis.DocumentDetailApi.as_view(), name="document"),
    path("sources", admin_apis.SourceListApi.as_view(), name="sources"),
    path("sources/<uuid:pk>", admin_apis.SourceDetailApi.as_view(), name="source"),
    path("sources/<uuid:pk>/check", admin_apis.SourceCheckApi.as_view(), name="source-check"),
]
