from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from conversations.models import Cause, Verdict
from conversations.selectors import QueueFilters
from conversations.services import MAX_ANSWER_CHARS, MAX_COMMENT_CHARS, MAX_QUESTION_CHARS
from licenses.selectors import license_choices, license_get_for_machine_id

ANY = ("", _("Any"))
RATINGS = [ANY, ("up", _("Helpful")), ("down", _("Not helpful")), ("none", _("Not rated"))]
REVIEWED = [ANY, ("no", _("Not reviewed")), ("yes", _("Reviewed"))]
LANGUAGES = [ANY, ("es", "Español"), ("pt", "Português"), ("en", "English")]


class QueueFilterForm(forms.Form):
    """The review queue's filters; a value that is not one of the choices is ignored."""

    license = forms.ChoiceField(required=False, label=_("License"))
    user = forms.CharField(required=False, max_length=120, label=_("User"))
    since = forms.DateField(
        required=False, label=_("From"), widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        required=False, label=_("To"), widget=forms.DateInput(attrs={"type": "date"})
    )
    rating = forms.ChoiceField(required=False, choices=RATINGS, label=_("Rating"))
    language = forms.ChoiceField(required=False, choices=LANGUAGES, label=_("Language"))
    reviewed = forms.ChoiceField(required=False, choices=REVIEWED, label=_("Review"))
    no_information = forms.BooleanField(required=False, label=_("“No information” only"))
    low_score = forms.BooleanField(required=False, label=_("Low retrieval score only"))
    in_gap = forms.BooleanField(required=False, label=_("In a knowledge gap only"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["license"].choices = [ANY, *license_choices()]  # type: ignore[attr-defined]

    def filters(self) -> QueueFilters:
        self.is_valid()
        data = {name: self.cleaned_data.get(name) for name in self.fields}
        machine_id = data.pop("license") or ""
        return QueueFilters(
            license=license_get_for_machine_id(machine_id) if machine_id else None,
            user_ref=data["user"] or "",
            since=data["since"],
            until=data["until"],
            rating=data["rating"] or "",
            no_information=bool(data["no_information"]),
            low_score=bool(data["low_score"]),
            in_gap=bool(data["in_gap"]),
            language=data["language"] or "",
            reviewed=data["reviewed"] or "",
        )


class ReviewForm(forms.Form):
    # No verdict chosen for the reviewer: an unreviewed answer's form said "correct", one
    # click from recording a verdict nobody gave.
    verdict = forms.ChoiceField(choices=[("", _("—")), *Verdict.choices], label=_("Verdict"))
    cause = forms.ChoiceField(
        choices=[("", _("—")), *Cause.choices], required=False, label=_("Cause")
    )
    comment = forms.CharField(
        required=False,
        max_length=MAX_COMMENT_CHARS,
        label=_("Comment"),
        widget=forms.Textarea(attrs={"rows": 2}),
    )


class GapAnswerChangeForm(forms.Form):
    question = forms.CharField(max_length=MAX_QUESTION_CHARS, label=_("Question"))
    answer = forms.CharField(
        max_length=MAX_ANSWER_CHARS,
        label=_("Answer"),
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_("Written as the organisation: it is cited as its own answer."),
    )


class GapAnswerForm(GapAnswerChangeForm):
    scope = forms.ChoiceField(required=False, label=_("For"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["scope"].choices = [  # type: ignore[attr-defined]
            ("", _("Every license (global)")),
            *license_choices(),
        ]


class RetentionForm(forms.Form):
    license = forms.ChoiceField(label=_("License"))
    days = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=3650,
        label=_("Days kept"),
        help_text=_("0: only daily counts are kept. Empty: the deployment's retention."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["license"].choices = license_choices()  # type: ignore[attr-defined]
