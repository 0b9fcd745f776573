from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

from portality.embedded import start_unless_external

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portality.settings")
start_unless_external()
application = get_asgi_application()
