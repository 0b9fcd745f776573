"""The one place a Gemini client is built (embeddings, rerank and chat share it).

``GEMINI_BASE_URL`` points it at a proxy, or at the tests' local fake of the REST API."""

from __future__ import annotations

from typing import Any

from django.conf import settings


def gemini_client() -> Any:  # noqa: ANN401 - google.genai.Client, imported lazily (slow import)
    from google import genai
    from google.genai import types

    options = (
        types.HttpOptions(base_url=settings.GEMINI_BASE_URL) if settings.GEMINI_BASE_URL else None
    )
    return genai.Client(api_key=settings.GEMINI_API_KEY, http_options=options)
