"""Which model answers, with which key: the environment's variables when set, else what an
owner saved on the console's Providers page, else the shipped defaults. Keys are stored
sealed (providers.sealed) and never shown again; "test connection" asks the provider."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_noop

from accounts.audit import audit_record
from chat.extractive import ExtractiveLLM
from chat.llm import LLM, GeminiLLM, OpenAICompatibleLLM
from chat.models import ProviderSettings
from datastores.locks import transaction_lock
from providers import Gemini, OpenAICompatible
from providers.sealed import seal, unseal
from web.exceptions import ApplicationError

PROVIDERS = ("extractive", "gemini", "openai")


@dataclass(frozen=True)
class AnswererConfig:
    provider: str
    gemini_key: str
    gemini_model: str
    openai_url: str
    openai_model: str
    openai_key: str
    from_env: frozenset[str] = field(default_factory=frozenset)
    unreadable_keys: tuple[str, ...] = ()  # sealed with a key this server no longer has

    def available(self) -> set[str]:
        found = {"extractive"}
        if self.gemini_key:
            found.add("gemini")
        if self.openai_url and self.openai_model:
            found.add("openai")
        return found


def saved_settings() -> ProviderSettings:
    """What the Providers page saved (an empty row when nothing yet)."""
    return ProviderSettings.objects.first() or ProviderSettings()


def answerer_config() -> AnswererConfig:
    row = saved_settings()
    from_env = settings.PROVIDER_SETTINGS_FROM_ENV
    unreadable: list[str] = []

    def pick(env_name: str, saved: str) -> str:
        configured = str(getattr(settings, env_name))
        return configured if env_name in from_env or not saved else saved

    def key(env_name: str, sealed: str) -> str:
        opened = unseal(sealed)
        if opened is None:
            unreadable.append(env_name)
        return pick(env_name, opened or "")

    gemini_key = key("GEMINI_API_KEY", row.gemini_key_sealed)
    chosen = pick("LLM_PROVIDER", row.answerer)
    return AnswererConfig(
        provider=chosen if chosen in PROVIDERS else "extractive",
        gemini_key=gemini_key,
        gemini_model=pick("GEMINI_CHAT_MODEL", row.gemini_model),
        openai_url=pick("OPENAI_BASE_URL", row.openai_base_url).rstrip("/"),
        openai_model=pick("OPENAI_MODEL", row.openai_model),
        openai_key=key("OPENAI_API_KEY", row.openai_key_sealed),
        from_env=from_env,
        unreadable_keys=tuple(unreadable),
    )


@dataclass(frozen=True)
class ProviderChoice:
    """What the Providers page submits. A key left empty keeps the saved one; ``forget_…``
    removes it."""

    answerer: str
    gemini_model: str = ""
    gemini_key: str = ""
    forget_gemini_key: bool = False
    openai_base_url: str = ""
    openai_model: str = ""
    openai_key: str = ""
    forget_openai_key: bool = False


def provider_settings_save(choice: ProviderChoice) -> ProviderSettings:
    if choice.answerer and choice.answerer not in PROVIDERS:
        raise ApplicationError(
            gettext_noop("Unknown answerer %(value)s."), params={"value": choice.answerer}
        )
    with transaction.atomic():
        transaction_lock("provider settings")  # one row, even saved twice at its first time
        row = ProviderSettings.objects.first() or ProviderSettings()
        before = _visible(row)
        row.answerer = choice.answerer
        row.gemini_model = choice.gemini_model.strip()
        row.openai_base_url = choice.openai_base_url.strip()
        row.openai_model = choice.openai_model.strip()
        keys = {
            "gemini_key": _new_sealed(
                row.gemini_key_sealed, choice.gemini_key, choice.forget_gemini_key
            ),
            "openai_key": _new_sealed(
                row.openai_key_sealed, choice.openai_key, choice.forget_openai_key
            ),
        }
        changed_keys = {name: what for name, (_, what) in keys.items() if what}
        row.gemini_key_sealed, row.openai_key_sealed = keys["gemini_key"][0], keys["openai_key"][0]
        row.full_clean()
        row.save()
        after = _visible(row)
        fields = sorted(k for k in after if after[k] != before[k])
        if fields or changed_keys:  # the same settings saved again are not a change
            audit_record(
                "providers.changed",
                details={"fields": fields, **changed_keys},  # a key "changed" or "removed"
            )
    return row


def _visible(row: ProviderSettings) -> dict[str, str]:
    return {
        "answerer": row.answerer,
        "gemini_model": row.gemini_model,
        "openai_base_url": row.openai_base_url,
        "openai_model": row.openai_model,
    }


def _new_sealed(current: str, typed: str, forget: bool) -> tuple[str, str]:
    """(what to store, what happened: "changed", "removed" or "")."""
    if forget:
        return "", "removed" if current else ""
    if typed.strip():
        return seal(typed.strip()), "changed"
    return current, ""


def connection_test(choice: ProviderChoice) -> str:
    """Ask the answerer ``choice`` names (else the one in use) for the smallest answer,
    with what the form holds over what is saved, without saving; the answerer asked. A
    ProviderError in the reader's language when it refuses or cannot be reached."""
    saved = answerer_config()
    provider = choice.answerer or saved.provider
    config = dataclasses.replace(
        saved,
        gemini_key=choice.gemini_key.strip() or saved.gemini_key,
        gemini_model=choice.gemini_model.strip() or saved.gemini_model,
        openai_url=(choice.openai_base_url.strip() or saved.openai_url).rstrip("/"),
        openai_model=choice.openai_model.strip() or saved.openai_model,
        openai_key=choice.openai_key.strip() or saved.openai_key,
    )
    if provider == "gemini":
        if not config.gemini_key:
            raise ApplicationError(gettext_noop("Enter a Gemini API key first."))
        client = Gemini(
            config.gemini_key, settings.GEMINI_BASE_URL, settings.PROVIDER_TIMEOUT_SECONDS
        )
        client.generate(
            model=config.gemini_model,
            contents="ping",
            config=client.types.GenerateContentConfig(max_output_tokens=1),
        )
        return provider
    if provider == "openai":
        if not (config.openai_url and config.openai_model):
            raise ApplicationError(
                gettext_noop("Enter the model server's address and model first.")
            )
        server = OpenAICompatible(base_url=config.openai_url, api_key=config.openai_key)
        body = {
            "model": config.openai_model,
            "stream": True,
            "max_tokens": 1,
            "messages": [{"role": "user", "content": "ping"}],
        }
        next(iter(server.stream_events(body)), None)
        return provider
    raise ApplicationError(gettext_noop("The offline answerer needs no connection."))


def answerers_available() -> set[str]:
    """The answerers this deployment can use: offline always, a model when configured."""
    return answerer_config().available()


def get_llm(provider: str = "") -> LLM:
    """The answerer ``provider`` names (an assistant's choice), or the deployment's, with
    the key and model the environment or the Providers page gives."""
    config = answerer_config()
    provider = provider or config.provider
    if provider == "gemini":
        return GeminiLLM(api_key=config.gemini_key, model=config.gemini_model)
    if provider == "openai":
        return OpenAICompatibleLLM(
            base_url=config.openai_url, api_key=config.openai_key, model=config.openai_model
        )
    return ExtractiveLLM()
