from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.formats import number_format
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from knowledge.chunk_options import MAX_CHUNK_TOKENS, MIN_CHUNK_TOKENS, ChunkOptions
from knowledge.models import (
    PII_LABELS,
    DocumentStatus,
    FileKind,
    Language,
    Redaction,
    SourceMode,
    SourceType,
    SplitMode,
)
from knowledge.search import STRATEGIES
from knowledge.uploads import MAX_PDF_PASSWORD_CHARS
from licenses.models import GLOBAL_SCOPE
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
    """GLOBAL_SCOPE or a license's machine_id."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=(), **kwargs)

    def valid_value(self, value: str) -> bool:
        return value == GLOBAL_SCOPE or license_get_for_machine_id(value) is not None


class ChunkingFields(forms.Form):
    """Chunking an upload (or a scope's default) chooses; empty = the scope's default."""

    chunk_size = forms.IntegerField(
        required=False, min_value=MIN_CHUNK_TOKENS, max_value=MAX_CHUNK_TOKENS
    )
    chunk_overlap = forms.IntegerField(required=False, min_value=0, max_value=MAX_CHUNK_TOKENS // 2)
    split = forms.ChoiceField(
        required=False, choices=[("", _("The scope's default")), *SplitMode.choices]
    )

    def chunk_options(self) -> ChunkOptions:
        data = self.cleaned_data
        return ChunkOptions(
            data.get("chunk_size"), data.get("chunk_overlap"), data.get("split") or ""
        )


class ScopeFields(forms.Form):
    scope = forms.ChoiceField(
        choices=[(GLOBAL_SCOPE, _("Global")), ("license", _("License"))], initial=GLOBAL_SCOPE
    )
    license = forms.CharField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        data["license_obj"] = None
        if data.get("scope") == "license":
            license = license_get_for_machine_id(data.get("license") or "")
            if license is None:
                raise forms.ValidationError(_("Choose the license this knowledge belongs to."))
            data["license_obj"] = license
        return data


class ChunkingDefaultForm(ScopeFields, ChunkingFields):
    reset = forms.BooleanField(required=False)


class RedactionField(forms.Form):
    redaction = forms.ChoiceField(
        choices=Redaction.choices, initial=Redaction.DEFAULT, required=False
    )

    def clean_redaction(self) -> str:
        return self.cleaned_data.get("redaction") or Redaction.DEFAULT


class UploadForm(ScopeFields, ChunkingFields, RedactionField):
    file = forms.FileField(allow_empty_file=True)  # uploads.upload_checked names it
    source_type = forms.ChoiceField(choices=SourceType.choices, initial=SourceType.OTHER)
    language = forms.ChoiceField(choices=Language.choices, initial=Language.AUTO)
    pdf_password = forms.CharField(
        required=False, max_length=MAX_PDF_PASSWORD_CHARS, widget=forms.PasswordInput
    )
    # The DropZone could not compare the bytes itself (a browser hashes only on a secure
    # origin): a file named as a document of the scope, unless it is a copy, is not stored
    # but answered with that document, so the person decides.
    ask_if_changed = forms.BooleanField(required=False)


class NamedForm(ScopeFields, RedactionField):
    """An upload's name and scope, before its file is sent."""

    filename = forms.CharField(max_length=1000)


class RedactionPolicyForm(forms.Form):
    kinds = forms.MultipleChoiceField(
        required=False,
        label=_("Personal data to redact"),
        choices=list(PII_LABELS.items()),
        widget=forms.CheckboxSelectMultiple,
    )
    keep_contacts = forms.BooleanField(
        required=False,
        label=_("Keep our contact details in every upload"),
        help_text=_(
            "Otherwise only uploads that ask for it (“Keep our contact details”) keep them."
        ),
    )
    allow = forms.CharField(
        required=False,
        label=_("Our contact details (allow-list)"),
        widget=forms.Textarea(attrs={"rows": 5, "spellcheck": "false"}),
        help_text=_(
            "One per line: an e-mail address (soporte@alamos.example), a whole e-mail domain "
            "(@alamos.example) or a phone number (+34 910 000 000, with or without the "
            "country code). Anyone else's stay redacted."
        ),
    )

    def clean_allow(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["allow"].splitlines() if line.strip()]


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
    scope = ScopeField(initial=GLOBAL_SCOPE, label=_("Search as"))
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
        help_text=_("Empty: the model's calibrated default."),
    )
    relative_cut = forms.FloatField(
        label=_("Relative cut"),
        min_value=0,
        max_value=1,
        required=False,
        help_text=format_lazy(
            _("Drops results scoring under this share of the best one. Empty: {default}."),
            default=lazy(lambda: number_format(settings.SEARCH_RELATIVE_CUT), str)(),
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        scope = self.fields["scope"]
        assert isinstance(scope, forms.ChoiceField)
        scope.choices = [(GLOBAL_SCOPE, _("Global only")), *license_choices()]


class SourceForm(ScopeFields):
    url = forms.URLField(label=_("Address"), max_length=2000, assume_scheme="https")
    mode = forms.ChoiceField(
        label=_("What to keep"),
        choices=SourceMode.choices,
        initial=SourceMode.PAGE,
        help_text=_(
            "A whole site: the pages under the address, found by following its links, and the "
            "documents they link (PDF, Word…)."
        ),
        widget=forms.Select(attrs={"aria-describedby": "mode-help"}),
    )
    every_hours = forms.IntegerField(
        label=_("Check every (hours)"), min_value=1, max_value=24 * 365, initial=24
    )
    max_pages = forms.IntegerField(
        label=_("At most (pages)"), min_value=1, max_value=10_000, initial=50
    )
    max_depth = forms.IntegerField(
        label=_("Links followed (site)"), min_value=0, max_value=10, initial=2
    )
