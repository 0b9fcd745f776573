from __future__ import annotations

from django.urls import path

from licenses import apis

app_name = "licenses-api"

urlpatterns = [
    path("licenses/<slug:machine_id>/rotate", apis.LicenseRotateApi.as_view(), name="rotate"),
]
