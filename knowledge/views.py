"""Admin pages for knowledge: dashboard, knowledge table with DropZone, detail, playground."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.roles import (
    ADD_KNOWLEDGE,
    DASHBOARD,
    FORGET_KNOWLEDGE,
    QUERY_LOG,
    SEARCH_AS_ADMIN,
    SET_REDACTION,
    VIEW_KNOWLEDGE,
    console_permission,
)
from knowledge import forgetting, policies, reingestion, searching, selectors, sources, uploads
from knowledge.chunk_options import (
    MAX_CHUNK_TOKENS,
    MIN_CHUNK_TOKENS,
    chunking_default_reset,
    chunking_default_set,
)
from knowledge.forms import (
    ChunkingDefaultForm,
    DocumentFilterForm,
    NamedForm,
    PlaygroundForm,
    RedactionPolicyForm,
    SourceForm,
    UploadForm,
)
from knowledge.models import (
    Chunk,
    Document,
    DocumentStatus,
    FileKind,
    Language,
    Redaction,
    SearchLog,
    Source,
    SourceType,
    SplitMode,
)
from knowledge.preview import chunks_preview, preview_payload
from knowledge.search import SearchOptions
from licenses.models import GLOBAL_SCOPE
from licenses.principals import principal_for_admin
from licenses.selectors import license_choices, license_counts, license_get_for_machine_id
from observability.health import health_rows, is_healthy, system_health
from web.exceptions import ApplicationError
from web.http import HtmxHttpRequest

PAGE_SIZE = 25


def _get_document(pk: UUID) -> Document:
    return get_object_or_404(Document.objects.select_related("license"), pk=pk)


@console_permission(DASHBOARD)
@require_GET
def dashboard(
    request: HtmxHttpRequest,
    memory_metrics: Callable[..., dict[str, object]] | None = None,
    asked_recently: Callable[..., object] | None = None,
) -> HttpResponse:
    """``memory_metrics`` and ``asked_recently`` come from the URL wiring: memory and
    conversations sit above knowledge, so this view may show their figures but must not
    import them."""
    now = timezone.now()
    by_status = selectors.document_counts_by_status()
    context = {
        "health": health_rows(report := system_health()),
        "healthy": is_healthy(report),
        "by_status": by_status,
        "documents": sum(row.count for row in by_status),
        "chunks": selectors.chunk_count(),
        "licenses": license_counts(),
        "activity": selectors.ingestion_activity(days=14),
        "metrics_day": selectors.search_metrics(since=now - timedelta(days=1)),
        "metrics_week": selectors.search_metrics(since=now - timedelta(days=7)),
        "latency": selectors.search_latency_by_day(days=14),
        "failures": selectors.documents_failed_recently(limit=8),
        "memory": memory_metrics(since=now - timedelta(days=7)) if memory_metrics else None,
        "asked": asked_recently(days=7) if asked_recently else None,
    }
    return render(request, "knowledge/dashboard.html", context)


@console_permission(VIEW_KNOWLEDGE)
@require_GET
def document_list(request: HtmxHttpRequest) -> HttpResponse:
    filters = DocumentFilterForm(request.GET)
    filters.is_valid()
    documents = selectors.document_list(**{k: v for k, v in filters.cleaned_data.items() if v})
    page = Paginator(documents, PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "filters": filters,
        "query_string": _query_string(request, exclude="page"),
        "licenses": license_choices(),
        "source_types": SourceType.choices,
        "languages": Language.choices,
        # Redacting less than the policy is for those who set it (redaction_choice_check).
        "redactions": Redaction.choices
        if request.user.has_perm(SET_REDACTION)
        else [
            (v, label) for v, label in Redaction.choices if v in (Redaction.DEFAULT, Redaction.ALL)
        ],
        "statuses": DocumentStatus.choices,
        "kinds": FileKind.choices,
        "max_upload_mb": settings.KNOWLEDGE_MAX_UPLOAD_BYTES // (1024 * 1024),
        "max_pages": settings.KNOWLEDGE_MAX_PDF_PAGES,
        "any_documents": Document.objects.exists(),
        "splits": SplitMode.choices,
        "sources_url": reverse("knowledge:source-list"),
        "chunking_defaults": selectors.chunking_defaults_by_scope(),
        "min_chunk": MIN_CHUNK_TOKENS,
        "max_chunk": MAX_CHUNK_TOKENS,
    }
    template = "knowledge/document_list.html"
    if request.htmx and request.htmx.target == "document-table":
        template += "#table"
    return render(request, template, context)


def _query_string(request: HtmxHttpRequest, *, exclude: str) -> str:
    params = request.GET.copy()
    params.pop(exclude, None)
    return params.urlencode()


def _status_payload(document: Document) -> dict[str, object]:
    return {
        "id": str(document.pk),
        "filename": document.filename,
        "status": document.status,
        "stage": document.stage,
        "stage_label": document.stage_label,
        "status_label": document.get_status_display(),
        "progress": document.progress,
        "minutes_left": document.minutes_left,
        "error": document.error_message,
        "chunks": document.chunk_count,
        "stuck": reingestion.document_is_stuck(document),
        "scope": document.scope_display,
        "detail_url": reverse("knowledge:document-detail", args=[document.pk]),
        "retry_url": reverse("knowledge:document-retry", args=[document.pk]),
    }


@console_permission(ADD_KNOWLEDGE)
@require_POST
def document_upload(request: HtmxHttpRequest) -> JsonResponse:
    """One file per request, so the DropZone can show a progress bar per file."""
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _form_errors(form)
    try:
        options = _upload_options(request, form)
        if form.cleaned_data["ask_if_changed"] and (namesake := _namesake_of(options)):
            return JsonResponse({"namesake": _named_payload(namesake)}, status=409)
        creation = uploads.document_create(**options)
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message}, status=exc.status)
    payload = _status_payload(creation.document)
    payload["duplicate"] = not creation.created
    return JsonResponse(payload, status=201 if creation.created else 200)


def _upload_options(request: HtmxHttpRequest, form: UploadForm) -> dict[str, Any]:
    """What an upload (or its preview) asks, once its redaction choice is allowed."""
    data = form.cleaned_data
    uploads.redaction_choice_check(
        choice=data["redaction"], may_set_policy=request.user.has_perm(SET_REDACTION)
    )
    return {
        "file": data["file"],
        "filename": data["file"].name,
        "license": data["license_obj"],
        "source_type": data["source_type"],
        "language": data["language"],
        "pdf_password": data["pdf_password"],
        "redaction": data["redaction"],
        "chunking": form.chunk_options(),
    }


def _namesake_of(options: dict[str, Any]) -> Document | None:
    name = uploads.shown_filename(options["filename"], options["license"], options["redaction"])
    return selectors.namesake_unless_copy(
        license=options["license"], filename=name, sha256=uploads.file_sha256(options["file"])
    )


def _form_errors(form: forms.Form) -> JsonResponse:
    errors = [str(e) for errs in form.errors.values() for e in errs]
    return JsonResponse({"error": " ".join(errors)}, status=400)


@console_permission(ADD_KNOWLEDGE)
@require_POST
def document_preview(request: HtmxHttpRequest) -> JsonResponse:
    """The first chunks a file would become with the form's chunking; nothing is stored."""
    form = UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _form_errors(form)
    try:
        preview = chunks_preview(**_upload_options(request, form))
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message}, status=exc.status)
    return JsonResponse(preview_payload(preview))


