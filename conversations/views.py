"""Console pages: the review queue and its transcripts, knowledge gaps, insights, and a
privacy officer's export, erasure and retention."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts.roles import (
    ANSWER_GAPS,
    DASHBOARD,
    DELETE_MEMORIES,
    ERASE_CONVERSATIONS,
    REVIEW_CONVERSATIONS,
    SEARCH_AS_ADMIN,
    VIEW_CONVERSATIONS,
    VIEW_GAPS,
    console_permission,
)
from conversations import selectors, services
from conversations.exports import exchanges_download, gaps_download, user_data_download
from conversations.forms import (
    GapAnswerChangeForm,
    GapAnswerForm,
    QueueFilterForm,
    RetentionForm,
    ReviewForm,
)
from conversations.models import Exchange, Gap, GapStatus, Retention
from knowledge.selectors import marked_words
from licenses.models import License
from licenses.selectors import license_get_for_machine_id
from web.exceptions import ApplicationError
from web.http import HtmxHttpRequest, safe_next

PAGE_SIZE = 25


@console_permission(VIEW_CONVERSATIONS)
@require_GET
def queue(request: HtmxHttpRequest) -> HttpResponse | StreamingHttpResponse:
    form = QueueFilterForm(request.GET)
    filters = form.filters()
    rows = selectors.exchange_queue(filters)
    as_ = request.GET.get("as", "")
    if as_ in ("csv", "json"):
        return exchanges_download(rows, as_, with_user=True)
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "filters": filters,
        "page": page,
        "query": query.urlencode(),
        "retentions": Retention.objects.select_related("license").order_by("license__machine_id"),
        "default_retention": services.retention_days(None),
        "retention_form": RetentionForm(),
    }
    return render(request, "conversations/queue.html", context)


@console_permission(VIEW_CONVERSATIONS)
@require_GET
def transcript(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    conversation = selectors.conversation_get(pk)
    if conversation is None:
        raise Http404
    context = {
        "conversation": conversation,
        "exchanges": list(conversation.exchanges.all()),
        "review_form": ReviewForm(),
        "next": request.GET.get("next", ""),
    }
    return render(request, "conversations/transcript.html", context)


@console_permission(VIEW_CONVERSATIONS)
@console_permission(SEARCH_AS_ADMIN)
@require_GET
def answer_search(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    """What a search for an answer's question finds in its scope now, beside its transcript:
    did the knowledge lack it, or did the search miss it?"""
    exchange = selectors.exchange_get(pk)
    if exchange is None:
        raise Http404
    back = reverse("conversations:transcript", args=[exchange.conversation_id])
    return _searched_again(request, exchange, back=f"{back}#answer-{exchange.pk}", as_followed=True)


@console_permission(VIEW_GAPS)
@console_permission(SEARCH_AS_ADMIN)
@require_GET
def gap_search(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The same for a gap's latest phrasing, before an editor answers it: is it in a
    document already? The phrasing alone, as the gap shows it: never the questions its
    person asked before (a gap's reader does not read conversations)."""
    exchange = selectors.gap_latest_asked(pk)
    if exchange is None:
        raise Http404
    back = reverse("conversations:gaps")
    return _searched_again(request, exchange, back=f"{back}#gap-{pk}", as_followed=False)


def _searched_again(
    request: HtmxHttpRequest, exchange: Exchange, *, back: str, as_followed: bool
) -> HttpResponse:
    response = error = None
    try:
        response = services.exchange_search_again(
            exchange=exchange, actor=request.user.get_username(), as_followed=as_followed
        )
    except ApplicationError as exc:
        error = exc.message
    context = {
        "question": exchange.question,
        "back": back,
        "response": response,
        "error": error,
        "marked": marked_words(response) if response else "",
        "recent": None,  # the playground's results, without its query log
        "ids": f"found-{exchange.pk}-",  # unique beside another answer's results
    }
    page = "conversations/search_again.html"
    return render(request, f"{page}#found" if request.htmx else page, context)


