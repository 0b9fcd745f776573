from __future__ import annotations

import pytest
import redis
from django.conf import settings

from licenses.services import license_forge
from tests.conversations.support import SITE
from tests.factories import make_document

POOL = "# Piscina\n\nLa piscina del condominio abre a las ocho de la mañana."


@pytest.fixture
def sala(fake_embedder, monkeypatch, media_root):
    """A license with one document, the fake embedder and a threshold it passes."""
    from knowledge.search import types as search_types

    monkeypatch.setattr(search_types, "FALLBACK_MIN_SCORE", 0.4)
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    forged = license_forge(user_name="Sala", machine_id="sala-conv", allowed_origins=[SITE])
    make_document(POOL, filename="piscina.md", license=forged.license)
    return forged
