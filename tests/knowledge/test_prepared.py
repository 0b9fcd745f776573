from __future__ import annotations

import pytest
from django.db import connection

from knowledge.search.prepared import fetch, fetch_prepared, prepared_form

SQL = "SELECT %(a)s::int + %(b)s::int AS total, %(a)s::int AS a, '100%%' AS share"


def test_placeholders_become_numbered_parameters_once_each():
    name, prepare, names = prepared_form(SQL)

    assert names == ("a", "b")
    assert (
        prepare
        == f"PREPARE {name} AS SELECT $1::int + $2::int AS total, $1::int AS a, '100%' AS share"
    )
    assert prepared_form(SQL + " ")[0] != name  # another text, another statement


@pytest.mark.django_db
def test_prepared_once_per_session_and_same_rows_as_a_one_off_statement():
    rows = [fetch_prepared(SQL, {"a": a, "b": 2}) for a in range(3)]

    assert rows == [fetch(SQL, {"a": a, "b": 2}) for a in range(3)]
    assert rows[2] == [{"total": 4, "a": 2, "share": "100%"}]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE name = %s", [prepared_form(SQL)[0]]
        )
        assert cursor.fetchone()[0] == 1


@pytest.mark.django_db(transaction=True)
def test_a_new_database_session_prepares_again():
    assert fetch_prepared(SQL, {"a": 1, "b": 1})[0]["total"] == 2
    connection.close()

    assert fetch_prepared(SQL, {"a": 2, "b": 2})[0]["total"] == 4


@pytest.mark.django_db(transaction=True)
def test_a_statement_the_session_lost_is_prepared_again():
    assert fetch_prepared(SQL, {"a": 1, "b": 1})[0]["total"] == 2
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")  # as a connection pooler resetting the session does

    assert fetch_prepared(SQL, {"a": 2, "b": 2})[0]["total"] == 4


@pytest.mark.django_db(transaction=True)
def test_inside_a_transaction_a_lost_statement_fails_that_call_only():
    from django.db import DatabaseError, transaction

    fetch_prepared(SQL, {"a": 1, "b": 1})
    with connection.cursor() as cursor:
        cursor.execute("DEALLOCATE ALL")

    with pytest.raises(DatabaseError, match="does not exist"), transaction.atomic():
        fetch_prepared(SQL, {"a": 2, "b": 2})
    with transaction.atomic():
        assert fetch_prepared(SQL, {"a": 3, "b": 3})[0]["total"] == 6