@console_permission(ADD_KNOWLEDGE)
@require_GET
def document_named(request: HtmxHttpRequest) -> JsonResponse:
    """The document an upload under this name would sit beside in its scope, so the
    DropZone can offer to make the upload its new version before sending the file."""
    form = NamedForm(request.GET)
    if not form.is_valid():
        return _form_errors(form)
    data = form.cleaned_data
    name = uploads.shown_filename(data["filename"], data["license_obj"], data["redaction"])
    document = selectors.document_named(license=data["license_obj"], filename=name)
    if document is None:
        return JsonResponse({"document": None})
    return JsonResponse({"document": _named_payload(document)})


def _named_payload(document: Document) -> dict[str, Any]:
    """A namesake as the DropZone asks about it: where its new version goes, and its size
    and digest (the same bytes again are a duplicate, not a version: the DropZone compares
    them where the browser can, and asks nothing then)."""
    payload = _status_payload(document)
    payload["version_url"] = reverse("knowledge:document-version", args=[document.pk])
    payload["size_bytes"], payload["sha256"] = document.size_bytes, document.sha256
    return payload


@console_permission(ADD_KNOWLEDGE)
@require_POST
def chunking_default_edit(request: HtmxHttpRequest) -> JsonResponse:
    """Save (or, for a license, reset to global's) the chunking a scope's next uploads get."""
    form = ChunkingDefaultForm(request.POST)
    if not form.is_valid():
        return _form_errors(form)
    license = form.cleaned_data["license_obj"]
    try:
        if form.cleaned_data["reset"] and license is not None:
            chunking_default_reset(license=license)
        else:
            chunking_default_set(license=license, options=form.chunk_options())
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message}, status=exc.status)
    return JsonResponse({"defaults": selectors.chunking_defaults_by_scope()})


