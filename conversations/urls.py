from __future__ import annotations

from django.urls import path

from conversations import views

app_name = "conversations"

urlpatterns = [
    path("", views.queue, name="queue"),
    path("<uuid:pk>/", views.transcript, name="transcript"),
    path("answers/<uuid:pk>/review", views.review, name="review"),
    path("answers/<uuid:pk>/search", views.answer_search, name="answer-search"),
    path("erase", views.erase_user, name="erase-user"),
    path("erase/everything", views.erase_person, name="erase-person"),
    path("export", views.export_user, name="export-user"),
    path("retention", views.retention_edit, name="retention"),
    path("gaps/", views.gaps, name="gaps"),
    path("gaps/<int:pk>/answer", views.gap_answer, name="gap-answer"),
    path("gaps/<int:pk>/dismiss", views.gap_dismiss, name="gap-dismiss"),
    path("gaps/<int:pk>/reopen", views.gap_reopen, name="gap-reopen"),
    path("gaps/<int:pk>/search", views.gap_search, name="gap-search"),
    path("gaps/<int:pk>/answer/change", views.gap_answer_change, name="gap-answer-change"),
    path("insights/", views.insights, name="insights"),
]
