from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from portality.health import is_healthy, system_health
from portality.http import staff_required


@staff_required
def home(request: HttpRequest) -> HttpResponse:
    report = system_health()
    return render(request, "portality/home.html", {"report": report, "healthy": is_healthy(report)})
