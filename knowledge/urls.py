from __future__ import annotations

from django.urls import path

from knowledge import views

app_name = "knowledge"

urlpatterns = [
    path("", views.document_list, name="document-list"),
    path("upload", views.document_upload, name="document-upload"),
    path("preview", views.document_preview, name="document-preview"),
    path("named", views.document_named, name="document-named"),
    path("chunking-default", views.chunking_default_edit, name="chunking-default"),
    path("forget", views.documents_forget_selected, name="documents-forget"),
    path("search/", views.playground, name="playground"),
    path("redaction/", views.redaction_policy_edit, name="redaction"),
    path("sources/", views.source_list, name="source-list"),
    path("sources/<uuid:pk>/", views.source_detail, name="source-detail"),
    path("sources/<uuid:pk>/check", views.source_check, name="source-check"),
    path("sources/<uuid:pk>/forget", views.source_forget, name="source-forget"),
    path("<uuid:pk>/", views.document_detail, name="document-detail"),
    path("<uuid:pk>/status", views.document_status, name="document-status"),
    path("<uuid:pk>/forget", views.document_forget, name="document-forget"),
    path("<uuid:pk>/retry", views.document_retry, name="document-retry"),
    path("<uuid:pk>/version", views.document_new_version, name="document-version"),
    path("chunks/<int:pk>/", views.chunk_open, name="chunk-open"),
    path("chunks/<int:pk>/forget", views.chunk_forget, name="chunk-forget"),
]
