"""The knowledge search tool the chat hands to an LLM that calls tools, and how a call's
search is run — always inside the caller's scope. The orchestrator (chat.services) numbers
what it finds for the model to cite.

The model sees it as ``memory_search``, the name seed 003 ("Tools para LLM") gives it: to
the model the organisation's knowledge is the assistant's memory. In code it is what it
does, a knowledge search."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_noop

from knowledge.search import STRATEGIES, SearchOptions, SearchResult, search
from knowledge.searching import search_log_record
from licenses.principals import Principal
from web.exceptions import ApplicationError

KNOWLEDGE_SEARCH_TOOL: dict[str, Any] = {
    "name": "memory_search",
    "description": (
        "Search the organisation's knowledge base (regulations, policies, minutes, manuals) "
        "for passages relevant to a question. Returns the best passages with their source "
        "document and page. Use it before answering any question about the organisation's "
        "own facts; cite the sources you use."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in the user's language."},
            "max_results": {"type": "integer", "minimum": 1, "maximum": 10, "default": 5},
            "strategy": {"type": "string", "enum": list(STRATEGIES), "default": "weighted"},
        },
        "required": ["query"],
    },
}


def knowledge_search_tool_run(
    *, principal: Principal, arguments: dict[str, Any]
) -> tuple[list[SearchResult], int]:
    """Run a tool call's search: its results, and its row in the access log. The scope is
    the principal's: any "license", "scope" or other field a model puts in ``arguments`` is
    ignored. Raises ApplicationError for arguments that make no search (no query, a strategy
    that does not exist)."""
    try:
        options = SearchOptions(
            top_k=min(10, max(1, int(arguments.get("max_results") or 5))),
            strategy=str(arguments.get("strategy") or ""),
        )
    except (ValueError, TypeError):
        raise ApplicationError(gettext_noop("max_results must be a number from 1 to 10.")) from None
    response = search(principal=principal, query=str(arguments.get("query", "")), options=options)
    return response.results, search_log_record(principal=principal, response=response).pk
