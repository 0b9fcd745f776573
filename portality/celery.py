"""The Celery app. Configuration lives in settings (CELERY_* names); tasks in each app's tasks.py."""

from __future__ import annotations

import os
import warnings

import django
from celery import Celery
from celery.exceptions import SecurityWarning
from celery.signals import worker_init, worker_process_shutdown, worker_ready
from django.conf import settings

from portality.checks import refuse_to_start_on_errors

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portality.settings")

# Celery warns at every start as root because a root worker that unpickles messages can be
# made to run code. This worker accepts JSON only (CELERY_ACCEPT_CONTENT), and Celery itself
# refuses to start as root with pickle enabled, so the warning says nothing here.
warnings.filterwarnings(
    "ignore", message="You're running the worker with superuser", category=SecurityWarning
)

app = Celery("portality")


@app.on_configure.connect
def _embedded_servers(sender: Celery, **kwargs: object) -> None:
    """``celery -A portality worker|beat`` is an entry point: the embedded servers start
    (or are joined) when the app first reads its configuration, not when ``portality`` is
    imported (the settings import it)."""
    # Here, not at the top: runtime.embedded reads portality.env, and importing it while
    # ``portality`` itself is being imported (its __init__ loads this module) would find
    # the package half made.
    from runtime.embedded import start_unless_external

    start_unless_external()


app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def _settings_checked(sender: object, **kwargs: object) -> None:
    """A worker refuses to start on a settings error, as the web application does. It loads
    the language model once, in the parent: its pool processes are forked with it."""
    django.setup()
    refuse_to_start_on_errors()
    from text.languages import language_model_load  # after django.setup(), as every floor

    language_model_load()


@worker_ready.connect
def _metrics_port(sender: object, **kwargs: object) -> None:
    """A worker on a machine of its own answers Prometheus on WORKER_METRICS_PORT: its
    pool processes' samples, summed (observability.metrics)."""

    if settings.WORKER_METRICS_PORT:
        # prometheus_client picks its multi-process mode when first imported, from the
        # variable observability.metrics sets: importing it with this module would be too soon.
        from prometheus_client import CollectorRegistry, multiprocess, start_http_server

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        start_http_server(settings.WORKER_METRICS_PORT, registry=registry)


@worker_process_shutdown.connect
def _metrics_process_gone(pid: int | None = None, **kwargs: object) -> None:
    # The Celery app is imported with the settings; the floors load once a worker runs.
    from observability.metrics import process_exited

    process_exited(pid or os.getpid())


@app.task(name="portality.ping")
def ping_task(value: int) -> int:
    """Round trip used by tests and operators to prove a worker consumes and answers."""
    return value + 1
