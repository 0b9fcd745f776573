"""The same write twice at once — a double click on Save, two tabs, two messages sent
together — made repeatable (tests/concurrency.py): the first is held inside its
transaction just after it writes, the second runs. Each of these failed before its fix:
a first save of a scope's settings answered 500 on the unique index, and the writes
nothing indexes (the one provider row, a user's memories, an authenticator being set up)
were written twice."""

from __future__ import annotations

import pytest
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.two_factor import pending_device
from chat.answerers import ProviderChoice, provider_settings_save
from chat.models import Assistant, ProviderSettings
from chat.services import assistant_update
from knowledge.models import RedactionPolicy
from knowledge.policies import redaction_policy_set
from licenses.services import license_forge
from memory.models import Memory, MemoryConsent, MemoryEvent
from memory.services import (
    MemoryRejected,
    memory_confirm,
    memory_consent_set,
    memory_edit,
    memory_forget,
    memory_set_active,
)
from tests.concurrency import twice_at_once
from tests.memory.support import consent, propose
from web.exceptions import ApplicationError

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def remembering(media_root, fake_embedder):
    """A license whose end user, ana, agreed to be remembered."""
    license = license_forge(user_name="Ana", machine_id="sala-m").license
    consent(license)
    return license


def proposed_at_once(license, first: str, second: str):
    return twice_at_once(Memory, lambda: propose(license, first), lambda: propose(license, second))


@pytest.mark.parametrize("scope", ["global", "license"])
def test_a_scope_s_first_redaction_policy_saved_twice_at_once_keeps_the_second(scope):
    license = license_forge(user_name="Ana", machine_id="sala-r").license
    target = license if scope == "license" else None

    first, second, waited = twice_at_once(
        RedactionPolicy,
        lambda: redaction_policy_set(
            license=target, kinds=["EMAIL"], keep_contacts=False, allow=[]
        ),
        lambda: redaction_policy_set(license=target, kinds=["PHONE"], keep_contacts=True, allow=[]),
    )

    assert isinstance(first, RedactionPolicy) and isinstance(second, RedactionPolicy), second
    assert waited  # the second waited for the first instead of writing beside it
    policy = RedactionPolicy.objects.get(license=target)
    assert (policy.kinds, policy.keep_contacts) == (["PHONE"], True)


def test_a_license_s_first_assistant_settings_saved_twice_at_once_keep_both_changes():
    license = license_forge(user_name="Ana", machine_id="sala-a").license

    first, second, waited = twice_at_once(
        Assistant,
        lambda: assistant_update(license=license, values={"name": "Lumen"}),
        lambda: assistant_update(license=license, values={"answer_length": "short"}),
    )

    assert isinstance(first, Assistant) and isinstance(second, Assistant), second
    assert waited
    row = Assistant.objects.get(license=license)
    assert (row.name, row.answer_length) == ("Lumen", "short")


def test_the_first_provider_settings_saved_twice_at_once_are_one_row():
    first, second, _waited = twice_at_once(
        ProviderSettings,
        lambda: provider_settings_save(ProviderChoice(answerer="extractive")),
        lambda: provider_settings_save(ProviderChoice(answerer="gemini", gemini_model="m-2")),
    )

    assert isinstance(second, ProviderSettings), second
    row = ProviderSettings.objects.get()  # one row: the one every reader takes
    assert (row.answerer, row.gemini_model) == ("gemini", "m-2")


def test_one_memory_said_in_two_messages_at_once_is_kept_once(remembering):
    said = "Prefiere reservas por la mañana"

    first, second, waited = proposed_at_once(remembering, said, said)

    assert isinstance(first, Memory) and isinstance(second, Memory), second
    assert waited and first.pk == second.pk
    assert Memory.objects.filter(license=remembering, user_ref="ana").count() == 1


def test_a_number_sent_in_two_halves_at_once_is_not_kept_whole(remembering):
    first, second, waited = proposed_at_once(
        remembering, "Mi extensión empieza por 612 34", "y sigue con 56 78"
    )

    assert waited and isinstance(first, Memory)
    assert isinstance(second, MemoryRejected) and second.code == "personal_data"
    assert Memory.objects.count() == 1


@pytest.mark.parametrize("first", ["memory", "withdrawal"])
def test_a_memory_said_as_the_user_stops_being_remembered_is_not_kept(first, remembering):
    """Either way round, the memory outlived the "stop remembering" that came with it."""
    license = remembering
    remember = lambda: propose(license, "Prefiere reservas por la mañana")  # noqa: E731
    withdraw = lambda: memory_consent_set(  # noqa: E731
        license=license, user_ref="ana", given=False, actor="user:ana"
    )

    if first == "memory":
        _memory, withdrawn, waited = twice_at_once(Memory, remember, withdraw)
    else:
        withdrawn, refused, waited = twice_at_once(MemoryConsent, withdraw, remember)
        assert isinstance(refused, MemoryRejected) and refused.code == "no_consent"

    assert waited and isinstance(withdrawn, MemoryConsent) and not withdrawn.given
    assert not Memory.objects.filter(license=license).exists()


@pytest.mark.parametrize("change", ["edit", "confirm", "deactivate"])
def test_a_memory_forgotten_as_it_is_changed_elsewhere_stays_forgotten(change, remembering):
    """The edit's save found no row and inserted one: the forgotten memory came back."""
    memory = propose(remembering, "Prefiere reservas por la mañana")
    Memory.objects.filter(pk=memory.pk).update(pending=change == "confirm")
    changes = {
        "edit": lambda: memory_edit(memory=memory, description="Prefiere la tarde", actor="u"),
        "confirm": lambda: memory_confirm(memory=memory, actor="user:ana"),
        "deactivate": lambda: memory_set_active(memory=memory, active=False, actor="admin:kim"),
    }

    forgotten, changed, waited = twice_at_once(
        MemoryEvent, lambda: memory_forget(memory=memory, actor="user:ana"), changes[change]
    )

    assert waited and forgotten is None
    assert isinstance(changed, ApplicationError) and changed.status == 404, changed
    assert not Memory.objects.exists()


def test_the_two_factor_page_open_in_two_tabs_at_once_shows_one_key(django_user_model):
    user = django_user_model.objects.create_user("ana", password="x-long-enough-9")

    first, second, waited = twice_at_once(
        TOTPDevice, lambda: pending_device(user), lambda: pending_device(user)
    )

    assert waited and first.pk == second.pk
    assert TOTPDevice.objects.filter(user=user).count() == 1