@console_permission(REVIEW_CONVERSATIONS)
@require_POST
def review(request: HtmxHttpRequest, pk: UUID) -> HttpResponse:
    exchange = selectors.exchange_get(pk)
    if exchange is None:
        raise Http404
    form = ReviewForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a verdict."))
    else:
        try:
            services.exchange_review(
                exchange=exchange,
                verdict=form.cleaned_data["verdict"],
                cause=form.cleaned_data["cause"],
                comment=form.cleaned_data["comment"],
                reviewer=request.user.get_username(),
            )
            messages.success(request, _("Verdict recorded."))
        except ApplicationError as exc:
            messages.error(request, exc.message)
    url = reverse("conversations:transcript", args=[exchange.conversation_id])
    return redirect(f"{url}#answer-{exchange.pk}")


def _erasure_subject(request: HtmxHttpRequest) -> tuple[License, str] | None:
    """The end user an erasure form names (license and user), or None, said to the admin."""
    license = license_get_for_machine_id(request.POST.get("license", ""))
    user_ref = request.POST.get("user", "").strip()
    if license is None or not user_ref:
        messages.error(request, _("Filter by a license and a user first."))
        return None
    return license, user_ref


@console_permission(ERASE_CONVERSATIONS)
@require_POST
def erase_user(request: HtmxHttpRequest) -> HttpResponse:
    if subject := _erasure_subject(request):
        license, user_ref = subject
        erased = services.conversations_erase_user(license=license, user_ref=user_ref)
        text = ngettext(
            "Erased %(count)s conversation of %(user)s.",
            "Erased %(count)s conversations of %(user)s.",
            erased,
        )
        messages.success(request, text % {"count": erased, "user": user_ref})
    return redirect(safe_next(request, fallback="conversations:queue"))


@console_permission(ERASE_CONVERSATIONS)
@console_permission(DELETE_MEMORIES)
@require_POST
def erase_person(request: HtmxHttpRequest) -> HttpResponse:
    """A person's erasure request answered in one step: conversations, memories, consent."""
    if subject := _erasure_subject(request):
        license, user_ref = subject
        erased = services.person_erase(
            license=license, user_ref=user_ref, actor=f"admin:{request.user.get_username()}"
        )
        messages.success(
            request,
            _(
                "Erased everything kept about %(user)s (conversations: %(conversations)s, "
                "memories: %(memories)s) and their consent to be remembered."
            )
            % {
                "user": user_ref,
                "conversations": erased.conversations,
                "memories": erased.memories,
            },
        )
    return redirect(safe_next(request, fallback="conversations:queue"))


@console_permission(ERASE_CONVERSATIONS)
@require_GET
def export_user(request: HtmxHttpRequest) -> HttpResponse:
    """Everything kept about one end user (memories and conversations), as they would get it."""
    license = license_get_for_machine_id(request.GET.get("license", ""))
    user_ref = request.GET.get("user", "").strip()
    if license is None or not user_ref:
        raise Http404
    return user_data_download(license, user_ref, "user-data.json", by_staff=True)


@console_permission(ERASE_CONVERSATIONS)
@require_POST
def retention_edit(request: HtmxHttpRequest) -> HttpResponse:
    form = RetentionForm(request.POST)
    if form.is_valid():
        license = license_get_for_machine_id(form.cleaned_data["license"])
        if license is not None:
            services.retention_set(license=license, days=form.cleaned_data["days"])
            messages.success(request, _("Retention saved."))
    else:
        messages.error(request, _("Choose a license and a number of days from 0 to 3650."))
    return redirect("conversations:queue")


@console_permission(VIEW_GAPS)
@require_GET
def gaps(request: HtmxHttpRequest) -> HttpResponse | StreamingHttpResponse:
    status = request.GET.get("status", GapStatus.OPEN)
    if status not in GapStatus.values:
        status = GapStatus.OPEN
    one = request.GET.get("gap", "")
    one = one if one.isdigit() and len(one) < 19 else ""  # a transcript's link to its gap
    rows = selectors.gap_list(status="" if one else status)
    if one:
        rows = rows.filter(pk=int(one))
    as_ = request.GET.get("as", "")
    if as_ in ("csv", "json"):
        return gaps_download(rows, as_)
    page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
    names = selectors.license_names(list(page.object_list))
    language = get_language() or ""  # each gap named in the editor's, when asked in it
    for gap in page.object_list:
        gap.examples = selectors.gap_examples(gap, language)  # type: ignore[attr-defined]
        gap.licenses = [names[i] for i in gap.license_ids if i in names]  # type: ignore[attr-defined]
        gap.form = _answer_form(gap)  # type: ignore[attr-defined]
    context = {"page": page, "status": "" if one else status, "one": one}
    return render(request, "conversations/gaps.html", context)


