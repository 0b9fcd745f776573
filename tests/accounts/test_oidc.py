"""Single sign-on against a real, certified OpenID provider (panva's oidc-provider, run by
node on a loopback port): the code flow with PKCE, state and nonce through the console's
own views; roles from the groups claim; tokens for another audience, with a wrong nonce or
expired refused; an account is its issuer and subject, joined or made only by a verified
address (someone the provider lets type the owner's address does not sign in as the owner);
sessions that end; roles that the provider, not Members, sets."""

from __future__ import annotations

import base64
import hashlib
import secrets
from datetime import timedelta
from io import StringIO
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.exceptions import SuspiciousOperation
from django.core.management import call_command
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from accounts.models import AuditEntry, SingleSignOnIdentity
from accounts.oidc import ConsoleOIDCBackend
from accounts.roles import user_roles
from accounts.services import token_create
from tests.concurrency import twice_at_once
from tests.oidc_provider import oidc_provider, sign_in_at_provider

pytestmark = pytest.mark.django_db
CALLBACK = "http://testserver/oidc/callback/"
OTHER_CALLBACK = "http://127.0.0.1:9/other-app/callback"
CLIENTS = [
    {
        "client_id": "portality",
        "client_secret": "portality-secret-0123456789",
        "redirect_uris": [CALLBACK],
        "token_endpoint_auth_method": "client_secret_post",
    },
    {
        "client_id": "other-app",
        "client_secret": "other-secret-0123456789",
        "redirect_uris": [OTHER_CALLBACK],
        "token_endpoint_auth_method": "client_secret_post",
    },
]
ACCOUNTS = {
    "pia": {"email": "pia@example.org", "email_verified": True, "groups": ["staff", "privacy"]},
    "kim": {"email": "kim@example.org", "email_verified": True, "groups": ["editors"]},
    "max": {"email": "max@example.org", "email_verified": True, "groups": ["marketing"]},
    # Someone the provider lets type any address, and pia made again at the provider.
    "eve": {"email": "pia@example.org", "email_verified": False, "groups": ["editors"]},
    "eve-as-boss": {"email": "boss@example.org", "email_verified": False, "groups": ["editors"]},
    "pia-again": {"email": "pia@example.org", "email_verified": True, "groups": ["privacy"]},
    "boss": {"email": "Boss@Example.org", "email_verified": True, "groups": ["admins"]},
    "ola": {"email": "ola@example.org", "email_verified": "false", "groups": ["editors"]},
}


@pytest.fixture(scope="module")
def provider():
    with oidc_provider(CLIENTS, ACCOUNTS) as running:
        yield running


@pytest.fixture
def sso(provider, settings):
    provider.settings_for(settings, client_id="portality", secret="portality-secret-0123456789")
    settings.OIDC_ROLE_MAP = "privacy=privacy_officer,editors=knowledge_editor,admins=owner"
    settings.OIDC_CREATE_USER = True
    return provider


def sign_in(login: str) -> Client:
    """The whole code flow: the console sends the browser to the provider, the person signs
    in there, the provider sends the browser back to the console's callback."""
    client = Client()
    start = client.get("/oidc/authenticate/")
    assert start.status_code == 302
    query = parse_qs(urlsplit(start["Location"]).query)
    assert query["code_challenge_method"] == ["S256"] and query["nonce"] and query["state"]
    back = sign_in_at_provider(start["Location"], login, stop_at=CALLBACK)
    client.landing = client.get(back.replace("http://testserver", ""))  # type: ignore[attr-defined]
    return client


def test_a_privacy_group_signs_in_as_privacy_officer(sso, settings):
    settings.CONSOLE_REQUIRE_2FA = True  # the identity provider owns the second factor

    client = sign_in("pia")

    assert client.landing.status_code == 302 and client.landing["Location"] == "/"  # type: ignore[attr-defined]
    user = get_user_model().objects.get(email="pia@example.org")
    assert user_roles(user) == ["privacy_officer"] and not user.has_usable_password()
    assert client.get("/memories/").status_code == 200
    assert client.get("/knowledge/").status_code == 403
    assert AuditEntry.objects.filter(action="account.signed_in", actor="pia@example.org").exists()


