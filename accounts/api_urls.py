from __future__ import annotations

from django.urls import path

from accounts import apis

app_name = "accounts-api"

urlpatterns = [
    path("tokens", apis.TokenListApi.as_view(), name="tokens"),
    path("tokens/<int:pk>", apis.TokenDetailApi.as_view(), name="token"),
]
