from __future__ import annotations

import pytest

from licenses.services import license_forge
from tests.memory.support import ORIGIN


@pytest.fixture
def license():
    return license_forge(user_name="Ana", machine_id="sala-m", allowed_origins=[ORIGIN]).license
