"""The admin chat view: speak as a license, watch the answer stream, see sources and prompt."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from licenses.selectors import license_choices
from portality.http import HtmxHttpRequest
from portality.roles import SEARCH_AS_ADMIN, console_permission


@console_permission(SEARCH_AS_ADMIN)
@require_GET
def chat_view(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "chat/chat.html", {"licenses": license_choices()})
