from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

from portality.checks import refuse_to_start_on_errors
from runtime.embedded import start_unless_external
from text.languages import language_model_load

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portality.settings")
start_unless_external()
application = get_wsgi_application()
refuse_to_start_on_errors()
language_model_load()  # before the first request, not during it
