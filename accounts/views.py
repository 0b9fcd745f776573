"""Console pages of one's own account (personal API tokens, two-factor sign-in), of the
team (members, invitations, the page an invitation link opens) and of the audit trail."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth import get_user_model, login
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from accounts import members, selectors, services, two_factor
from accounts.audit import audit_record, audit_verify, retention_days, retention_set
from accounts.forms import (
    AuditFilterForm,
    InvitationAcceptForm,
    InviteForm,
    MemberRoleForm,
    TokenForm,
)
from accounts.models import Invitation
from accounts.roles import MANAGE_MEMBERS, ROLE_LABELS, VIEW_AUDIT, console_permission
from web.downloads import download
from web.exceptions import ApplicationError
from web.http import HtmxHttpRequest, client_ip, safe_next

console_member: Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]] = (
    staff_member_required(login_url="login")
)


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
    context = {
        "tokens": selectors.tokens_of(request.user),
        "form": form,
        "created": created,
        "single_sign_on": selectors.single_sign_on_token_rule(request.user),
    }
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


# -- the team ----------------------------------------------------------------------------------


@console_permission(MANAGE_MEMBERS)
def member_list(request: HtmxHttpRequest) -> HttpResponse:
    form = InviteForm(request.POST or None)
    sent = None
    if request.method == "POST" and form.is_valid():
        try:
            sent = members.invitation_create(
                email=form.cleaned_data["email"],
                role=form.cleaned_data["role"],
                base_url=request.build_absolute_uri("/"),
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            form = InviteForm()
    return _members_page(request, form=form, sent=sent)


def _members_page(request: HtmxHttpRequest, **shown: Any) -> HttpResponse:  # noqa: ANN401
    context = {
        "form": InviteForm(),
        **shown,
        "members": selectors.member_rows(),
        "invitations": selectors.pending_invitations(),
        "role_choices": list(ROLE_LABELS.items()),
        "mail_enabled": settings.MAIL_ENABLED,
        "oidc_enabled": settings.OIDC_ENABLED,
    }
    response = render(request, "accounts/members.html", context)
    response["Cache-Control"] = "no-store"  # it may show an invitation or password link
    return response


@console_permission(MANAGE_MEMBERS)
@require_POST
def member_password_link(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    try:
        link = members.member_password_link(
            user=_member(pk), base_url=request.build_absolute_uri("/")
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("accounts:members")
    return _members_page(request, password_link=link)


def _member(pk: int) -> Any:  # noqa: ANN401 - a user model instance
    return get_object_or_404(get_user_model(), pk=pk, is_staff=True)


@console_permission(MANAGE_MEMBERS)
@require_POST
def member_role(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    member = _member(pk)
    form = MemberRoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the roles."))
        return redirect("accounts:members")
    try:
        members.member_set_role(user=member, role=form.cleaned_data["role"])
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        label = ROLE_LABELS[form.cleaned_data["role"]]
        messages.success(
            request,
            _("%(username)s is now %(role)s.") % {"username": member.get_username(), "role": label},
        )
    return redirect("accounts:members")


@console_permission(MANAGE_MEMBERS)
@require_POST
def member_active(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    member = _member(pk)
    active = request.POST.get("active") == "1"
    try:
        members.member_set_active(user=member, active=active)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        text = (
            _("%(username)s can sign in again.")
            if active
            else _("%(username)s is deactivated: their sessions and API tokens stop working now.")
        )
        messages.success(request, text % {"username": member.get_username()})
    return redirect("accounts:members")


@console_permission(MANAGE_MEMBERS)
@require_POST
def member_sso_unlink(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    member = _member(pk)
    members.member_sso_unlink(user=member)
    messages.success(
        request,
        _("%(username)s's single sign-on is unlinked: their next sign-in joins them again.")
        % {"username": member.get_username()},
    )
    return redirect("accounts:members")


@console_permission(MANAGE_MEMBERS)
@require_POST
def invitation_revoke(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    invitation = get_object_or_404(Invitation, pk=pk)
    members.invitation_revoke(invitation=invitation)
    messages.success(
        request, _("The invitation to %(email)s no longer works.") % {"email": invitation.email}
    )
    return redirect("accounts:members")


@sensitive_post_parameters("password1", "password2")
@never_cache
def invitation_accept(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """The page an invitation link opens: choose a password, and you are in."""
    invitation = members.invitation_for_token(token)
    if invitation is None or not invitation.is_usable(timezone.now()):
        return render(request, "accounts/invitation_used.html", status=410)
    form = InvitationAcceptForm(request.POST or None, email=invitation.email)
    if request.method == "POST" and form.is_valid():
        try:
            user = members.invitation_accept(
                token=token, password=form.cleaned_data["password1"], address=client_ip(request)
            )
        except ApplicationError as exc:
            form.add_error(None, exc.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, _("Welcome to Portality Brain."))
            return redirect("home")
    context = {"form": form, "invitation": invitation, "role": ROLE_LABELS[invitation.role]}
    return render(request, "accounts/invitation_accept.html", context)


# -- the audit trail ---------------------------------------------------------------------------

AUDIT_PAGE = 100


@console_permission(VIEW_AUDIT)
def audit_list(request: HtmxHttpRequest) -> HttpResponseBase:
    form = AuditFilterForm(request.GET or None, actions=selectors.audit_actions())
    values = form.cleaned_data if form.is_valid() else {}
    entries = selectors.audit_entries(_audit_filters(values))
    as_ = request.GET.get("download", "")
    if as_ in {"csv", "json"}:
        audit_record(
            "audit.exported", details={"format": as_, "filters": request.GET.urlencode()[:200]}
        )
        rows = (selectors.audit_row(entry) for entry in entries.iterator(chunk_size=2000))
        return download("audit-trail", selectors.AUDIT_COLUMNS, rows, as_)
    page = Paginator(entries, AUDIT_PAGE).get_page(request.GET.get("page"))
    context = {
        "form": form,
        "page": page,
        "retention_days": retention_days(),
        "query": _without_page(request),
    }
    return render(request, "accounts/audit.html", context)


def _audit_filters(values: dict[str, Any]) -> selectors.AuditFilters:
    return selectors.AuditFilters(
        actor=values.get("actor") or "",
        action=values.get("action") or "",
        target=values.get("target") or "",
        since=values.get("since"),
        until=values.get("until"),
    )


def _without_page(request: HtmxHttpRequest) -> str:
    query = request.GET.copy()
    query.pop("page", None)
    query.pop("download", None)
    return query.urlencode()


@console_permission(VIEW_AUDIT)
@require_POST
def audit_retention(request: HtmxHttpRequest) -> HttpResponse:
    try:
        retention_set(days=int(request.POST.get("days", "")))
    except (ValueError, ApplicationError) as exc:
        message = exc.message if isinstance(exc, ApplicationError) else _("Give a number of days.")
        messages.error(request, message)
    else:
        messages.success(request, _("Audit retention saved."))
    return redirect("accounts:audit")


@console_permission(VIEW_AUDIT)
@require_POST
def audit_check(request: HtmxHttpRequest) -> HttpResponse:
    broken = audit_verify()
    if broken is None:
        messages.success(request, _("The audit trail is whole: no entry was edited or removed."))
    else:
        messages.error(
            request,
            _(
                "The audit trail is broken at entry %(id)s: it was edited, or an entry before it was removed."
            )
            % {"id": broken.entry_id},
        )
    return redirect("accounts:audit")


# -- two-factor sign-in ------------------------------------------------------------------------


def _next(request: HtmxHttpRequest) -> str:
    return safe_next(request, fallback="/")


@console_member
@never_cache
def two_factor_verify(request: HtmxHttpRequest) -> HttpResponse:
    """After the password, the code from the authenticator app (or a recovery code)."""
    if not two_factor.has_two_factor(request.user):  # an owner removed it meanwhile
        two_factor.remember_state(request, request.user)
        return redirect(_next(request))
    error = ""
    if request.method == "POST":
        if two_factor.two_factor_verify(request=request, code=request.POST.get("code", "")):
            return redirect(_next(request))
        error = _("That code is not right, or was already used. Try the current one.")
    return render(
        request, "accounts/two_factor_verify.html", {"error": error, "next": _next(request)}
    )


@console_member
@never_cache
def two_factor_setup(request: HtmxHttpRequest) -> HttpResponse:
    """Scan the QR code, type the code the app shows: two-factor sign-in is on, and the
    recovery codes are shown once."""
    device = two_factor.pending_device(request.user)
    error, codes = "", None
    if request.method == "POST":
        codes = two_factor.two_factor_confirm(request=request, code=request.POST.get("code", ""))
        if codes is None:
            error = _("That code is not right. Check the phone's clock and type the current code.")
    context = {
        "enrolment": None if codes else two_factor.enrolment(device),
        "codes": codes,
        "error": error,
        "next": _next(request),
        "required": settings.CONSOLE_REQUIRE_2FA,
    }
    response = render(request, "accounts/two_factor_setup.html", context)
    response["Cache-Control"] = "no-store"  # it shows a secret
    return response


@console_member
@never_cache
def two_factor_manage(request: HtmxHttpRequest) -> HttpResponse:
    """One's own two-factor sign-in: new recovery codes, or switch it off (unless required)."""
    codes = None
    if request.method == "POST" and request.POST.get("action") == "renew":
        codes = two_factor.recovery_codes_renew(user=request.user)
    elif request.method == "POST" and request.POST.get("action") == "remove":
        if settings.CONSOLE_REQUIRE_2FA:
            messages.error(request, _("This deployment requires two-factor sign-in."))
        else:
            two_factor.two_factor_remove(user=request.user)
            two_factor.remember_state(request, request.user)
            messages.success(request, _("Two-factor sign-in is off for your account."))
        return redirect("two-factor")
    context = {
        "enabled": two_factor.has_two_factor(request.user),
        "codes": codes,
        "required": settings.CONSOLE_REQUIRE_2FA,
    }
    response = render(request, "accounts/two_factor.html", context)
    response["Cache-Control"] = "no-store"
    return response


@console_permission(MANAGE_MEMBERS)
@require_POST
def member_two_factor_reset(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A member lost their phone and their recovery codes: they set it up again at their
    next sign-in (when required) or when they choose."""
    member = _member(pk)
    two_factor.two_factor_remove(user=member)
    messages.success(
        request,
        _("%(username)s's two-factor sign-in is removed.") % {"username": member.get_username()},
    )
    return redirect("accounts:members")
