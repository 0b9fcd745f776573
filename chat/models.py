"""How the assistant presents itself: one row for the deployment (no license) and, for any
license that differs, a row of its own whose empty fields mean "as the deployment". What
ships (the name Savara included) is settings.ASSISTANT_DEFAULTS, under both."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from licenses.models import License

HEX_COLOUR = RegexValidator(r"^#[0-9a-fA-F]{6}$", _("Enter a colour as #rrggbb, e.g. #3355cc."))
MAX_SUGGESTIONS = 4
MAX_SUGGESTION_CHARS = 150
MAX_GREETING_CHARS = 300
GREETING_LANGUAGES = ("es", "pt", "en")
# Seed 004 §5.2: what a license's admin may set of its users' conversations (minutes, and
# conversations at once per user).
SESSION_IDLE_MINUTES = (5, 30)
SESSION_MAX_MINUTES = (30, 240)
SESSIONS_AT_ONCE = (1, 5)


def _between(bounds: tuple[int, int]) -> list[MinValueValidator | MaxValueValidator]:
    return [MinValueValidator(bounds[0]), MaxValueValidator(bounds[1])]


class AnswerLength(models.TextChoices):
    SHORT = "short", _("Short (up to about 60 words)")
    NORMAL = "normal", _("Normal (up to about 150 words)")
    DETAILED = "detailed", _("Detailed (up to about 400 words)")


class Answerer(models.TextChoices):
    OFFLINE = "extractive", _("Offline (no model)")
    GEMINI = "gemini", _("Gemini")
    OPENAI = "openai", _("OpenAI-compatible model")


class WidgetPosition(models.TextChoices):
    RIGHT = "right", _("Bottom right")
    LEFT = "left", _("Bottom left")


class LauncherIcon(models.TextChoices):
    CHAT = "chat", _("Speech bubble")
    HELP = "help", _("Question mark")
    SPARK = "spark", _("Spark")


class Assistant(models.Model):
    license = models.OneToOneField(
        License, null=True, blank=True, on_delete=models.CASCADE, related_name="assistant"
    )
    name = models.CharField(_("name"), max_length=60, blank=True)
    instructions = models.TextField(_("persona and instructions"), max_length=4000, blank=True)
    # {"es": "...", "pt": "...", "en": "..."}: the widget greets in its user's language.
    greeting = models.JSONField(_("greeting"), default=dict, blank=True)
    # None = as the deployment; [] = none on purpose.
    suggestions = models.JSONField(_("suggested questions"), null=True, blank=True)
    answer_length = models.CharField(
        _("answer length"), max_length=10, choices=AnswerLength.choices, blank=True
    )
    answerer = models.CharField(_("answerer"), max_length=12, choices=Answerer.choices, blank=True)
    widget_title = models.CharField(_("widget title"), max_length=60, blank=True)
    widget_color = models.CharField(
        _("widget colour"), max_length=7, blank=True, validators=[HEX_COLOUR]
    )
    widget_position = models.CharField(
        _("widget position"), max_length=5, choices=WidgetPosition.choices, blank=True
    )
    launcher_icon = models.CharField(
        _("launcher icon"), max_length=5, choices=LauncherIcon.choices, blank=True
    )
    # The conversation the assistant keeps in mind (chat.session); None = as the deployment.
    session_idle_minutes = models.PositiveSmallIntegerField(
        _("conversation forgotten after (minutes without a question)"),
        null=True,
        blank=True,
        validators=_between(SESSION_IDLE_MINUTES),
    )
    session_max_minutes = models.PositiveSmallIntegerField(
        _("conversation lasts at most (minutes)"),
        null=True,
        blank=True,
        validators=_between(SESSION_MAX_MINUTES),
    )
    sessions_at_once = models.PositiveSmallIntegerField(
        _("conversations at once per user"),
        null=True,
        blank=True,
        validators=_between(SESSIONS_AT_ONCE),
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            # One deployment row (license NULL), one row per license.
            models.UniqueConstraint(
                fields=["license"], nulls_distinct=False, name="one_assistant_per_scope"
            ),
        ]

    def __str__(self) -> str:
        return f"assistant of {self.license.machine_id if self.license else 'the deployment'}"

    def clean(self) -> None:
        """What the console's form and the admin API both check before a row is saved."""
        errors: dict[str, Any] = {}
        if not isinstance(self.greeting, dict) or any(
            lang not in GREETING_LANGUAGES
            or not isinstance(text, str)
            or len(text) > MAX_GREETING_CHARS
            for lang, text in self.greeting.items()
        ):
            errors["greeting"] = _("A greeting is a text of up to 300 characters for es, pt or en.")
        if self.suggestions is not None and (
            not isinstance(self.suggestions, list)
            or len(self.suggestions) > MAX_SUGGESTIONS
            or any(
                not isinstance(q, str) or not q.strip() or len(q) > MAX_SUGGESTION_CHARS
                for q in self.suggestions
            )
        ):
            errors["suggestions"] = _("Up to 4 suggested questions, each of up to 150 characters.")
        if errors:
            raise ValidationError(errors)


class ProviderSettings(models.Model):
    """The deployment's answerer as an owner sets it on the console's Providers page (one
    row). API keys are sealed (providers.sealed) with a key kept outside the database; the
    environment's variables, when set, win over any of it (chat.answerers)."""

    answerer = models.CharField(max_length=12, choices=Answerer.choices, blank=True)
    gemini_model = models.CharField(max_length=100, blank=True)
    gemini_key_sealed = models.TextField(blank=True)
    openai_base_url = models.URLField(max_length=300, blank=True)
    openai_model = models.CharField(max_length=100, blank=True)
    openai_key_sealed = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"answerer {self.answerer or 'default'}"
