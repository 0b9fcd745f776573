from __future__ import annotations

from django import forms
from django.conf import settings

from knowledge.models import DocumentStatus, FileKind, Language, SourceType
from knowledge.search_types import STRATEGIES
from licenses.selectors import license_choices, license_get_for_machine_id


class ScopeField(forms.ChoiceField):
    """'global' or a license's machine_id."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(choices=(), **kwargs)

    def valid_value(self, value: str) -> bool:
        return value == "global" or license_get_for_machine_id(value) is not None


class UploadForm(forms.Form):
    file = forms.FileField()
    scope = forms.ChoiceField(
        choices=[("global", "Global"), ("license", "License")], initial="global"
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
                raise forms.ValidationError("Choose the license this knowledge belongs to.")
            data["license_obj"] = license
        return data


class DocumentFilterForm(forms.Form):
    SORTS = {
        "-created_at": "Newest",
        "created_at": "Oldest",
        "filename": "Name A–Z",
        "-filename": "Name Z–A",
        "-size_bytes": "Largest",
        "-chunk_count": "Most chunks",
        "status": "Status",
    }
    q = forms.CharField(required=False, label="File name")
    scope = forms.CharField(required=False)
    status = forms.ChoiceField(
        required=False, choices=[("", "Any status"), *DocumentStatus.choices]
    )
    kind = forms.ChoiceField(required=False, choices=[("", "Any type"), *FileKind.choices])
    sort = forms.ChoiceField(required=False, choices=list(SORTS.items()))


class PlaygroundForm(forms.Form):
    query = forms.CharField(max_length=4000, widget=forms.TextInput(attrs={"autocomplete": "off"}))
    scope = ScopeField(initial="global")
    strategy = forms.ChoiceField(
        choices=[(s, s) for s in STRATEGIES], initial=settings.SEARCH_STRATEGY, required=False
    )
    vector_weight = forms.FloatField(
        min_value=0, max_value=1, initial=settings.SEARCH_VECTOR_WEIGHT, required=False
    )
    top_k = forms.IntegerField(
        min_value=1, max_value=50, initial=settings.SEARCH_TOP_K, required=False
    )
    min_score = forms.FloatField(
        min_value=-1,
        max_value=1,
        required=False,
        help_text="empty = the model's calibrated default",
    )
    relative_cut = forms.FloatField(
        min_value=0,
        max_value=1,
        required=False,
        help_text=f"drop results under this share of the best; empty = {settings.SEARCH_RELATIVE_CUT}",
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.fields["scope"].choices = [("global", "Global only"), *license_choices()]
