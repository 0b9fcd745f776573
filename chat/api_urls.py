from __future__ import annotations

from django.urls import path

from chat import apis

app_name = "chat-api"

urlpatterns = [
    path("chat", apis.ChatApi.as_view(), name="chat"),
    path("chat/stream", apis.ChatStreamApi.as_view(), name="chat-stream"),
    path("chat/session", apis.ChatSessionApi.as_view(), name="chat-session"),
    path("assistant", apis.AssistantApi.as_view(), name="assistant"),
    path(
        "assistant/<slug:machine_id>",
        apis.LicenseAssistantApi.as_view(),
        name="assistant-license",
    ),
    path("widget/token", apis.WidgetTokenApi.as_view(), name="widget-token"),
    path("widget/token/revoke", apis.WidgetTokenRevokeApi.as_view(), name="widget-token-revoke"),
]
