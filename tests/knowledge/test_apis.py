from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from knowledge.llm_tools import KNOWLEDGE_SEARCH_TOOL, knowledge_search_tool_run
from knowledge.models import SearchLog
from licenses.principals import principal_for_license
from licenses.services import license_forge, license_revoke
from tests.factories import as_owner, make_document
from web.exceptions import ApplicationError

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root", "fake_embedder")]


@pytest.fixture
def world():
    alpha = license_forge(user_name="Ana", machine_id="alpha")
    beta = license_forge(user_name="Bruno", machine_id="beta")
    make_document("# Piscina\n\nLa piscina abre a las ocho.", filename="global.md")
    make_document(
        "# Alfa\n\nSecreto de alfa: la clave del portón es azul.",
        filename="alfa.md",
        license=alpha.license,
    )
    make_document(
        "# Beta\n\nSecreto de beta: la clave del portón es verde.",
        filename="beta.md",
        license=beta.license,
    )
    return alpha, beta


def client_with_key(key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def post_search(client, **body):
    return client.post("/api/v1/search", body, format="json")


def test_a_license_key_searches_its_own_scope(world):
    alpha, _ = world
    response = post_search(client_with_key(alpha.key), query="clave del portón", min_score=-1)

    assert response.status_code == 200
    assert {r["filename"] for r in response.json()["results"]} == {"alfa.md", "global.md"}
    assert response.json()["scope"] == "alpha"


def test_a_license_cannot_widen_its_scope_through_parameters(world):
    alpha, _ = world
    response = post_search(
        client_with_key(alpha.key), query="clave del portón", license="beta", min_score=-1
    )

    assert response.status_code == 200
    assert response.json()["scope"] == "alpha"
    assert "beta.md" not in {r["filename"] for r in response.json()["results"]}


@pytest.mark.parametrize("revoke", ["revoked", "expired"])
def test_revoked_or_expired_licenses_get_401_with_a_reason(world, revoke):
    alpha, _ = world
    if revoke == "revoked":
        license_revoke(license=alpha.license)
    else:
        alpha.license.expires_at = timezone.now() - timedelta(days=1)
        alpha.license.save()

    response = post_search(client_with_key(alpha.key), query="piscina")

    assert response.status_code == 401
    assert revoke in response.json()["detail"]


def test_unknown_keys_and_anonymous_callers_are_refused(world):
    assert post_search(client_with_key("pbk_not-a-real-key-at-all"), query="x").status_code == 401
    assert post_search(APIClient(), query="x").status_code in (401, 403)


def test_an_admin_token_searches_global_or_as_a_named_license(world, django_user_model):
    admin = as_owner(django_user_model.objects.create_user("root", password="x", is_staff=True))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=admin).key}")

    as_global = post_search(client, query="clave del portón", min_score=-1).json()
    as_beta = post_search(client, query="clave del portón", license="beta", min_score=-1).json()

    assert as_global["scope"] == "global" and {r["filename"] for r in as_global["results"]} <= {
        "global.md"
    }
    assert as_beta["scope"] == "beta" and "beta.md" in {r["filename"] for r in as_beta["results"]}
    assert post_search(client, query="x", license="nope").status_code == 404


def test_results_explain_themselves(world):
    alpha, _ = world
    result = post_search(client_with_key(alpha.key), query="piscina", min_score=-1).json()[
        "results"
    ][0]

    assert set(result) >= {
        "vector_score",
        "keyword_score",
        "vector_rank",
        "keyword_rank",
        "fused_score",
        "rerank_score",
        "page_start",
        "heading",
        "content",
        "filename",
        "scope",
    }


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"query": ""},
        {"query": "x" * 10_000},
        {"query": "x", "strategy": "magic"},
        {"query": "x", "top_k": 0},
    ],
)
def test_bad_requests_get_a_clear_400(world, body):
    alpha, _ = world
    response = client_with_key(alpha.key).post("/api/v1/search", body, format="json")

    assert response.status_code == 400
    assert response.json()["detail"]


def test_hostile_query_is_just_a_query(world):
    alpha, _ = world
    response = post_search(client_with_key(alpha.key), query="'); drop table knowledge_chunk; --")

    assert response.status_code == 200
    assert SearchLog.objects.count() == 1


def test_a_misspelt_query_says_what_it_searched_for_within_its_own_scope(world):
    alpha, beta = world
    response = post_search(client_with_key(alpha.key), query="clave del portn", min_score=-1)

    assert response.json()["searched_as"] == "clave del portón"
    assert {r["filename"] for r in response.json()["results"]} == {"alfa.md", "global.md"}
    typed = post_search(client_with_key(beta.key), query="clave del portón", min_score=-1)
    assert typed.json()["searched_as"] == ""
    out = StringIO()
    call_command("search", "clave del portn", "--license", "beta", "--min-score", "-1", stdout=out)
    assert "searched for 'clave del portón'" in out.getvalue()


def test_search_is_in_the_openapi_schema(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "/api/v1/search" in schema


def test_search_command_json(world):
    out = StringIO()
    call_command(
        "search", "clave del portón", "--license", "beta", "--min-score", "-1", "--json", stdout=out
    )
    payload = json.loads(out.getvalue())

    assert payload["scope"] == "beta"
    assert {r["filename"] for r in payload["results"]} == {"beta.md", "global.md"}
    assert all("sentence_score" in r for r in payload["results"])
    text = StringIO()
    call_command(
        "search", "clave del portón", "--license", "beta", "--min-score", "-1", stdout=text
    )
    assert "fused" in text.getvalue() and "best sentence" in text.getvalue()
    with pytest.raises(CommandError, match="No license"):
        call_command("search", "x", "--license", "nope")


def test_memory_search_tool_runs_in_the_principals_scope(world):
    alpha, _ = world
    assert KNOWLEDGE_SEARCH_TOOL["name"] == "memory_search"
    assert KNOWLEDGE_SEARCH_TOOL["parameters"]["required"] == ["query"]

    principal = principal_for_license(alpha.license)
    # Words of both secrets, naming beta's scope: only alpha's own (and global) comes back.
    found, logged = knowledge_search_tool_run(
        principal=principal, arguments={"query": "clave del portón", "license": "beta"}
    )

    assert "alfa.md" in {r.filename for r in found}
    assert all(r.filename != "beta.md" for r in found)
    assert SearchLog.objects.get(pk=logged).scope_label == alpha.license.machine_id  # logged
    with pytest.raises(ApplicationError, match="Write something"):
        knowledge_search_tool_run(principal=principal, arguments={})
