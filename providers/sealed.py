"""Secrets the console stores (model providers' API keys), sealed with a key that is not in
the database: a database dump or backup alone does not reveal them.

The key is SETTINGS_ENCRYPTION_KEY when set (a Fernet key; several, comma-separated, to
rotate: the first seals, all open), else one derived from SECRET_KEY (HKDF-SHA256), which
already lives outside the database. Changing SECRET_KEY without keeping the derived key
means entering the provider keys again (the page says a stored key cannot be opened)."""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings


def _derived_key() -> bytes:
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"portality-settings")
    return base64.urlsafe_b64encode(hkdf.derive(settings.SECRET_KEY.encode()))


def _box() -> MultiFernet:
    keys = [k.strip() for k in settings.SETTINGS_ENCRYPTION_KEY.split(",") if k.strip()]
    return MultiFernet([Fernet(key) for key in keys] if keys else [Fernet(_derived_key())])


def seal(secret: str) -> str:
    return _box().encrypt(secret.encode()).decode() if secret else ""


def unseal(sealed: str) -> str | None:
    """The secret, "" when none was stored, None when it cannot be opened (another key)."""
    if not sealed:
        return ""
    try:
        return _box().decrypt(sealed.encode()).decode()
    except InvalidToken:
        return None
