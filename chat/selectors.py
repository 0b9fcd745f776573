"""What the assistant is for a license: its own settings over the deployment's over what
ships (settings.ASSISTANT_DEFAULTS)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Q

from chat.answerers import answerers_available
from chat.llm import ANSWER_WORDS
from chat.models import AnswerLength, Assistant
from chat.session import (
    ABSOLUTE_SECONDS,
    IDLE_TTL_SECONDS,
    MAX_SESSIONS_PER_USER,
    SessionLimits,
)
from chat.texts import GREETING, HELLO
from licenses.models import License

logger = logging.getLogger(__name__)

# Settings a license row leaves empty take the deployment's; these are the text ones.
TEXT_FIELDS = (
    "name",
    "instructions",
    "answer_length",
    "answerer",
    "widget_title",
    "widget_color",
    "widget_position",
    "launcher_icon",
)
# ... and these the numbers (None: the deployment's).
NUMBER_FIELDS = ("session_idle_minutes", "session_max_minutes", "sessions_at_once")
_NO_NAME = re.compile(r",?\s*\{user_name\}")


@dataclass(frozen=True)
class AssistantProfile:
    name: str
    instructions: str = ""
    greeting: dict[str, str] = field(default_factory=dict)  # by language, custom ones only
    suggestions: list[str] = field(default_factory=list)
    answer_length: str = AnswerLength.NORMAL
    answerer: str = ""  # "" = the deployment's LLM_PROVIDER
    widget_title: str = ""
    widget_color: str = "#3355cc"
    widget_position: str = "right"
    launcher_icon: str = "chat"
    session_idle_minutes: int = IDLE_TTL_SECONDS // 60
    session_max_minutes: int = ABSOLUTE_SECONDS // 60
    sessions_at_once: int = MAX_SESSIONS_PER_USER

    @property
    def session_limits(self) -> SessionLimits:
        return SessionLimits(
            idle_seconds=self.session_idle_minutes * 60,
            absolute_seconds=self.session_max_minutes * 60,
            at_once=self.sessions_at_once,
        )

    @property
    def answer_words(self) -> int:
        return ANSWER_WORDS.get(self.answer_length, ANSWER_WORDS["normal"])

    @property
    def title(self) -> str:
        return self.widget_title or self.name

    def greeting_for(self, language: str, user_name: str) -> str:
        """The first thing the widget says, in ``language``, to ``user_name`` ("" when the
        license names nobody: "{user_name}" and its comma go)."""
        custom = self.greeting.get(language)
        if custom:
            return (
                custom.replace("{user_name}", user_name) if user_name else _NO_NAME.sub("", custom)
            )
        if user_name:
            return GREETING[language].format(user_name=user_name, name=self.name)
        return HELLO[language].format(name=self.name)


def assistant_rows(license: License | None) -> tuple[Assistant | None, Assistant | None]:
    """The deployment's row and the license's (either may not exist yet)."""
    rows = Assistant.objects.filter(Q(license__isnull=True) | Q(license=license))
    deployment = own = None
    for row in rows:
        if row.license_id is None:
            deployment = row
        else:
            own = row
    return deployment, own


def assistant_profile(license: License | None) -> AssistantProfile:
    deployment, own = assistant_rows(license)
    values: dict[str, Any] = dict(settings.ASSISTANT_DEFAULTS)
    greeting: dict[str, str] = {}
    suggestions: list[str] = []
    for row in (deployment, own):
        if row is None:
            continue
        values.update({name: getattr(row, name) for name in TEXT_FIELDS if getattr(row, name)})
        values.update(
            {name: getattr(row, name) for name in NUMBER_FIELDS if getattr(row, name) is not None}
        )
        greeting.update({lang: text for lang, text in (row.greeting or {}).items() if text})
        if row.suggestions is not None:
            suggestions = list(row.suggestions)
    values["answerer"] = _available_answerer(str(values.get("answerer", "")))
    return AssistantProfile(greeting=greeting, suggestions=suggestions, **values)


def _available_answerer(answerer: str) -> str:
    if answerer and answerer not in answerers_available():
        # Chosen when its key was set, since removed: the deployment's own answerer, said.
        logger.warning("assistant answerer %s is not configured; using the deployment's", answerer)
        return ""
    return answerer


def assistant_shipped() -> AssistantProfile:
    """The assistant as shipped (settings.ASSISTANT_DEFAULTS), under any console setting."""
    shipped: dict[str, Any] = dict(settings.ASSISTANT_DEFAULTS)
    return AssistantProfile(**shipped)


def assistants_of_licenses() -> list[Assistant]:
    """The licenses whose assistant differs from the deployment's, by machine_id."""
    return list(
        Assistant.objects.filter(license__isnull=False)
        .select_related("license")
        .order_by("license__machine_id")
    )