@console_permission(VIEW_KNOWLEDGE)
@require_GET
def document_status(request: HtmxHttpRequest, pk: UUID) -> JsonResponse:
    return JsonResponse(_status_payload(_get_document(pk)))


CHUNKS_PER_PAGE = 50


@console_permission(VIEW_KNOWLEDGE)
@require_GET
def document_detail(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    document = _get_document(pk)
    chunks = Paginator(document.chunks.order_by("ordinal"), CHUNKS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    context = {
        "document": document,
        "chunks": chunks,
        "stuck": reingestion.document_is_stuck(document),
        "from_source": document.source_pages.exists(),
        # A citation opened from an answer: its passage, and the sentence to mark in it.
        "opened": _int_or_none(request.GET.get("open")),
        "quote": request.GET.get("quote", "")[:1000],
    }
    return render(request, "knowledge/document_detail.html", context)


def _int_or_none(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() else None


@console_permission(VIEW_KNOWLEDGE)
@require_GET
def chunk_open(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """A cited passage: its document's page of chunks, scrolled to it, the quote marked.
    A passage replaced since (its document read again: Retry, a new version, a web page
    that changed) or forgotten: the quote searched for in the scope that was answered."""
    chunk = Chunk.objects.only("document_id", "ordinal").filter(pk=pk).first()
    if chunk is None:
        return _passage_gone(request)
    before = Chunk.objects.filter(document_id=chunk.document_id, ordinal__lt=chunk.ordinal)
    page = before.count() // CHUNKS_PER_PAGE + 1
    query = urlencode({"page": page, "open": pk, "quote": request.GET.get("quote", "")[:1000]})
    url = reverse("knowledge:document-detail", args=[chunk.document_id])
    return redirect(f"{url}?{query}#chunk-{pk}")


def _passage_gone(request: HtmxHttpRequest) -> HttpResponse:
    quote = request.GET.get("quote", "")[:1000]
    messages.info(
        request,
        _(
            "That passage is no longer in the knowledge as it was cited: its document was "
            "read again or forgotten since. Here is where its words are now."
        )
        if quote
        else _(
            "That passage is no longer in the knowledge: its document was read again or "
            "forgotten since."
        ),
    )
    if not quote or not request.user.has_perm(SEARCH_AS_ADMIN):
        return redirect("knowledge:document-list")
    scope = request.GET.get("scope", "")[:200] or GLOBAL_SCOPE
    return redirect(
        f"{reverse('knowledge:playground')}?{urlencode({'query': quote, 'scope': scope})}"
    )


@console_permission(FORGET_KNOWLEDGE)
@require_POST
def document_forget(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    document = _get_document(pk)
    forgetting.document_forget(document=document)
    message = _("Forgot %(filename)s: its chunks are no longer searchable.") % {
        "filename": document.filename
    }
    if request.htmx:  # said in the page's live region, focus back on the table
        return HttpResponse(
            status=204, headers=_notify(message, changed=True, focus="#table-title")
        )
    messages.success(request, message)
    return redirect("knowledge:document-list")


@console_permission(FORGET_KNOWLEDGE)
@require_POST
def documents_forget_selected(request: HtmxHttpRequest) -> HttpResponse:
    ids = request.POST.getlist("documents")
    documents = list(Document.objects.filter(pk__in=[i for i in ids if _is_uuid(i)]))
    if not documents:
        messages.error(request, _("Select at least one document to forget."))
    else:
        forgetting.documents_forget(documents=documents)
        count = len(documents)
        messages.success(
            request,
            ngettext("Forgot %(count)s document.", "Forgot %(count)s documents.", count)
            % {"count": count},
        )
    return redirect(f"{reverse('knowledge:document-list')}?{request.POST.get('return_query', '')}")


def _is_uuid(value: str) -> bool:
    try:
        UUID(value)
    except ValueError:
        return False
    return True


@console_permission(ADD_KNOWLEDGE)
@require_POST
def document_retry(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    document = _get_document(pk)
    password = request.POST.get("pdf_password") or None
    wants_json = _wants_json(request)
    try:
        document = reingestion.document_retry(document=document, pdf_password=password)
    except ApplicationError as exc:
        if wants_json:
            return JsonResponse({"error": exc.message}, status=409)
        if request.htmx:  # a row of the knowledge table: say it there, change nothing
            return HttpResponse(status=204, headers=_notify(exc.message, level="error"))
        messages.error(request, exc.message)
        return redirect("knowledge:document-detail", pk=pk)
    if wants_json:
        return JsonResponse(_status_payload(document))
    message = _("%(filename)s is queued for ingestion again.") % {"filename": document.filename}
    if request.htmx:
        return HttpResponse(status=204, headers=_notify(message, changed=True))
    messages.success(request, message)
    return redirect("knowledge:document-detail", pk=pk)


@console_permission(ADD_KNOWLEDGE)
@require_POST
def document_new_version(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    """From the document's page (a redirect with a message), or from the DropZone (JSON)."""
    document = _get_document(pk)
    upload = request.FILES.get("file")
    if upload is None:
        return _version_refused(request, pk, _("Choose the file of the new version."), 400)
    try:
        document = reingestion.document_new_version(
            document=document,
            file=upload,
            filename=upload.name or document.filename,
            pdf_password=request.POST.get("pdf_password", ""),
        )
    except ApplicationError as exc:
        return _version_refused(request, pk, exc.message, exc.status)
    if _wants_json(request):
        return JsonResponse(_status_payload(document))
    messages.success(
        request,
        _(
            "%(filename)s: the new version is queued. The current chunks stay searchable "
            "until its own replace them."
        )
        % {"filename": document.filename},
    )
    return redirect("knowledge:document-detail", pk=pk)


def _wants_json(request: HtmxHttpRequest) -> bool:
    return request.headers.get("Accept") == "application/json"


def _version_refused(request: HtmxHttpRequest, pk: UUID, message: str, status: int) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"error": message}, status=status)
    messages.error(request, message)
    return redirect("knowledge:document-detail", pk=pk)


def _notify(
    message: str, *, level: str = "success", changed: bool = False, focus: str = ""
) -> dict[str, str]:
    """HX-Trigger headers: a message for the page's live region (static/js/console.js), where
    the keyboard focus goes when the row it was on is gone, and documentsChanged to reload
    the knowledge table."""
    shown: dict[str, str] = {"text": message, "level": level}
    if focus:
        shown["focus"] = focus
    events: dict[str, object] = {"showMessage": shown}
    if changed:
        events["documentsChanged"] = True
    return {"HX-Trigger": json.dumps(events)}


@console_permission(FORGET_KNOWLEDGE)
@require_POST
def chunk_forget(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    chunk = get_object_or_404(Chunk, pk=pk)
    document_id = chunk.document_id
    forgetting.chunk_forget(chunk=chunk)
    if request.htmx:  # the row disappears; the page says so and keeps the keyboard's place
        return HttpResponse("", headers=_notify(_("Chunk forgotten."), focus="#chunks-title"))
    messages.success(request, _("Chunk forgotten."))
    return redirect("knowledge:document-detail", pk=document_id)


@console_permission(SEARCH_AS_ADMIN)
def playground(request: HtmxHttpRequest) -> HttpResponse:
    form = PlaygroundForm(request.GET or None)
    response = error = None
    if form.is_bound and form.is_valid():
        data = form.cleaned_data
        license = (
            license_get_for_machine_id(data["scope"]) if data["scope"] != GLOBAL_SCOPE else None
        )
        options = SearchOptions(
            strategy=data["strategy"] or "",
            top_k=data["top_k"] or 0,
            min_score=data["min_score"],
            vector_weight=data["vector_weight"],
            relative_cut=data["relative_cut"],
        )
        try:
            response = searching.knowledge_search(
                principal=principal_for_admin(request.user.get_username(), license=license),
                query=data["query"],
                options=options,
            )
        except ApplicationError as exc:
            error = exc.message
    context = {
        "form": form,
        "response": response,
        "error": error,
        "ids": "",  # the results' element ids (another page shows several: their prefix)
        "marked": selectors.marked_words(response) if response else "",
        # The query log is support's and the owner's to read, not every playground user's.
        "recent": SearchLog.objects.select_related("license")[:15]
        if request.user.has_perm(QUERY_LOG)
        else None,
    }
    template = "knowledge/playground.html#results" if request.htmx else "knowledge/playground.html"
    return render(request, template, context)


@console_permission(SET_REDACTION)
@require_http_methods(["GET", "POST"])
def redaction_policy_edit(request: HtmxHttpRequest) -> HttpResponse:
    """A scope's redaction (``?scope=global`` or a license's machine_id): what is replaced,
    and the organisation's own contact details that uploads may keep."""
    scope = request.GET.get("scope") or GLOBAL_SCOPE
    license = None if scope == GLOBAL_SCOPE else license_get_for_machine_id(scope)
    if scope != GLOBAL_SCOPE and license is None:
        raise Http404
    own = selectors.redaction_policy_own(license)
    shown = own or selectors.redaction_policy_effective(license)
    initial = {
        "kinds": shown.kinds,
        "keep_contacts": shown.keep_contacts,
        "allow": "\n".join(own.allow if own else []),  # a license's adds to global's
    }
    form = RedactionPolicyForm(request.POST or None, initial=initial)
    if request.method == "POST" and request.POST.get("reset") and license:
        policies.redaction_policy_reset(license=license)
        messages.success(request, _("This license follows global's redaction again."))
        return redirect(f"{request.path}?scope={scope}")
    if request.method == "POST" and form.is_valid():
        try:
            policies.redaction_policy_set(license=license, **form.cleaned_data)
        except ApplicationError as exc:
            form.add_error("allow", exc.message)
        else:
            messages.success(request, _("Saved. New uploads and re-ingested documents follow it."))
            return redirect(f"{request.path}?scope={scope}")
    context = {
        "form": form,
        "scope": scope,
        "license": license,
        "has_own": own is not None,
        "shared_allow": selectors.redaction_policy_effective(None).allow if license else [],
        "licenses": license_choices(),
    }
    return render(request, "knowledge/redaction.html", context)


# -- web sources ---------------------------------------------------------------------------


@console_permission(VIEW_KNOWLEDGE)
@require_http_methods(["GET", "POST"])
def source_list(request: HtmxHttpRequest) -> HttpResponse:
    """Every web source, and (for knowledge editors) the form that adds one."""
    form = SourceForm(request.POST or None)
    if request.method == "POST":
        if not request.user.has_perm(ADD_KNOWLEDGE):
            raise PermissionDenied
        if form.is_valid():
            data = form.cleaned_data
            try:
                source = sources.source_add(
                    url=data["url"],
                    license=data["license_obj"],
                    mode=data["mode"],
                    every_hours=data["every_hours"],
                    max_pages=data["max_pages"],
                    max_depth=data["max_depth"],
                )
            except ApplicationError as exc:
                form.add_error("url", exc.message)
            else:
                sources.source_check_soon(source_id=source.pk)
                messages.success(request, _("Source added: its pages are being fetched."))
                return redirect("knowledge:source-detail", pk=source.pk)
    context = {"form": form, "sources": selectors.source_list(), "licenses": license_choices()}
    return render(request, "knowledge/source_list.html", context)


@console_permission(VIEW_KNOWLEDGE)
@require_GET
def source_detail(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    source = get_object_or_404(Source.objects.select_related("license"), pk=pk)
    context = {"source": source, "pages": selectors.source_pages(source)}
    return render(request, "knowledge/source_detail.html", context)


@console_permission(ADD_KNOWLEDGE)
@require_POST
def source_check(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    source = get_object_or_404(Source, pk=pk)
    sources.source_check_soon(source_id=source.pk)
    messages.success(
        request, _("Checking now: changes are searchable as soon as they are ingested.")
    )
    return redirect("knowledge:source-detail", pk=source.pk)


@console_permission(FORGET_KNOWLEDGE)
@require_POST
def source_forget(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    source = get_object_or_404(Source, pk=pk)
    forgotten = sources.source_forget(source=source)
    messages.success(
        request,
        ngettext(
            "Source forgotten, with its %(count)s document.",
            "Source forgotten, with its %(count)s documents.",
            forgotten,
        )
        % {"count": forgotten},
    )
    return redirect("knowledge:source-list")
