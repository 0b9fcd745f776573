from __future__ import annotations

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("tokens/", views.token_list, name="tokens"),
    path("tokens/<int:pk>/revoke", views.token_revoke, name="token-revoke"),
]
