from __future__ import annotations

from django.urls import path

from licenses import views

app_name = "licenses"

urlpatterns = [
    path("", views.license_list, name="license-list"),
    path("<uuid:pk>/", views.license_detail, name="license-detail"),
    path("<uuid:pk>/revoke", views.license_revoke, name="license-revoke"),
    path("<uuid:pk>/rotate", views.license_rotate, name="license-rotate"),
    path("<uuid:pk>/reactivate", views.license_reactivate, name="license-reactivate"),
]
