from __future__ import annotations

from django.urls import path

from memory import apis

app_name = "memory-api"

urlpatterns = [
    path("me/memories", apis.MemoryListApi.as_view(), name="memory-list"),
    path("me/memories/export", apis.MemoryExportApi.as_view(), name="memory-export"),
    path("me/memories/<uuid:pk>", apis.MemoryDetailApi.as_view(), name="memory-detail"),
    path("me/memories/<uuid:pk>/confirm", apis.MemoryConfirmApi.as_view(), name="memory-confirm"),
    path("me/consent", apis.ConsentApi.as_view(), name="consent"),
]