def _answer_form(gap: Gap) -> GapAnswerChangeForm:
    """An answered gap's answer to correct; an open one's to write, from its latest
    phrasing, or from its answer that was forgotten from the knowledge."""
    prefix = f"gap{gap.pk}"
    if gap.answer:
        initial = {"question": gap.answer_question, "answer": gap.answer}
        if gap.status == GapStatus.ANSWERED:
            return GapAnswerChangeForm(initial=initial, prefix=prefix)
        scope = gap.answer_license.machine_id if gap.answer_license else ""
        return GapAnswerForm(initial={**initial, "scope": scope}, prefix=prefix)
    question = selectors.gap_phrasing_in(gap, get_language() or "")
    return GapAnswerForm(initial={"question": question}, prefix=prefix)


@console_permission(ANSWER_GAPS)
@require_POST
def gap_answer(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    form = GapAnswerForm(request.POST, prefix=f"gap{pk}")
    if not form.is_valid():
        messages.error(request, _("Write the question and its answer."))
        return redirect(f"{reverse('conversations:gaps')}#gap-{pk}")
    try:
        license = license_get_for_machine_id(form.cleaned_data["scope"] or "")
        if form.cleaned_data["scope"] and license is None:
            raise Http404
        services.gap_answer(
            gap_id=pk,
            question=form.cleaned_data["question"],
            answer=form.cleaned_data["answer"],
            license=license,
            editor=request.user.get_username(),
        )
        messages.success(
            request,
            _("Answered: the answer is being added to the knowledge and the gap is closed."),
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(f"{reverse('conversations:gaps')}?status=answered")


@console_permission(ANSWER_GAPS)
@require_POST
def gap_answer_change(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    form = GapAnswerChangeForm(request.POST, prefix=f"gap{pk}")
    if not form.is_valid():
        messages.error(request, _("Write the question and its answer."))
        return redirect(f"{reverse('conversations:gaps')}?status=answered#gap-{pk}")
    try:
        services.gap_answer_change(
            gap_id=pk,
            question=form.cleaned_data["question"],
            answer=form.cleaned_data["answer"],
            editor=request.user.get_username(),
        )
        messages.success(
            request,
            _(
                "Changed: the knowledge takes the new answer as soon as it is read; until "
                "then the previous one is cited."
            ),
        )
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(f"{reverse('conversations:gaps')}?status=answered#gap-{pk}")


@console_permission(ANSWER_GAPS)
@require_POST
def gap_dismiss(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return _gap_changed(
        request,
        lambda: services.gap_dismiss(gap_id=pk, editor=request.user.get_username()),
        _("Dismissed: its askings keep counting in it, under Dismissed, not among the open gaps."),
        f"{reverse('conversations:gaps')}?status=open",
    )


@console_permission(ANSWER_GAPS)
@require_POST
def gap_reopen(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return _gap_changed(
        request,
        lambda: services.gap_reopen(gap_id=pk),
        _("Reopened: the gap is among the open ones again."),
        f"{reverse('conversations:gaps')}?status=open#gap-{pk}",
    )


def _gap_changed(
    request: HtmxHttpRequest, change: Callable[[], object], done: str, back: str
) -> HttpResponse:
    """A gap's status changed (or why not, in the editor's language), back on its page."""
    try:
        change()
        messages.success(request, done)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(back)


@console_permission(DASHBOARD)
@require_GET
def insights(request: HtmxHttpRequest) -> HttpResponse:
    machine_id = request.GET.get("license", "")
    license = license_get_for_machine_id(machine_id) if machine_id else None
    figures = selectors.insights(license=license, days=30)
    form = QueueFilterForm(initial={"license": machine_id})
    context = {
        "figures": figures,
        "license": license,
        "licenses": form.fields["license"].choices,  # type: ignore[attr-defined]
        "may_see_gaps": request.user.has_perm(VIEW_GAPS),
    }
    return render(request, "conversations/insights.html", context)
