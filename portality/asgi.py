"""The ASGI application granian serves (runtime/server.py): Django behind the edge's limits."""

from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

from portality.checks import refuse_to_start_on_errors
from runtime.edge import edge_for
from runtime.embedded import start_unless_external
from text.languages import language_model_load

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portality.settings")
# Under ASGI each request runs its sync code in a thread of its own; without a pool every
# request would open a database connection.
os.environ.setdefault("DATABASE_POOL", "true")
start_unless_external()
django_application = get_asgi_application()
refuse_to_start_on_errors()
language_model_load()  # before the first request, not during it
application = edge_for(django_application)  # type: ignore[arg-type]
