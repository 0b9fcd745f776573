"""Search on a real streaming standby (datastores/replicas.py): it sees an upload within the
searchable promise, and a replica lagging or down hands its reads to the primary."""

from __future__ import annotations

import logging
import time
import types
from pathlib import Path

import pytest
from django.db import connection, connections

from datastores.replicas import replica_state, replica_states_forget
from knowledge.models import SearchLog
from knowledge.search import SearchOptions
from knowledge.search import search as engine_search
from knowledge.searching import knowledge_search
from licenses.principals import principal_for_license
from observability.metrics import scrape
from tests.factories import make_document, make_license
from tests.standby import Standby

pytestmark = [
    pytest.mark.process,  # a streaming standby: pg_basebackup and a second server
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fake_embedder"),
]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def standby(settings, django_db_blocker):
    """A standby of the test database, known to Django as ``replica1``."""
    with Standby(connection.settings_dict["HOST"], ROOT / "var" / "test" / "standby") as node:
        connections.settings["replica1"] = {
            **connection.settings_dict,
            "HOST": str(node.directory),
            "OPTIONS": {"connect_timeout": 2},
        }
        replica = connections["replica1"]
        # Django's test case refuses connections to aliases a test did not declare (so that
        # it can flush them); a read-only standby cannot be flushed, and holds nothing but
        # the primary's rows: its connection is let through (pytest-django keeps the real
        # method while it blocks and patches the class's).
        real = django_db_blocker._real_ensure_connection
        replica.ensure_connection = types.MethodType(real, replica)
        settings.DATABASE_REPLICAS = ["replica1"]
        replica_states_forget()
        try:
            yield node
        finally:
            connections["replica1"].close()
            del connections["replica1"]
            del connections.settings["replica1"]
            replica_states_forget()


def search(principal, query):
    return engine_search(principal=principal, query=query, options=SearchOptions(min_score=-1))


def found_on(principal, query, filename, timeout=10.0):
    """(seconds until a search finds ``filename``, the database that served it)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        response = search(principal, query)
        if filename in [r.filename for r in response.results]:
            return time.monotonic() - started, response.served_by
        time.sleep(0.01)
    raise AssertionError(f"{filename} not found within {timeout} s")


def back_on_the_replica(principal, query, filename, timeout=30.0):
    deadline = time.monotonic() + timeout
    while found_on(principal, query, filename)[1] != "replica1":
        assert time.monotonic() < deadline, "the replica never served again"
        time.sleep(0.2)


def test_a_search_served_by_the_replica_sees_an_upload_within_two_seconds(standby):
    alpha = make_license(machine_id="alpha")
    make_document("La piscina abre a las ocho.", filename="piscina.md", license=alpha)
    seconds, served_by = found_on(principal_for_license(alpha), "piscina", "piscina.md")
    assert served_by == "replica1" and seconds <= 2.0
    assert replica_state("replica1").lag_seconds is not None

    # The search log is a write: it goes to the primary while the search read the replica.
    knowledge_search(principal=principal_for_license(alpha), query="piscina")
    assert SearchLog.objects.using("default").filter(query="piscina").exists()
    assert b'portality_replica_serving{replica="replica1"} 1.0' in scrape()[0]


def test_a_replica_lagging_hands_its_reads_to_the_primary(standby, settings, caplog):
    settings.DATABASE_REPLICA_MAX_LAG_SECONDS = 0.5
    alpha = make_license(machine_id="alpha")
    principal = principal_for_license(alpha)
    make_document("La piscina abre a las ocho.", filename="piscina.md", license=alpha)
    found_on(principal, "piscina", "piscina.md")
    standby.execute("SELECT pg_wal_replay_pause()")
    make_document("El gimnasio requiere reserva.", filename="gimnasio.md", license=alpha)
    time.sleep(1.1)  # past the lag allowed, and past the last check
    with caplog.at_level(logging.WARNING, logger="datastores.replicas"):
        seconds, served_by = found_on(principal, "gimnasio", "gimnasio.md")
    assert served_by == "default" and seconds < 0.5
    assert "read replica replica1 lags" in caplog.text
    assert b'portality_replica_serving{replica="replica1"} 0.0' in scrape()[0]

    standby.execute("SELECT pg_wal_replay_resume()")
    back_on_the_replica(principal, "gimnasio", "gimnasio.md")


def test_a_replica_down_hands_its_reads_to_the_primary(standby, caplog):
    alpha = make_license(machine_id="alpha")
    principal = principal_for_license(alpha)
    make_document("La piscina abre a las ocho.", filename="piscina.md", license=alpha)
    assert found_on(principal, "piscina", "piscina.md")[1] == "replica1"
    standby.stop(mode="immediate")
    time.sleep(1.1)
    with caplog.at_level(logging.WARNING, logger="datastores.replicas"):
        assert found_on(principal, "piscina", "piscina.md")[1] == "default"
    assert "read replica replica1 is down" in caplog.text

    standby.start()  # replays what it missed, streams again, and serves once caught up
    back_on_the_replica(principal, "piscina", "piscina.md")
