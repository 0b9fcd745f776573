"""Who a request comes from, by one rule for the ASGI edge and for Django's views (and its
login throttling). No Django imports: the edge loads before Django is set up."""

from __future__ import annotations


def client_address(remote: str, forwarded_for: str, *, behind_proxy: bool) -> str:
    """The client as the hop the product trusts saw it: the socket's peer, or, behind a
    reverse proxy the deployment trusts (``BEHIND_PROXY``), the last address that proxy
    appended to X-Forwarded-For. Anything earlier in the header is the client's own claim."""
    if behind_proxy:
        forwarded = [part.strip() for part in forwarded_for.split(",") if part.strip()]
        if forwarded:
            return forwarded[-1]
    return remote
