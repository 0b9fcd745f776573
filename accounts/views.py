"""Console pages of one's own account: personal API tokens."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts import selectors, services
from accounts.forms import TokenForm
from web.exceptions import ApplicationError
from web.http import HtmxHttpRequest

console_member = staff_member_required(login_url="login")


@console_member
def token_list(request: HtmxHttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None, user=request.user)
    created = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            created = services.token_create(
                user=request.user,
                name=data["name"],
                expires_at=timezone.now() + timedelta(days=data["days"]),
                role=data["role"],
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            form = TokenForm(user=request.user)
    context = {"tokens": selectors.tokens_of(request.user), "form": form, "created": created}
    response = render(request, "accounts/tokens.html", context)
    response["Cache-Control"] = "no-store"  # the page that shows a token must not be cached
    return response


@console_member
@require_POST
def token_revoke(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(selectors.tokens_of(request.user), pk=pk)
    services.token_revoke(token=token)
    messages.success(
        request, _("Token %(name)s revoked: it stops working now.") % {"name": token.name}
    )
    return redirect("accounts:tokens")
