"""The ``memory_search`` tool (seed 003 "Tools para LLM"): what the chat orchestrator hands
to an LLM that calls tools, and how a call is run — always inside the caller's scope."""

from __future__ import annotations

from typing import Any

from knowledge.search_types import STRATEGIES, SearchOptions
from knowledge.services import knowledge_search
from licenses.principals import Principal
from portality.exceptions import ApplicationError

MEMORY_SEARCH_TOOL: dict[str, Any] = {
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


def run_memory_search(*, principal: Principal, arguments: dict[str, Any]) -> dict[str, Any]:
    """Execute a tool call. The scope is the principal's; nothing in ``arguments`` can widen it."""
    try:
        response = knowledge_search(
            principal=principal,
            query=str(arguments.get("query", "")),
            options=SearchOptions(
                top_k=int(arguments.get("max_results") or 5),
                strategy=str(arguments.get("strategy") or ""),
            ),
        )
    except (ApplicationError, ValueError, TypeError) as exc:
        return {"error": getattr(exc, "message", str(exc)), "results": []}
    return {
        "results": [
            {
                "source": r.filename,
                "page": r.page_start,
                "heading": r.heading,
                "text": r.content,
                "score": r.fused_score,
                "chunk_id": r.chunk_id,
            }
            for r in response.results
        ]
    }
