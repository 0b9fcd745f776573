"""The console's chat page (the chat and widget API is api_urls.py)."""

from __future__ import annotations

from django.urls import path

from chat import views

app_name = "chat"
urlpatterns = [
    path("", views.chat_view, name="chat"),
]