def test_roles_follow_the_groups_at_every_sign_in(sso, settings):
    sign_in("kim")
    kim = get_user_model().objects.get(email="kim@example.org")
    assert user_roles(kim) == ["knowledge_editor"]

    settings.OIDC_ROLE_MAP = "editors=support"
    sign_in("kim")

    assert user_roles(get_user_model().objects.get(pk=kim.pk)) == ["support"]


def test_groups_with_no_role_or_a_deactivated_account_are_refused(sso):
    refused = sign_in("max")
    assert refused.landing["Location"] == "/accounts/login/?sso=failed"  # type: ignore[attr-defined]
    assert not get_user_model().objects.filter(email="max@example.org").exists()
    page = refused.get("/accounts/login/?sso=failed").content.decode()
    assert "Single sign-on did not let you in" in page

    sign_in("kim")
    get_user_model().objects.filter(email="kim@example.org").update(is_active=False)
    assert sign_in("kim").landing["Location"] == "/accounts/login/?sso=failed"  # type: ignore[attr-defined]


def test_no_accounts_are_created_when_the_deployment_says_so(sso, settings):
    settings.OIDC_CREATE_USER = False

    assert sign_in("pia").landing["Location"] == "/accounts/login/?sso=failed"  # type: ignore[attr-defined]
    assert not get_user_model().objects.exists()


