from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import SimpleTestCase

from portality.checks import refuse_to_start_on_errors
from portality.env import (
    EMBEDDED_DATABASE_URL,
    EMBEDDED_REDIS_URL,
    celery_broker_url,
    env_bool,
    env_int,
    parse_database_url,
)
from tests.ports import silent_server

ROOT = Path(__file__).resolve().parents[2]


def load_settings(module: str = "", code: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """Django set up in a process of its own with ``env``; or ``module`` imported there, or
    ``code`` run there."""
    scrubbed = {
        "DATABASE_URL",
        "REDIS_URL",
        "PORTALITY_EMBEDDED_DATABASE_URL",
        "PORTALITY_EMBEDDED_REDIS_URL",
    }
    full_env = {k: v for k, v in os.environ.items() if k not in scrubbed}
    full_env.update({"DJANGO_SETTINGS_MODULE": "portality.settings", "SECRET_KEY": "x" * 50, **env})
    return subprocess.run(
        [
            sys.executable,
            "-c",
            code or (f"import {module}" if module else "import django; django.setup()"),
        ],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.process  # a Python process of its own
@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEBUG", "maybe"),
        ("DATABASE_URL", "mysql://root@localhost/portality"),
        ("REDIS_URL", "http://localhost:6379"),
        ("KNOWLEDGE_MAX_UPLOAD_MB", "fifty"),
        ("EMBEDDING_PROVIDER", "word2vec"),
        ("SEARCH_VECTOR_WEIGHT", "heavy"),
        ("SEARCH_VECTOR_BACKEND", "faiss"),
        ("DATABASE_REPLICA_URL", "mysql://replica/portality"),
    ],
)
def test_malformed_value_stops_start_naming_the_variable(name, value):
    env = {"DATABASE_URL": "postgresql://u@127.0.0.1:1/db", "REDIS_URL": "redis://127.0.0.1:1/0"}
    result = load_settings(**{**env, name: value})

    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert name in result.stderr.strip().splitlines()[-1]


def test_vertex_without_its_index_is_refused_naming_what_is_missing(settings):
    settings.SEARCH_VECTOR_BACKEND, settings.VERTEX_PROJECT = "vertex", "p"
    settings.VERTEX_INDEX = settings.VERTEX_INDEX_ENDPOINT = ""
    with pytest.raises(SystemCheckError) as refused:
        call_command("check")
    message = str(refused.value)
    assert "SEARCH_VECTOR_BACKEND=vertex needs VERTEX_INDEX, VERTEX_INDEX_ENDPOINT" in message
    assert "VERTEX_PROJECT," not in message


def test_settings_that_do_not_go_together_are_named_all_at_once(settings):
    settings.LLM_PROVIDER, settings.OPENAI_MODEL = "openai", ""
    settings.SEARCH_SENTENCE_WEIGHT = 1.5
    settings.METRICS_ALLOWED_NETWORKS = ["10.0.0.0/8", "the office"]
    settings.VERTEX_HYBRID_ALPHA = "heavy"
    with pytest.raises(SystemCheckError) as refused:
        call_command("check")
    message = str(refused.value)
    for sentence in (
        "LLM_PROVIDER=openai needs OPENAI_BASE_URL and OPENAI_MODEL.",
        "SEARCH_SENTENCE_WEIGHT must be between 0 and 1.",
        "'the office' is not a network",
        "VERTEX_HYBRID_ALPHA must be a number from 0 to 1; got 'heavy'.",
    ):
        assert sentence in message
    with pytest.raises(ImproperlyConfigured, match="SEARCH_SENTENCE_WEIGHT"):
        refuse_to_start_on_errors()  # what the web application and the worker run at start


def test_the_shipped_settings_pass_their_checks():
    refuse_to_start_on_errors()
    call_command("check")


@pytest.mark.process  # a Python process of its own
def test_the_web_application_refuses_to_start_on_a_settings_error():
    env = {"DATABASE_URL": "postgresql://u@127.0.0.1:1/db", "REDIS_URL": "redis://127.0.0.1:1/0"}
    result = load_settings(**env, LLM_PROVIDER="gemini", GEMINI_API_KEY="", module="portality.asgi")

    assert result.returncode != 0
    assert "LLM_PROVIDER=gemini needs GEMINI_API_KEY." in result.stderr.strip().splitlines()[-1]


