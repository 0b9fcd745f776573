"""The admin chat view: speak as a license, watch the answer stream, see sources and prompt;
the assistant's settings (the deployment's and a license's); make run's widget demo page;
the widget's script at a stable URL."""

from __future__ import annotations

import functools
import hashlib
import secrets
from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib import messages
from django.contrib.staticfiles import finders
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotModified
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import (
    require_GET,
    require_http_methods,
    require_POST,
    require_safe,
)

from accounts.roles import SEARCH_AS_ADMIN, SHAPE_ASSISTANT, console_permission
from chat import answerers
from chat.forms import AssistantForm, ProviderForm
from chat.models import Answerer
from chat.selectors import (
    AssistantProfile,
    assistant_profile,
    assistant_rows,
    assistant_shipped,
    assistants_of_licenses,
)
from chat.services import QUESTION_MAX_CHARS, assistant_reset, assistant_update
from chat.texts import GREETING, HELLO
from licenses.models import DEMO_MACHINE_ID, License
from licenses.selectors import license_choices, license_get_for_machine_id
from licenses.throttles import new_visitor_allowed
from licenses.widget_tokens import widget_token_issue
from web.exceptions import ApplicationError
from web.http import HtmxHttpRequest, client_ip


@console_permission(SEARCH_AS_ADMIN)
@require_GET
def chat_view(request: HtmxHttpRequest) -> HttpResponse:
    return render(
        request,
        "chat/chat.html",
        {"licenses": license_choices(), "question_max_chars": QUESTION_MAX_CHARS},
    )


DEMO_VISITOR_COOKIE = "portality_demo_visitor"
DEMO_VISITOR_DAYS = 30


@require_GET
def widget_demo(request: HttpRequest) -> HttpResponse:
    """make run's stand-in for a customer's page embedding the widget.

    Served only at WIDGET_DEMO_ORIGIN (http://localhost:PORT in make run) while the widget
    talks to WIDGET_DEMO_API_ORIGIN (http://127.0.0.1:PORT): two origins to the browser, so
    the widget works across origins as on a customer's site. Like a customer's backend, the
    page mints a widget token server-side, for an end user of this visitor's own (kept in a
    signed cookie), so visitors never share memories or a conversation."""
    origin = settings.WIDGET_DEMO_ORIGIN
    license = license_get_for_machine_id(DEMO_MACHINE_ID) if origin else None
    if license is None or f"{request.scheme}://{request.get_host()}" != origin:
        raise Http404
    visitor = request.get_signed_cookie(DEMO_VISITOR_COOKIE, default="", salt=DEMO_VISITOR_COOKIE)
    if not visitor and not new_visitor_allowed(client_ip(request)):
        response = HttpResponse(
            _("Too many new visitors from your address; try again in a minute."), status=429
        )
        response["Retry-After"] = "60"
        return response
    visitor = visitor or f"visitor-{secrets.token_hex(6)}"
    token, _expires = widget_token_issue(license=license, user_ref=visitor, origin=origin)
    api = settings.WIDGET_DEMO_API_ORIGIN
    response = render(
        request, "chat/widget_demo.html", {"api": api, "token": token, "visitor": visitor}
    )
    # The page stands for another site: its own policy, the widget's origin allowed (and
    # inline styles, which the widget puts in its shadow root).
    response["Content-Security-Policy"] = (
        f"default-src 'self'; script-src {api}; connect-src {api}; img-src 'self' data: {api}; "
        "style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'"
    )
    response.set_signed_cookie(
        DEMO_VISITOR_COOKIE,
        visitor,
        salt=DEMO_VISITOR_COOKIE,
        max_age=DEMO_VISITOR_DAYS * 86400,
        httponly=True,
        samesite="Lax",
    )
    return response


WIDGET_SCRIPT = "widget/portality-chat.js"
# How long a browser keeps the widget before asking again (a 304 when it has not changed):
# an upgrade reaches every embedding page within five minutes.
WIDGET_CACHE_SECONDS = 300


@require_safe
def widget_script(request: HttpRequest) -> HttpResponse:
    """The chat widget at a URL that never changes (``/widget.js``, what the snippet uses),
    and at any older hashed name (``/static/widget/portality-chat.<hash>.js``) that an
    upgrade removed: pages that embed it keep working and get the current widget, instead
    of a hashed file cached for ten years or a 404."""
    body, etag = _widget_bundle()
    if etag in request.headers.get("If-None-Match", ""):
        response: HttpResponse = HttpResponseNotModified()
    else:
        response = HttpResponse(body, content_type="text/javascript; charset=utf-8")
    response["ETag"] = etag
    response["Cache-Control"] = f"public, max-age={WIDGET_CACHE_SECONDS}"
    return response


