"""Typed readers for environment variables.

Every deployment difference comes from the environment. A malformed value stops the
process at start with a message that names the variable, instead of failing later.
``<NAME>_FILE`` is honoured for secrets (Docker and Kubernetes secrets are files).
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


# Where a process attached to the embedded servers tells its settings (and the children it
# starts) their addresses (runtime.embedded.start_unless_external): internal, never set by hand.
EMBEDDED_DATABASE_URL = "PORTALITY_EMBEDDED_DATABASE_URL"
EMBEDDED_REDIS_URL = "PORTALITY_EMBEDDED_REDIS_URL"


def data_dir() -> Path:
    """``PORTALITY_DATA_DIR``, or ``var/`` in the checkout: the embedded servers' data,
    uploads, the generated key."""
    base = Path(__file__).resolve().parent.parent
    return Path(env_str("PORTALITY_DATA_DIR") or base / "var").resolve()


def env_secret(name: str, default: str = "") -> str:
    file_path = os.environ.get(f"{name}_FILE")
    if file_path:
        try:
            return Path(file_path).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE: cannot read {file_path!r}: {exc}") from exc
    return env_str(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false, yes/no), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, got {value}")
    return value


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return float(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from None


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = (env_str(name) or default).lower()  # empty (as compose passes it) = unset
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}; got {value!r}")
    return value


@dataclass(frozen=True)
class DatabaseConfig:
    name: str
    user: str
    password: str
    host: str
    port: str

    def as_django(self, *, pool_size: int = 0, connect_timeout: int = 5) -> dict[str, object]:
        """Django's settings for this database. ``pool_size``: keep up to that many
        connections in a pool (psycopg_pool) instead of one per thread kept for a minute —
        for the ASGI server, whose requests each run in a thread of their own.
        ``connect_timeout``: a connection not made by then fails (libpq waits for the
        kernel's TCP timeout otherwise, about two minutes when a network drops packets)."""
        config: dict[str, object] = {
            # Django's PostgreSQL backend, its queries counted and timed (django-prometheus).
            "ENGINE": "django_prometheus.db.backends.postgresql",
            "NAME": self.name,
            "USER": self.user,
            "PASSWORD": self.password,
            "HOST": self.host,
            "PORT": self.port,
            "CONN_MAX_AGE": 60,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": {"connect_timeout": connect_timeout},
        }
        if pool_size:
            config["CONN_MAX_AGE"] = 0  # a pooled connection goes back to the pool instead
            config["OPTIONS"] = {
                "connect_timeout": connect_timeout,
                "pool": {"min_size": 1, "max_size": pool_size, "timeout": 30},
            }
        return config


def parse_database_url(name: str, url: str) -> DatabaseConfig:
    """Parse ``postgres[ql]://user:pass@host:port/db`` (``?host=/dir`` for a unix socket)."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql"}:
        raise ImproperlyConfigured(
            f"{name} must start with postgresql:// (PostgreSQL with pgvector is required), got {url!r}"
        )
    database = unquote(parts.path.lstrip("/"))
    if not database:
        raise ImproperlyConfigured(f"{name} has no database name: {url!r}")
    query = parse_qs(parts.query)
    try:
        port = str(parts.port or "")
    except ValueError:
        raise ImproperlyConfigured(f"{name} has an invalid port: {url!r}") from None
    return DatabaseConfig(
        name=database,
        user=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
        host=query.get("host", [unquote(parts.hostname or "")])[0],
        port=port,
    )


def check_redis_url(name: str, url: str) -> str:
    if urlsplit(url).scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(
            f"{name} must start with redis://, rediss:// or unix://, got {url!r}"
        )
    return url


def celery_broker_url(redis_url: str) -> str:
    """Kombu spells a Redis unix socket ``redis+socket://``; redis-py spells it ``unix://``."""
    parts = urlsplit(redis_url)
    if parts.scheme != "unix":
        return redis_url
    db = parse_qs(parts.query).get("db", ["0"])[0]
    return f"redis+socket://{parts.path}?virtual_host={db}"


def env_weights(name: str) -> dict[str, float]:
    """``type:weight`` pairs, e.g. ``record:0.4,regulation:0.75`` (vector share per source type)."""
    weights: dict[str, float] = {}
    for item in env_list(name):
        key, _, raw = item.partition(":")
        try:
            value = float(raw)
        except ValueError:
            raise ImproperlyConfigured(
                f"{name}: {item!r} is not type:weight (e.g. record:0.4)"
            ) from None
        if not 0 <= value <= 1:
            raise ImproperlyConfigured(f"{name}: the weight of {key!r} must be between 0 and 1")
        weights[key.strip()] = value
    return weights


def data_dir_secret(path: Path) -> str:
    """The secret stored at ``path``, generated (mode 600) on first use.

    Every process of one data dir (``make run``, its workers, any ``manage.py`` command)
    reads the same key. Created under a temporary name and linked into place, so two
    processes starting at once never see a half-written file and agree on one key."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        draft = path.with_name(f".{path.name}.{os.getpid()}")
        fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as file:
            file.write(secrets.token_urlsafe(50))
        try:
            os.link(draft, path)
        except FileExistsError:
            pass  # another process linked its key first: use that one
        finally:
            draft.unlink()
    try:
        key = path.read_text().strip()
    except OSError as exc:
        raise ImproperlyConfigured(f"cannot read the generated secret key {path}: {exc}") from exc
    if len(key) < 32:
        raise ImproperlyConfigured(
            f"{path} holds no usable secret key: delete it to make a new one"
        )
    return key