def _tokens(provider, client: dict, nonce: str) -> dict:
    """A real ID token from the provider for ``client``, through its authorization code."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
    redirect = client["redirect_uris"][0]
    query = urlencode(
        {
            "client_id": client["client_id"],
            "response_type": "code",
            "scope": "openid email groups",
            "redirect_uri": redirect,
            "state": "s",
            "nonce": nonce,
            "code_challenge": challenge.decode(),
            "code_challenge_method": "S256",
        }
    )
    back = sign_in_at_provider(f"{provider.issuer}/auth?{query}", "pia", stop_at=redirect)
    code = parse_qs(urlsplit(back).query)["code"][0]
    response = httpx.post(
        f"{provider.issuer}/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect,
            "client_id": client["client_id"],
            "client_secret": client["client_secret"],
            "code_verifier": verifier,
        },
    )
    response.raise_for_status()
    return response.json()


def test_another_audience_a_wrong_nonce_or_an_expired_token_is_refused(sso):
    backend = ConsoleOIDCBackend()
    ours = _tokens(sso, CLIENTS[0], nonce="nonce-1")["id_token"]
    theirs = _tokens(sso, CLIENTS[1], nonce="nonce-1")["id_token"]

    assert backend.verify_token(ours, nonce="nonce-1")["sub"] == "pia"
    with pytest.raises(SuspiciousOperation, match="(?i)audience"):
        backend.verify_token(theirs, nonce="nonce-1")
    with pytest.raises(SuspiciousOperation, match="Nonce"):
        backend.verify_token(ours, nonce="nonce-2")
    with (
        time_machine.travel(timezone.now() + timedelta(hours=2)),
        pytest.raises(SuspiciousOperation, match="(?i)expired"),
    ):
        backend.verify_token(ours, nonce="nonce-1")


def test_sign_in_is_off_until_configured(client, settings):
    settings.OIDC_ENABLED = False
    assert client.get("/oidc/authenticate/").status_code == 404
    assert "single sign-on" not in client.get("/accounts/login/").content.decode()


def refusal_of(client: Client) -> str:
    assert client.landing["Location"] == "/accounts/login/?sso=failed"  # type: ignore[attr-defined]
    page = client.get("/accounts/login/?sso=failed").content.decode()
    return " ".join(page.split())


def test_an_unverified_address_does_not_sign_in_as_the_account_that_has_it(sso):
    boss = get_user_model().objects.create_superuser(
        "boss", email="boss@example.org", password="Correct-Horse-Battery-9"
    )

    refused = sign_in("eve-as-boss")  # before: signed in as boss

    assert "only lets in verified addresses" in refusal_of(refused)
    boss.refresh_from_db()
    assert boss.is_superuser and not boss.sso_identities.exists()
    assert not AuditEntry.objects.filter(action="account.signed_in", actor="boss").exists()

    # The owner themself, verified at the provider: joined at first sign-in, from then on.
    joined = sign_in("boss")
    assert joined.landing["Location"] == "/"  # type: ignore[attr-defined]
    identity = SingleSignOnIdentity.objects.get(user=boss)
    assert (identity.issuer, identity.subject) == (sso.issuer, "boss")
    linked = AuditEntry.objects.get(action="member.sso_linked")
    assert (linked.actor, linked.target) == ("boss", "account:boss")


def test_only_the_subject_joined_to_an_account_signs_in_as_it(sso):
    sign_in("pia")
    pia = get_user_model().objects.get(email="pia@example.org")
    assert SingleSignOnIdentity.objects.get(user=pia).subject == "pia"

    assert "only lets in verified addresses" in refusal_of(sign_in("eve"))
    # Verified, but someone else at the provider: the address changed hands.
    assert "an owner can unlink its single sign-on" in refusal_of(sign_in("pia-again"))
    # The account follows its subject, not its address.
    get_user_model().objects.filter(pk=pia.pk).update(email="pia.old@example.org")
    assert sign_in("pia").landing["Location"] == "/"  # type: ignore[attr-defined]
    assert get_user_model().objects.filter(is_staff=True).count() == 1


def test_an_owner_unlinks_a_member_whose_identity_changed(sso):
    sign_in("pia")
    pia = get_user_model().objects.get(email="pia@example.org")
    owner = Client()
    owner.force_login(get_user_model().objects.create_superuser("owner", password="x"))
    assert "Unlink single sign-on" in owner.get("/account/members/").content.decode()

    officer = Client()
    officer.force_login(pia)
    assert officer.post(f"/account/members/{pia.pk}/single-sign-on").status_code == 403
    done = owner.post(f"/account/members/{pia.pk}/single-sign-on", follow=True)

    assert "single sign-on is unlinked" in done.content.decode()
    assert AuditEntry.objects.filter(action="member.sso_unlinked", actor="owner").exists()
    assert sign_in("pia-again").landing["Location"] == "/"  # type: ignore[attr-defined]
    assert SingleSignOnIdentity.objects.get(user=pia).subject == "pia-again"


def test_an_unverified_address_joins_or_makes_an_account_only_when_the_provider_is_trusted(
    sso, settings
):
    get_user_model().objects.create_user("boss", email="boss@example.org", is_staff=True)
    assert "only lets in verified addresses" in refusal_of(sign_in("eve-as-boss"))
    # A new account would be named by the address, on Members and in the audit trail.
    assert "only lets in verified addresses" in refusal_of(sign_in("ola"))
    assert not get_user_model().objects.filter(email="ola@example.org").exists()

    settings.OIDC_TRUST_EMAILS = True

    assert sign_in("eve-as-boss").landing["Location"] == "/"  # type: ignore[attr-defined]
    assert sign_in("ola").landing["Location"] == "/"  # type: ignore[attr-defined]
    ola = get_user_model().objects.get(email="ola@example.org")
    assert SingleSignOnIdentity.objects.get(user=ola).subject == "ola"


def test_user_info_about_another_subject_is_refused(sso):
    tokens = _tokens(sso, CLIENTS[0], nonce="n")
    backend = ConsoleOIDCBackend()
    payload = backend.verify_token(tokens["id_token"], nonce="n")

    assert backend.get_userinfo(tokens["access_token"], tokens["id_token"], payload)["sub"] == "pia"
    with pytest.raises(SuspiciousOperation, match="another subject"):
        backend.get_userinfo(tokens["access_token"], tokens["id_token"], {**payload, "sub": "kim"})


def test_a_single_sign_on_session_ends_after_its_hours_however_it_is_used(sso, settings):
    settings.OIDC_SESSION_HOURS = 8
    client = sign_in("kim")
    assert client.get("/knowledge/").status_code == 200

    with time_machine.travel(timezone.now() + timedelta(hours=7, minutes=50)):
        assert client.get("/knowledge/").status_code == 200  # used: no longer than 8 h
    with time_machine.travel(timezone.now() + timedelta(hours=8, minutes=1)):
        assert client.get("/knowledge/")["Location"].startswith("/accounts/login/")


def test_a_single_sign_on_member_s_role_is_changed_at_the_provider_not_on_members(sso, settings):
    sign_in("kim")
    kim = get_user_model().objects.get(email="kim@example.org")
    owner = Client()
    owner.force_login(get_user_model().objects.create_superuser("owner", password="x"))
    page = " ".join(owner.get("/account/members/").content.decode().split())
    assert "from their groups at the identity provider" in page
    assert f'id="role-{kim.pk}"' not in page  # no choice the next sign-in would undo

    refused = owner.post(f"/account/members/{kim.pk}/role", {"role": "owner"}, follow=True)

    assert "Change their groups there" in refused.content.decode()
    assert user_roles(get_user_model().objects.get(pk=kim.pk)) == ["knowledge_editor"]
    out = StringIO()
    call_command("grant_role", "kim@example.org", "support", stdout=out)
    assert "set their role again at their next sign-in" in out.getvalue()

    settings.OIDC_ENABLED = False  # the deployment left single sign-on: roles are set here
    owner.post(f"/account/members/{kim.pk}/role", {"role": "owner"})
    assert user_roles(get_user_model().objects.get(pk=kim.pk)) == ["owner"]


def test_an_account_joined_to_single_sign_on_no_longer_signs_in_with_a_password(sso, settings):
    """Someone the provider removed kept the console with the password they had before
    single sign-on joined their account."""
    password = "Correct-Horse-Battery-9"
    get_user_model().objects.create_superuser("boss", email="boss@example.org", password=password)
    form = {"username": "boss", "password": password}
    assert Client().post("/accounts/login/", form).status_code == 302  # before joining
    sign_in("boss")  # joined at their first single sign-on

    refused = Client().post("/accounts/login/", form)

    assert refused.status_code == 200
    assert "This account signs in with single sign-on" in refused.content.decode()
    settings.OIDC_ENABLED = False  # the way back in while the provider is down
    assert Client().post("/accounts/login/", form).status_code == 302


def test_the_provider_s_groups_never_leave_the_console_without_an_owner(sso, settings):
    """They could: the last owner moved to another group at the provider lost the role at
    their next sign-in, and nobody could run the team without a shell."""
    sign_in("boss")  # admins=owner: the only owner
    boss = get_user_model().objects.get(email__iexact="boss@example.org")
    settings.OIDC_ROLE_MAP = "admins=support,editors=owner"

    assert sign_in("boss").landing["Location"] == "/"  # type: ignore[attr-defined]

    assert user_roles(get_user_model().objects.get(pk=boss.pk)) == ["owner"]
    kept = AuditEntry.objects.get(action="member.kept_as_last_owner")
    assert (kept.actor, kept.target) == (boss.username, f"account:{boss.username}")
    assert kept.details == {"roles": ["support"]}  # what the provider's groups said
    sign_in("kim")  # the provider's groups make another owner: boss may now leave
    sign_in("boss")
    assert user_roles(get_user_model().objects.get(pk=boss.pk)) == ["support"]


@pytest.mark.django_db(transaction=True)
def test_two_tabs_back_from_the_provider_at_once_sign_in_to_one_account(sso):
    """The same person's first sign-in in two tabs: both callbacks arrive together. The
    second made the account a second time and answered 500 on its name."""
    tabs, callbacks = [Client(), Client()], []
    for tab in tabs:
        start = tab.get("/oidc/authenticate/")
        back = sign_in_at_provider(start["Location"], "kim", stop_at=CALLBACK)
        callbacks.append(back.replace("http://testserver", ""))

    first, second, waited = twice_at_once(
        get_user_model(), lambda: tabs[0].get(callbacks[0]), lambda: tabs[1].get(callbacks[1])
    )

    assert waited
    for landing in (first, second):
        assert not isinstance(landing, Exception), landing
        assert (landing.status_code, landing["Location"]) == (302, "/")
    kim = get_user_model().objects.get(email="kim@example.org")
    assert SingleSignOnIdentity.objects.get().user == kim
    assert AuditEntry.objects.filter(action="member.joined").count() == 1


def test_a_member_the_provider_no_longer_signs_in_loses_their_api_tokens(sso, settings):
    """The provider never says when someone leaves: a member it removed kept their personal
    and automation tokens for up to a year. They lapse once nobody has signed in as the
    member through the provider for OIDC_TOKEN_SIGN_IN_DAYS, and come back at a sign-in."""
    settings.OIDC_TOKEN_SIGN_IN_DAYS = 30
    sign_in("kim")
    kim = get_user_model().objects.get(email="kim@example.org")
    personal = token_create(user=kim, name="ci", expires_at=timezone.now() + timedelta(days=300))
    automation = Token.objects.create(user=kim).key
    keys = [f"Bearer {personal.key}", f"Token {automation}"]

    def answers() -> list[int]:
        return [
            Client().get("/api/v1/documents", HTTP_AUTHORIZATION=key).status_code for key in keys
        ]

    assert answers() == [200, 200]
    kim.sso_identities.update(signed_in_at=timezone.now() - timedelta(days=29))
    assert answers() == [200, 200]
    kim.sso_identities.update(signed_in_at=timezone.now() - timedelta(days=31))

    assert answers() == [401, 401]
    refused = Client().get("/api/v1/documents", HTTP_AUTHORIZATION=keys[0]).json()
    assert "has not signed in through single sign-on for 30 days" in refused["detail"]
    settings.OIDC_TOKEN_SIGN_IN_DAYS = 0  # the deployment's choice: until they expire
    assert answers() == [200, 200]
    settings.OIDC_TOKEN_SIGN_IN_DAYS = 30
    sign_in("kim")
    assert answers() == [200, 200]
    root = get_user_model().objects.create_superuser("root", password="x")
    local = token_create(user=root, name="ci", expires_at=timezone.now() + timedelta(days=1))
    kim.sso_identities.update(signed_in_at=timezone.now() - timedelta(days=31))
    keys[:] = [f"Bearer {local.key}"]
    assert answers() == [200]  # an account never joined to single sign-on is not concerned


def test_the_api_tokens_page_tells_a_single_sign_on_member_when_their_tokens_lapse(sso, settings):
    settings.OIDC_TOKEN_SIGN_IN_DAYS = 30
    page = " ".join(sign_in("kim").get("/account/tokens/").content.decode().split())

    assert "your tokens work while you have signed in there within the last 30 days" in page
    assert "Last time:" in page
    owner = Client()
    owner.force_login(get_user_model().objects.create_superuser("owner", password="x"))
    assert "single sign-on" not in owner.get("/account/tokens/").content.decode()


def test_members_shows_whose_api_tokens_wait_for_a_single_sign_on(sso, settings):
    settings.OIDC_TOKEN_SIGN_IN_DAYS = 30
    sign_in("kim")
    owner = Client()
    owner.force_login(get_user_model().objects.create_superuser("owner", password="x"))
    notice = "API tokens wait for their next single sign-on"
    assert notice not in owner.get("/account/members/").content.decode()

    SingleSignOnIdentity.objects.update(signed_in_at=timezone.now() - timedelta(days=31))

    assert owner.get("/account/members/").content.decode().count(notice) == 1
