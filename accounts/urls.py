from __future__ import annotations

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("tokens/", views.token_list, name="tokens"),
    path("tokens/<int:pk>/revoke", views.token_revoke, name="token-revoke"),
    path("members/", views.member_list, name="members"),
    path("audit/", views.audit_list, name="audit"),
    path("audit/check", views.audit_check, name="audit-check"),
    path("audit/retention", views.audit_retention, name="audit-retention"),
    path("members/<int:pk>/role", views.member_role, name="member-role"),
    path("members/<int:pk>/active", views.member_active, name="member-active"),
    path("members/<int:pk>/two-factor", views.member_two_factor_reset, name="member-two-factor"),
    path("members/<int:pk>/single-sign-on", views.member_sso_unlink, name="member-sso-unlink"),
    path("members/<int:pk>/password-link", views.member_password_link, name="member-password-link"),
    path("invitations/<int:pk>/revoke", views.invitation_revoke, name="invitation-revoke"),
]