@functools.cache
def _widget_bundle() -> tuple[bytes, str]:
    """The widget's source and its ETag, read once per process (an upgrade restarts it)."""
    path = finders.find(WIDGET_SCRIPT)
    if not isinstance(path, str):
        raise RuntimeError(f"{WIDGET_SCRIPT} is missing from the static files")
    with open(path, "rb") as file:
        body = file.read()
    return body, f'"{hashlib.sha256(body).hexdigest()[:16]}"'


@console_permission(SHAPE_ASSISTANT)
@require_http_methods(["GET", "POST"])
def assistant_edit(request: HtmxHttpRequest, license_id: UUID | None = None) -> HttpResponse:
    """The deployment's assistant, or one license's (``license_id``), with a live preview of
    the widget as its users will see it."""
    license = get_object_or_404(License, pk=license_id) if license_id else None
    deployment, own = assistant_rows(license)
    inherited = assistant_profile(None) if license else assistant_shipped()
    form = AssistantForm(
        request.POST or None,
        initial=AssistantForm.initial_from(own if license else deployment),
        inherited=inherited,
        for_license=license is not None,
    )
    if request.method == "POST" and form.is_valid():
        try:
            assistant_update(license=license, values=form.values())
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            messages.success(
                request, _("Saved. Answers use it at once; an open widget on its next start.")
            )
            return redirect(request.path)
    profile = assistant_profile(license)
    language = request.LANGUAGE_CODE[:2]
    user_name = license.user_name if license else ""
    context = {
        "form": form,
        "license": license,
        "profile": profile,
        "greeting": profile.greeting_for(language, user_name),
        "preview_texts": _preview_texts(inherited, language, user_name),
        "others": [] if license else assistants_of_licenses(),
    }
    return render(request, "chat/assistant.html", context)


def _preview_texts(inherited: AssistantProfile, language: str, user_name: str) -> dict[str, Any]:
    """What the preview script needs to draw what an empty field means."""
    return {
        "name": inherited.name,
        "widget_title": inherited.widget_title,
        "widget_color": inherited.widget_color,
        "widget_position": inherited.widget_position,
        "launcher_icon": inherited.launcher_icon,
        "greeting": inherited.greeting.get(language, ""),
        "suggestions": inherited.suggestions,
        "standard_greeting": (GREETING if user_name else HELLO)[language],
        "user_name": user_name,
    }


@console_permission(SHAPE_ASSISTANT)
@require_POST
def assistant_reset_view(request: HtmxHttpRequest, license_id: UUID) -> HttpResponse:
    license = get_object_or_404(License, pk=license_id)
    assistant_reset(license=license)
    messages.success(
        request,
        _("%(machine_id)s's assistant is the deployment's again.")
        % {"machine_id": license.machine_id},
    )
    return redirect("chat:assistant-license", license_id=license.pk)


@console_permission(SHAPE_ASSISTANT)
@require_http_methods(["GET", "POST"])
def providers_edit(request: HtmxHttpRequest) -> HttpResponse:
    """The deployment's answerer, its model and its provider's key; "test connection" asks
    the provider with what is typed (or saved) without saving it."""
    config = answerers.answerer_config()
    row = answerers.saved_settings()
    initial = {
        "answerer": row.answerer,
        "gemini_model": row.gemini_model,
        "openai_base_url": row.openai_base_url,
        "openai_model": row.openai_model,
    }
    form = ProviderForm(request.POST or None, initial=initial, from_env=config.from_env)
    test_result: tuple[str, str] | None = None
    if request.method == "POST" and form.is_valid():
        choice = answerers.ProviderChoice(**form.cleaned_data)
        if "test" in request.POST:
            test_result = _tested(choice)
        else:
            try:
                answerers.provider_settings_save(choice)
            except ApplicationError as exc:
                form.add_error(None, exc.message)
            except ValidationError as exc:
                form.add_error(None, "; ".join(exc.messages))
            else:
                messages.success(request, _("Provider settings saved."))
                return redirect("chat:providers")
    context = {
        "form": form,
        "config": config,
        "saved_keys": {
            "gemini": bool(row.gemini_key_sealed),
            "openai": bool(row.openai_key_sealed),
        },
        "test_result": test_result,
    }
    return render(request, "chat/providers.html", context)


def _tested(choice: answerers.ProviderChoice) -> tuple[str, str]:
    """("ok" or "error", the sentence) for the page."""
    try:
        provider = answerers.connection_test(choice)
    except ApplicationError as exc:
        return "error", exc.message
    return "ok", _("%(answerer)s answered: the connection works.") % {
        "answerer": dict(Answerer.choices)[provider]
    }