@pytest.mark.process  # a Python process of its own
@pytest.mark.parametrize(("enabled", "expected"), [(None, "True"), ("1", "True"), ("0", "False")])
def test_single_sign_on_is_switched_off_with_its_settings_kept(enabled, expected):
    """The way back in while the provider is down (docs/team.md): OIDC_ENABLED=0 was
    documented, but not read."""
    result = load_settings(
        code="from django.conf import settings; print(settings.OIDC_ENABLED)",
        DATABASE_URL="postgresql://u@127.0.0.1:1/db",
        REDIS_URL="redis://127.0.0.1:1/0",
        OIDC_CLIENT_ID="portality",
        **({} if enabled is None else {"OIDC_ENABLED": enabled}),
    )

    assert result.stdout.strip() == expected, result.stderr


@pytest.mark.process  # a Python process of its own
def test_missing_secret_key_outside_debug_is_refused():
    result = load_settings(
        SECRET_KEY="",
        DEBUG="0",
        DATABASE_URL="postgresql://u@127.0.0.1:1/db",
        REDIS_URL="redis://127.0.0.1:1/0",
    )

    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr.strip().splitlines()[-1]


class EnvHelperTests(SimpleTestCase):
    def test_bool_accepts_the_usual_spellings(self):
        for raw, expected in [("1", True), ("yes", True), ("off", False), ("", False)]:
            os.environ["PB_TEST_BOOL"] = raw
            assert env_bool("PB_TEST_BOOL") is expected
        del os.environ["PB_TEST_BOOL"]

    def test_int_enforces_its_minimum(self):
        os.environ["PB_TEST_INT"] = "0"
        with self.assertRaisesMessage(ImproperlyConfigured, "PB_TEST_INT must be at least 1"):
            env_int("PB_TEST_INT", 5, minimum=1)
        del os.environ["PB_TEST_INT"]

    def test_database_url_with_a_unix_socket(self):
        config = parse_database_url("DATABASE_URL", "postgresql://postgres@/portality?host=/tmp/pg")
        assert (config.name, config.user, config.host) == ("portality", "postgres", "/tmp/pg")

    def test_database_url_needs_a_database_name(self):
        with self.assertRaisesMessage(ImproperlyConfigured, "no database name"):
            parse_database_url("DATABASE_URL", "postgresql://u@host:5432/")

    def test_celery_spells_unix_sockets_its_own_way(self):
        assert (
            celery_broker_url("unix:///tmp/r.sock?db=2")
            == "redis+socket:///tmp/r.sock?virtual_host=2"
        )
        assert celery_broker_url("redis://h:6379/1") == "redis://h:6379/1"


@pytest.mark.process  # a Python process of its own
def test_importing_the_settings_starts_no_server(tmp_path):
    # No DATABASE_URL / REDIS_URL and no entry point that started the embedded servers:
    # the settings say so and start nothing (the data dir stays empty).
    result = load_settings(PORTALITY_DATA_DIR=str(tmp_path))

    assert result.returncode != 0
    assert "embedded servers were not started" in result.stderr
    assert list(tmp_path.iterdir()) == []


PRODUCT_PACKAGES = (
    "portality", "licenses", "knowledge", "memory", "conversations", "chat", "runtime",
    "observability", "accounts", "providers", "web", "text", "datastores",
)  # fmt: skip


def _variables_read_by_product_code() -> set[str]:
    """Every environment variable a product module reads: through the env readers
    (env_int("X", …)), os.environ.get / os.getenv, or os.environ["X"]; the name written
    there or held by a constant of the module (EMBEDDED_DATABASE_URL = "PORTALITY_…")."""
    import ast

    trees = [
        ast.parse(path.read_text())
        for app in PRODUCT_PACKAGES
        for path in (ROOT / app).rglob("*.py")
    ]
    constants = {  # module-level names, imported where they are read
        target.id: node.value.value
        for tree in trees
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            name = None
            if isinstance(node, ast.Call) and node.args:
                func = ast.unparse(node.func)
                if func.startswith("env_") or func in {"os.environ.get", "os.getenv"}:
                    name = node.args[0]
            elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
                name = node.slice
            value = (
                name.value
                if isinstance(name, ast.Constant)
                else constants.get(name.id)
                if isinstance(name, ast.Name)
                else None
            )
            if isinstance(value, str) and value.isupper() and value != "DJANGO_SETTINGS_MODULE":
                found.add(value)
    return found


def test_every_variable_the_code_reads_is_in_env_example():
    import re

    listed = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M))
    read = _variables_read_by_product_code()

    assert len(read) > 60  # the scan finds the settings' variables
    assert read - listed == set(), "add these to .env.example with a one-line comment"


