from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from knowledge.models import DocumentStatus, FileKind, Language, SourceType
from knowledge.search_types import STRATEGIES
from licenses.selectors import license_choices, license_get_for_machine_id

# How the console names the search strategies (the API takes the names themselves).
STRATEGY_LABELS = {
    "weighted": _("hybrid, weighted fusion"),
    "rrf": _("hybrid, reciprocal rank fusion"),
    "average": _("hybrid, score average"),
    "vector": _("vector only"),
    "keyword": _("keywords only"),
}


class ScopeField(forms.ChoiceField):
    """'global' or a license's machine_id."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(choices=(), **kwargs)

    def valid_value(self, value: str) -> bool:
        return value == "global" or license_get_for_machine_id(value) is not None


class UploadForm(forms.Form):
    file = forms.FileField()
    scope = forms.ChoiceField(
        choices=[("global", _("Global")), ("license", _("License"))], initial="global"
    )
    license = forms.CharField(required=False)
    source_type = forms.ChoiceField(choices=SourceType.choices, initial=SourceType.OTHER)
    language = forms.ChoiceField(choices=Language.choices, initial=Language.AUTO)
    pdf_password = forms.CharField(required=False, widget=forms.PasswordInput)

    def clean(self) -> dict:
        data = super().clean()
        data["license_obj"] = None
        if data.get("scope") == "license":
            license = license_get_for_machine_id(data.get("license") or "")
            if license is None:
                raise forms.ValidationError(_("Choose the license this knowledge belongs to."))
            data["license_obj"] = license
        return data


class DocumentFilterForm(forms.Form):
    SORTS = {
        "-created_at": _("Newest"),
        "created_at": _("Oldest"),
        "filename": _("Name A–Z"),
        "-filename": _("Name Z–A"),
        "-size_bytes": _("Largest"),
        "-chunk_count": _("Most chunks"),
        "status": _("Status"),
    }
    q = forms.CharField(required=False, label=_("File name"))
    scope = forms.CharField(required=False)
    status = forms.ChoiceField(
        required=False, choices=[("", _("Any status")), *DocumentStatus.choices]
    )
    kind = forms.ChoiceField(required=False, choices=[("", _("Any type")), *FileKind.choices])
    sort = forms.ChoiceField(required=False, choices=list(SORTS.items()))


class PlaygroundForm(forms.Form):
    query = forms.CharField(
        label=_("Query"), max_length=4000, widget=forms.TextInput(attrs={"autocomplete": "off"})
    )
    scope = ScopeField(initial="global", label=_("Search as"))
    strategy = forms.ChoiceField(
        label=_("Strategy"),
        choices=[(s, STRATEGY_LABELS.get(s, s)) for s in STRATEGIES],
        initial=settings.SEARCH_STRATEGY,
        required=False,
    )
    vector_weight = forms.FloatField(
        label=_("Vector weight"),
        min_value=0,
        max_value=1,
        initial=settings.SEARCH_VECTOR_WEIGHT,
        required=False,
    )
    top_k = forms.IntegerField(
        label="Top-k", min_value=1, max_value=50, initial=settings.SEARCH_TOP_K, required=False
    )
    min_score = forms.FloatField(
        label=_("Threshold"),
        min_value=-1,
        max_value=1,
        required=False,
        help_text=_("empty = the model's calibrated default"),
    )
    relative_cut = forms.FloatField(
        label=_("Relative cut"),
        min_value=0,
        max_value=1,
        required=False,
        help_text=format_lazy(
            _("drop results under this share of the best; empty = {default}"),
            default=settings.SEARCH_RELATIVE_CUT,
        ),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["scope"].choices = [("global", _("Global only")), *license_choices()]
