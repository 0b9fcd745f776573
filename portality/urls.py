from __future__ import annotations

from csp.decorators import csp_update
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import oidc, passwords
from accounts import views as accounts_views
from chat import views as chat_views
from conversations import selectors as conversations_selectors
from knowledge import views as knowledge_views
from memory import selectors as memory_selectors
from observability import health

# Lower apps' pages get the upper apps' figures here, in the wiring, not by importing them.
DASHBOARD_FIGURES: dict[str, object] = {
    "memory_metrics": memory_selectors.memory_metrics,
    "asked_recently": conversations_selectors.asked_recently,
}

urlpatterns = [
    path(
        "",
        knowledge_views.dashboard,
        DASHBOARD_FIGURES,
        name="home",
    ),
    # Each app: its console pages in urls.py, its API in api_urls.py (namespace "<app>-api").
    path("knowledge/", include("knowledge.urls")),
    path("licenses/", include("licenses.urls")),
    path("chat/", include("chat.urls")),
    path("memories/", include("memory.urls")),
    path("conversations/", include("conversations.urls")),
    path("account/", include("accounts.urls")),
    path("healthz", health.healthz, name="healthz"),
    path("metrics", health.metrics, name="metrics"),
    # The chat widget at a stable URL, and at the hashed names of earlier releases (the
    # current one is a static file WhiteNoise serves before Django sees the request).
    path("widget.js", chat_views.widget_script, name="widget-script"),
    re_path(r"^static/widget/portality-chat\.[0-9a-f]{12}\.js$", chat_views.widget_script),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the header's switcher
    # The console scripts' strings (gettext/ngettext in static/js) in the page's language.
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("accounts/login/", passwords.ConsoleLoginView.as_view(), name="login"),
    # Password reset through the mail path, throttled; off (a sentence) with no SMTP_HOST.
    path("accounts/password_reset/", passwords.PasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/password_reset/done/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        passwords.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path(
        "accounts/invitation/<str:token>/",
        accounts_views.invitation_accept,
        name="invitation-accept",
    ),
    path("oidc/authenticate/", oidc.sign_in, name="oidc_authentication_init"),
    path("oidc/callback/", oidc.callback, name="oidc-callback"),
    path("accounts/two-factor/", accounts_views.two_factor_manage, name="two-factor"),
    path("accounts/two-factor/verify/", accounts_views.two_factor_verify, name="two-factor-verify"),
    path("accounts/two-factor/setup/", accounts_views.two_factor_setup, name="two-factor-setup"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password_change/",
        passwords.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password_change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("api/v1/", include("knowledge.api_urls")),
    path("api/v1/", include("chat.api_urls")),
    path("api/v1/", include("memory.api_urls")),
    path("api/v1/", include("conversations.api_urls")),
    path("api/v1/", include("licenses.api_urls")),
    path("api/v1/", include("accounts.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI sets style attributes from its own script; its scripts stay 'self' only.
    path(
        "api/docs/",
        csp_update({"style-src": ["'unsafe-inline'"]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema")
        ),
        name="api-docs",
    ),
]

handler400 = "web.errors.bad_request"
handler403 = "web.errors.permission_denied"
handler404 = "web.errors.page_not_found"
handler500 = "web.errors.server_error"
