from __future__ import annotations

import pytest
import redis

from licenses.services import license_forge
from tests.factories import make_document


@pytest.fixture
def marta(settings, monkeypatch):
    from knowledge.search import types as search_types

    # The fake embedder's cosines sit far lower than e5's: a related question scores about
    # 0.6, an unrelated one under 0.2 (threshold calibration is per model, as in production).
    monkeypatch.setattr(search_types, "FALLBACK_MIN_SCORE", 0.4)
    settings.SEARCH_TOP_K = 3
    forged = license_forge(user_name="Marta", machine_id="sala-chat")
    make_document(
        "# Piscina\n\nLa piscina del condominio abre a las ocho.",
        filename="piscina.md",
        license=forged.license,
    )
    make_document("# Gimnasio\n\nEl gimnasio cierra los domingos.", filename="gimnasio.md")
    redis.Redis.from_url(settings.REDIS_URL).flushdb()
    return forged
