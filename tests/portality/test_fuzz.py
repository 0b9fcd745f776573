"""Schemathesis over the OpenAPI schema, as a license key and as an admin: no input it can
generate makes the API answer 5xx, every answer's status code is documented, and every
answer's body is what the schema says (every list holds a row, so rows are checked too).

Bounded (a few examples per operation) so it stays part of `make test`."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from accounts.roles import role_grant
from licenses.services import license_forge
from tests.factories import as_owner, make_document, make_unanswered_exchange

# transaction=True: the WSGI app closes the database connection after each request.
pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("media_root", "fake_embedder"),
]


@pytest.fixture
def api_schema():
    from portality.wsgi import application

    return schemathesis.openapi.from_wsgi("/api/schema/", application)


@pytest.fixture
def authorizations(django_user_model):
    forged = license_forge(
        user_name="Ana", machine_id="sala-fuzz", allowed_origins=["https://app.example.com"]
    )
    make_document(
        "# Piscina\n\nLa piscina abre a las ocho.", filename="p.md", license=forged.license
    )
    make_unanswered_exchange(forged.license)
    admin = as_owner(
        django_user_model.objects.create_user("fuzz-admin", password="pw", is_staff=True)
    )
    # A role short of owner walks other paths (refusals inside views, its own lists): the
    # fuzzer found a 500 there that the owner's run did not.
    support = django_user_model.objects.create_user("fuzz-support", password="pw", is_staff=True)
    role_grant(username=support.username, role="support")
    return [
        f"Bearer {forged.key}",
        f"Token {Token.objects.create(user=admin).key}",
        f"Token {Token.objects.create(user=support).key}",
    ]


def test_no_server_errors_and_only_documented_statuses(
    api_schema, authorizations, settings, monkeypatch
):
    # The fuzzer's source URLs name random hosts: resolving them would ask the network's
    # DNS. Every name resolves here to a documentation address (192.0.2.1), which the
    # product refuses like any non-public one, before connecting.
    from knowledge import fetching  # noqa: PLC0415

    monkeypatch.setattr(fetching, "resolve", lambda host, port: ["192.0.2.1"])
    # (schemathesis' pytest plugin does not run under pytest 9, so the operations are
    # walked here, each with its own bounded hypothesis run.)
    settings.CHAT_RATE_PER_USER_PER_MINUTE = settings.CHAT_RATE_PER_LICENSE_PER_MINUTE = 10**6
    settings.SEARCH_RATE_PER_USER_PER_MINUTE = settings.SEARCH_RATE_PER_LICENSE_PER_MINUTE = 10**6
    settings.MEMORY_RATE_PER_USER_PER_MINUTE = settings.MEMORY_RATE_PER_LICENSE_PER_MINUTE = 10**6
    settings.WIDGET_RATE_PER_USER_PER_MINUTE = settings.WIDGET_RATE_PER_LICENSE_PER_MINUTE = 10**6
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 9

    for operation in operations:

        @given(case=operation.as_strategy())
        @hypothesis_settings(
            max_examples=12,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case):
            for authorization in authorizations:
                case.headers = {**(case.headers or {}), "Authorization": authorization}
                case.call_and_validate(
                    checks=[
                        not_a_server_error,
                        status_code_conformance,
                        response_schema_conformance,
                    ]
                )

        run()


def test_the_schema_documents_the_error_answers(api_schema):
    raw = api_schema.raw_schema
    for path, operations in raw["paths"].items():
        for method, operation in operations.items():
            assert {"400", "404", "413", "429"} <= set(operation["responses"]), (method, path)
