"""The console's memory pages (the end users' own API is api_urls.py)."""

from __future__ import annotations

from django.urls import path

from memory import views

app_name = "memory"
urlpatterns = [
    path("", views.memory_list, name="memory-list"),
    path("<uuid:pk>/toggle", views.memory_toggle, name="memory-toggle"),
    path("<uuid:pk>/delete", views.memory_delete, name="memory-delete"),
]
