from __future__ import annotations

from django.urls import path

from knowledge import apis

app_name = "knowledge-api"

urlpatterns = [
    path("search", apis.SearchApi.as_view(), name="search"),
]
