"""The console's chat and assistant pages (the chat and widget API is api_urls.py)."""

from __future__ import annotations

from django.urls import path

from chat import views

app_name = "chat"
urlpatterns = [
    path("", views.chat_view, name="chat"),
    path("assistant/", views.assistant_edit, name="assistant"),
    path("providers/", views.providers_edit, name="providers"),
    path("assistant/<uuid:license_id>/", views.assistant_edit, name="assistant-license"),
    path(
        "assistant/<uuid:license_id>/reset",
        views.assistant_reset_view,
        name="assistant-license-reset",
    ),
    # make run's stand-in for a customer's page with the widget (404 unless configured).
    path("widget-demo/", views.widget_demo, name="widget-demo"),
]