def test_env_readers_are_the_only_way_product_code_reads_the_environment():
    import ast

    direct = []
    for app in PRODUCT_PACKAGES:
        for path in (ROOT / app).rglob("*.py"):
            if path.name == "env.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and ast.unparse(node.func) in {
                    "os.environ.get",
                    "os.getenv",
                }:
                    direct.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert direct == []


def test_a_database_that_never_answers_fails_the_connection_within_its_timeout(settings):
    """A database behind a network that drops packets, or one that accepts and stays
    silent, held a connection attempt (and a worker's task) for minutes, or for ever."""
    from django.db import OperationalError  # noqa: PLC0415
    from django.db.utils import ConnectionHandler  # noqa: PLC0415

    with silent_server() as port:
        url = f"postgresql://u@127.0.0.1:{port}/x"
        config = parse_database_url("DATABASE_URL", url).as_django()
        started = time.monotonic()

        with pytest.raises(OperationalError, match="timeout"):
            ConnectionHandler({"default": config})["default"].ensure_connection()
    assert time.monotonic() - started < 15  # the default is 5 s
    default = settings.DATABASES["default"]["OPTIONS"]["connect_timeout"]
    assert default == settings.DATABASE_CONNECT_TIMEOUT_SECONDS == 5


def test_the_cache_gives_up_on_a_redis_that_never_answers(settings):
    import redis  # noqa: PLC0415
    from django.core.cache.backends.redis import RedisCache  # noqa: PLC0415

    with silent_server() as port:
        options = settings.CACHES["default"]["OPTIONS"]
        cache = RedisCache(f"redis://127.0.0.1:{port}/0", {"OPTIONS": options})
        started = time.monotonic()

        with pytest.raises(redis.TimeoutError):
            cache.get("anything")
    assert time.monotonic() - started < 10


def test_every_variable_the_documentation_names_is_one_the_code_reads():
    """docs/team.md told operators that OIDC_ENABLED=0 lets passwords in while the identity
    provider is down; nothing read it."""
    import re

    listed = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M))
    table = (ROOT / "docs" / "configuration.md").read_text()
    documented = {
        name
        for first_column in re.findall(r"^\| ([^|]+) \|", table, re.M)
        for name in re.findall(r"`([A-Z][A-Z0-9_]+)`", first_column)
    }
    pages = [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]
    set_in_text = {  # "`OIDC_ENABLED=0` lets passwords in again"
        name for page in pages for name in re.findall(r"`([A-Z][A-Z0-9_]+)=", page.read_text())
    }
    documented |= set_in_text
    read = _variables_read_by_product_code() | {"DJANGO_SETTINGS_MODULE"}

    assert len(documented) > 60 and "OIDC_ENABLED" in set_in_text
    assert (listed | documented) - read == set(), "documented, but no product code reads it"


@pytest.mark.process  # a Python process of its own
@pytest.mark.parametrize(
    "start",
    [
        "import portality.asgi",
        "import portality.wsgi",
        "import portality.celery as c; c._settings_checked(sender=None)",  # worker_init
    ],
)
def test_a_web_worker_and_the_celery_worker_load_the_language_model_as_they_start(start):
    """A new web worker's first search took 716 ms, the next one 31 ms: the language
    model (~0.8 s to load) was loaded by the first question, which waited for it."""
    result = load_settings(
        code=f"{start}\nfrom text.languages import _identifier\n"
        "print(_identifier.cache_info().currsize)",
        # the test session's embedded servers, joined
        **{name: os.environ[name] for name in (EMBEDDED_DATABASE_URL, EMBEDDED_REDIS_URL)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "1"
