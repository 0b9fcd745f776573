from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from chat.answerers import answerers_available
from chat.models import (
    MAX_GREETING_CHARS,
    SESSION_IDLE_MINUTES,
    SESSION_MAX_MINUTES,
    SESSIONS_AT_ONCE,
    Answerer,
    AnswerLength,
    LauncherIcon,
    WidgetPosition,
)
from chat.selectors import NUMBER_FIELDS, TEXT_FIELDS, AssistantProfile

if TYPE_CHECKING:  # django-stubs' lazy-string type, a development dependency
    from django_stubs_ext import StrOrPromise

GREETING_FIELDS = {"es": "greeting_es", "pt": "greeting_pt", "en": "greeting_en"}
OFFLINE_HELP = _("Offline quotes the passages that answer, with no model.")


def _between(
    bounds: tuple[int, int], label: StrOrPromise, help_text: StrOrPromise
) -> forms.IntegerField:
    """An optional whole number within ``bounds`` (empty: the inherited value)."""
    return forms.IntegerField(
        required=False, min_value=bounds[0], max_value=bounds[1], label=label, help_text=help_text
    )


class AssistantForm(forms.Form):
    """The deployment's assistant, or one license's (``for_license``). An empty field means
    what is ``inherited`` (the deployment's for a license, as shipped for the deployment),
    shown as the field's placeholder."""

    name = forms.CharField(max_length=60, required=False, label=_("Name"))
    instructions = forms.CharField(
        max_length=4000,
        required=False,
        label=_("Persona and instructions"),
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=_(
            "Tone, style and focus, e.g. “Friendly and brief; you help the staff of a "
            "school”. They never override the product's rules: answers stay within the "
            "caller's knowledge, cite their sources and remember nothing without consent."
        ),
    )
    greeting_es = forms.CharField(
        max_length=MAX_GREETING_CHARS, required=False, label=_("Greeting (Spanish)")
    )
    greeting_pt = forms.CharField(
        max_length=MAX_GREETING_CHARS, required=False, label=_("Greeting (Portuguese)")
    )
    greeting_en = forms.CharField(
        max_length=MAX_GREETING_CHARS, required=False, label=_("Greeting (English)")
    )
    suggestions = forms.CharField(
        required=False,
        label=_("Suggested questions"),
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("Up to 4, one per line; the widget offers them before the first question."),
    )
    answer_length = forms.ChoiceField(required=False, label=_("Answer length"))
    answerer = forms.ChoiceField(required=False, label=_("Answerer"), help_text=OFFLINE_HELP)
    widget_title = forms.CharField(max_length=60, required=False, label=_("Widget title"))
    widget_color = forms.CharField(
        max_length=7,
        required=False,
        label=_("Widget colour"),
        widget=forms.TextInput(attrs={"pattern": "#[0-9a-fA-F]{6}", "spellcheck": "false"}),
        help_text=_("#rrggbb; the text on it turns dark or light to stay readable."),
    )
    widget_position = forms.ChoiceField(required=False, label=_("Widget position"))
    launcher_icon = forms.ChoiceField(required=False, label=_("Launcher icon"))
    session_idle_minutes = _between(
        SESSION_IDLE_MINUTES,
        _("Minutes without a question"),
        _(
            "5 to 30; then the conversation is forgotten. Until then, what the user asked is context."
        ),
    )
    session_max_minutes = _between(
        SESSION_MAX_MINUTES,
        _("Longest (minutes)"),
        _("30 to 240; then the next question starts a new one."),
    )
    sessions_at_once = _between(
        SESSIONS_AT_ONCE,
        _("At once per user"),
        _("1 to 5; a new one past them ends the least recently used."),
    )
    # The page's sections, each a heading over its fields, every field in one of them.
    SECTIONS = (
        (_("What it says"), ("name", "instructions", "greeting_es", "greeting_pt",
                             "greeting_en", "suggestions", "answer_length", "answerer")),
        (_("How the widget looks"), ("widget_title", "widget_color", "widget_position",
                                     "launcher_icon")),
        (_("Conversations"), ("session_idle_minutes", "session_max_minutes",
                              "sessions_at_once")),
    )  # fmt: skip

    def __init__(
        self, *args: Any, inherited: AssistantProfile, for_license: bool, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.for_license = for_license
        empty = _("As the deployment") if for_license else _("As shipped")
        available = answerers_available()
        choices = {
            "answer_length": [("", empty), *AnswerLength.choices],
            "answerer": [
                ("", _("The server's default")),
                *((value, label) for value, label in Answerer.choices if value in available),
            ],
            "widget_position": [("", empty), *WidgetPosition.choices],
            "launcher_icon": [("", empty), *LauncherIcon.choices],
        }
        for name, options in choices.items():
            cast(forms.ChoiceField, self.fields[name]).choices = options
        self.fields["greeting_es"].help_text = _(
            "{user_name} becomes the license's user name. Empty: the standard greeting."
        )
        self._show_inherited(inherited)

    def sections(self) -> list[tuple[StrOrPromise, list[forms.BoundField]]]:
        return [(legend, [self[name] for name in names]) for legend, names in self.SECTIONS]

    def _show_inherited(self, inherited: AssistantProfile) -> None:
        placeholders = {
            "name": inherited.name,
            "instructions": inherited.instructions,
            "widget_title": inherited.title,
            "widget_color": inherited.widget_color,
            "suggestions": "\n".join(inherited.suggestions),
            **{name: str(getattr(inherited, name)) for name in NUMBER_FIELDS},
            **{field: inherited.greeting.get(lang, "") for lang, field in GREETING_FIELDS.items()},
        }
        for name, value in placeholders.items():
            if value:
                self.fields[name].widget.attrs["placeholder"] = value

    def clean_widget_color(self) -> str:
        return str(self.cleaned_data["widget_color"]).strip().lower()

    def clean_suggestions(self) -> list[str] | None:
        lines = [line.strip() for line in self.cleaned_data["suggestions"].splitlines()]
        lines = [line for line in lines if line]
        # A license with none of its own takes the deployment's; the deployment's empty = none.
        return lines if lines or not self.for_license else None

    def values(self) -> dict[str, Any]:
        """The cleaned form as the Assistant row's fields."""
        data = dict(self.cleaned_data)
        data["greeting"] = {
            lang: text
            for lang, field in GREETING_FIELDS.items()
            if (text := data.pop(field).strip())
        }
        return data

    @classmethod
    def initial_from(cls, row: Any) -> dict[str, Any]:  # noqa: ANN401 - an Assistant or None
        if row is None:
            return {}
        initial = {name: getattr(row, name) for name in (*TEXT_FIELDS, *NUMBER_FIELDS)}
        initial["suggestions"] = "\n".join(row.suggestions or [])
        for lang, field in GREETING_FIELDS.items():
            initial[field] = (row.greeting or {}).get(lang, "")
        return initial


class ProviderForm(forms.Form):
    """The deployment's answerer and its provider's key (the Providers page)."""

    answerer = forms.ChoiceField(
        label=_("Answerer"),
        required=False,
        choices=[("", _("The server's default")), *Answerer.choices],
        help_text=OFFLINE_HELP,
    )
    gemini_model = forms.CharField(
        label=_("Gemini model"),
        required=False,
        max_length=100,
        help_text=_("Empty: gemini-2.5-flash."),
    )
    gemini_key = forms.CharField(
        label=_("Gemini API key"),
        required=False,
        max_length=300,
        widget=forms.PasswordInput(attrs={"autocomplete": "off"}),
    )
    forget_gemini_key = forms.BooleanField(label=_("Remove the saved Gemini key"), required=False)
    openai_base_url = forms.URLField(
        label=_("Model server address"),
        required=False,
        max_length=300,
        help_text=_("An OpenAI-compatible server, such as http://127.0.0.1:11434/v1 (Ollama)."),
        assume_scheme="https",
    )
    openai_model = forms.CharField(label=_("Model"), required=False, max_length=100)
    openai_key = forms.CharField(
        label=_("Model server API key"),
        required=False,
        max_length=300,
        widget=forms.PasswordInput(attrs={"autocomplete": "off"}),
    )
    forget_openai_key = forms.BooleanField(
        label=_("Remove the saved model server key"), required=False
    )

    def __init__(self, *args: Any, from_env: frozenset[str], **kwargs: Any) -> None:  # noqa: ANN401
        super().__init__(*args, **kwargs)
        # A setting the environment gives cannot be changed here: the page says so.
        for name, env_name in ENV_NAMES.items():
            if env_name in from_env:
                self.fields[name].disabled = True
                self.fields[name].help_text = _(
                    "Set by %(variable)s in the environment, which wins."
                ) % {"variable": env_name}


ENV_NAMES = {
    "answerer": "LLM_PROVIDER",
    "gemini_model": "GEMINI_CHAT_MODEL",
    "gemini_key": "GEMINI_API_KEY",
    "openai_base_url": "OPENAI_BASE_URL",
    "openai_model": "OPENAI_MODEL",
    "openai_key": "OPENAI_API_KEY",
}
