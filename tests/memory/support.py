"""Helpers shared by the memory tests."""

from __future__ import annotations

from rest_framework.test import APIClient

from licenses.widget_tokens import widget_token_issue
from memory import services
from memory.models import MemorySource, MemoryType
from memory.services import Proposal

ORIGIN = "https://app.example.com"


def consent(license, user="ana"):
    services.memory_consent_set(license=license, user_ref=user, given=True, actor=f"user:{user}")


def propose(
    license, description, user="ana", confidence=0.8, source=MemorySource.CONVERSATION, **extra
):
    proposal = Proposal(MemoryType.PREFERENCE, description, confidence, source, **extra)
    return services.memory_propose(license=license, user_ref=user, proposal=proposal, actor="test")


def token_client(license, user):
    token, _ = widget_token_issue(license=license, user_ref=user, origin=ORIGIN)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Widget {token}", HTTP_ORIGIN=ORIGIN)  # as a browser
    return client
