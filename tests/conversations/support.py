"""Helpers: end users asking through the widget's API, staff with a role."""

from __future__ import annotations

from rest_framework.test import APIClient

from accounts.roles import role_grant

SITE = "https://app.example.com"


def widget_user(forged, user: str) -> APIClient:
    """An end user's browser: a widget token minted by the product's backend for ``user``."""
    backend = APIClient()
    backend.credentials(HTTP_AUTHORIZATION=f"Bearer {forged.key}")
    minted = backend.post("/api/v1/widget/token", {"user": user, "origin": SITE}, format="json")
    assert minted.status_code == 200, minted.content
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Widget {minted.json()['token']}", HTTP_ORIGIN=SITE)
    return client


def ask(client: APIClient, message: str) -> dict:
    response = client.post("/api/v1/chat", {"message": message}, format="json")
    assert response.status_code == 200, response.content
    return response.json()


def staff(django_user_model, role: str | None, name: str = "") -> APIClient:
    user = django_user_model.objects.create_user(name or f"u-{role}", password="pw", is_staff=True)
    if role:
        role_grant(username=user.username, role=role)
    client = APIClient()
    client.force_login(user)
    return client
