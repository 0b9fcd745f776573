from __future__ import annotations

from django.urls import path

from conversations import apis

app_name = "conversations-api"

urlpatterns = [
    path("feedback", apis.FeedbackApi.as_view(), name="feedback"),
    path("conversations", apis.ConversationListApi.as_view(), name="conversation-list"),
    path("conversations/export", apis.ConversationExportApi.as_view(), name="conversation-export"),
    path("conversations/erase", apis.ConversationEraseApi.as_view(), name="conversation-erase"),
    path(
        "conversations/<uuid:pk>", apis.ConversationDetailApi.as_view(), name="conversation-detail"
    ),
    path("answers/<uuid:pk>/review", apis.AnswerReviewApi.as_view(), name="answer-review"),
    path("answers/<uuid:pk>/search", apis.AnswerSearchApi.as_view(), name="answer-search"),
    path("knowledge-gaps", apis.GapListApi.as_view(), name="gap-list"),
    path("knowledge-gaps/export", apis.GapExportApi.as_view(), name="gap-export"),
    path("knowledge-gaps/<int:pk>/answer", apis.GapAnswerApi.as_view(), name="gap-answer"),
    path("knowledge-gaps/<int:pk>/dismiss", apis.GapDismissApi.as_view(), name="gap-dismiss"),
    path("knowledge-gaps/<int:pk>/reopen", apis.GapReopenApi.as_view(), name="gap-reopen"),
    path("knowledge-gaps/<int:pk>/search", apis.GapSearchApi.as_view(), name="gap-search"),
    path("me/conversations", apis.MyConversationsApi.as_view(), name="my-conversations"),
    path("me/export", apis.MyDataApi.as_view(), name="my-data"),
]
