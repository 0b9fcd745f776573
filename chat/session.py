"""Session context in Redis (seed 004 §5): the current conversation only, short-lived.

Key ``pb:session:{license}:{user}:{session}`` holds the turns and a running summary.
TTL 10 minutes renewed by activity, 2 hours absolute; at most 3 sessions per user (the
least recently used one is dropped) — each a license's admin may change within seed 004
§5.2's bounds (``SessionLimits``, from the assistant's settings). If Redis is unreachable
the chat still answers, without context, and logs it.

Forgetting reaches the sessions too: an answer that cited a forgotten passage, and the turns
that said a forgotten memory, are replaced by a note that something was forgotten, and Redis
is asked to rewrite its files on disk (append-only file and snapshot) so the old text is
gone from them as well.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis

from chat.texts import FORGOTTEN_TURN
from datastores.keys import redis_key
from datastores.redis_pool import shared_redis
from text.folding import fold
from text.words import asks_what_if, opens_with_and, refers_back, without_courtesy

logger = logging.getLogger(__name__)

IDLE_TTL_SECONDS = 10 * 60
ABSOLUTE_SECONDS = 2 * 60 * 60
MAX_SESSIONS_PER_USER = 3
LONGEST_SECONDS = 4 * 60 * 60  # the most a license may set (chat.models.SESSION_MAX_MINUTES)
SUMMARY_CHARS = 1200
# A question this short ("¿cuánto cuesta?", "and on Sundays?", "e o preço?") may ask about
# what the user's previous question named.
FOLLOW_UP_WORDS = 4
# Longer, a question still follows the previous one when a pronoun stands for what that one
# named: "until what time can they stay?", "How much does it cost?"; or it asks "and if…?"
# of it: "¿Y si no puedo ir?" after whether an appointment is needed.
REFERRING_BACK_WORDS = 8
FOLLOWED_AT_MOST = 3


@dataclass(frozen=True)
class SessionLimits:
    """How long a conversation is kept in mind, and how many at once per user."""

    idle_seconds: int = IDLE_TTL_SECONDS
    absolute_seconds: int = ABSOLUTE_SECONDS
    at_once: int = MAX_SESSIONS_PER_USER


@dataclass
class Session:
    id: str
    turns: list[dict[str, str]] = field(default_factory=list)  # {"role": "user"|"model", "text"}
    summary: str = ""
    started_at: float = field(default_factory=time.time)
    available: bool = True  # False when Redis could not be reached
    limits: SessionLimits = field(default_factory=SessionLimits)  # not stored: the license's

    def followed(self, question: str) -> str:
        """``question`` after the user's earlier ones it may follow, when it is short (or a
        little longer, saying "it", "they", "eso"… or "and if…"): back
        to the last that said more, three at most ("¿y el gimnasio? ¿cuánto cuesta?");
        "" when it is not short, or nothing was asked before."""
        referring = refers_back(question) or asks_what_if(question) or opens_with_and(question)
        limit = REFERRING_BACK_WORDS if referring else FOLLOW_UP_WORDS
        if _words(question) > limit:
            return ""
        earlier = [turn["text"] for turn in self.turns if turn["role"] == "user"]
        followed = [question]
        for text in reversed(earlier[-FOLLOWED_AT_MOST:]):
            followed.insert(0, text)
            if _words(text) > FOLLOW_UP_WORDS:
                break
        return " ".join(followed) if len(followed) > 1 else ""

    def window(self) -> list[dict[str, str]]:
        """Short: every turn; 10-30: the last 10 (+ summary); longer: the last 5 (+ summary)."""
        count = len(self.turns)
        if count < 10:
            return list(self.turns)
        return self.turns[-10:] if count <= 30 else self.turns[-5:]


def _words(text: str) -> int:
    return len(without_courtesy(text).split())


def _client() -> redis.Redis:
    return shared_redis()


def _key(license_id: object, user_ref: str, session_id: str) -> str:
    return redis_key("pb:session", license_id or "admin", user_ref, session_id)


def _index_key(license_id: object, user_ref: str) -> str:
    return redis_key("pb:sessions", license_id or "admin", user_ref)


def session_transcript(*, license_id: object, user_ref: str, session_id: str) -> Session | None:
    """The session as stored, or None: it is another user's, expired, or never existed (a
    key is per license and user, so another user's session id finds nothing). Its
    license's time limits are Redis' expiry of the key, set when it was saved."""
    session = session_load(
        license_id=license_id,
        user_ref=user_ref,
        session_id=session_id,
        limits=SessionLimits(absolute_seconds=LONGEST_SECONDS),
    )
    return session if session.turns and session.id == session_id else None


def session_load(
    *,
    license_id: object,
    user_ref: str,
    session_id: str | None,
    limits: SessionLimits | None = None,
) -> Session:
    limits = limits or SessionLimits()
    fresh = Session(id=session_id or secrets.token_urlsafe(12), limits=limits)
    if not session_id:
        return fresh
    try:
        raw: bytes | None = _client().get(_key(license_id, user_ref, session_id))  # type: ignore[assignment]
    except redis.RedisError as exc:
        logger.warning("session context unavailable (Redis: %s); answering without it", exc)
        return Session(id=session_id, available=False, limits=limits)
    if not raw:
        return fresh
    data = json.loads(raw)
    session = Session(
        id=session_id,
        turns=data["turns"],
        summary=data["summary"],
        started_at=data["started_at"],
        limits=limits,
    )
    if time.time() - session.started_at > limits.absolute_seconds:
        # past its longest: a new conversation
        return Session(id=secrets.token_urlsafe(12), limits=limits)
    return session


def session_append(
    *,
    license_id: object,
    user_ref: str,
    session: Session,
    question: str,
    answer: str,
    citations: list[dict[str, object]] | None = None,
    answer_id: str = "",
) -> None:
    """Add a question and its answer (with the sources it cited and the kept answer's id,
    for the transcript the widget shows again after a page reload, 👍/👎 included)."""
    answered: dict[str, object] = {"role": "model", "text": answer}
    if citations:
        answered["citations"] = citations
    if answer_id:
        answered["answer_id"] = answer_id
    session.turns += [{"role": "user", "text": question}, answered]  # type: ignore[list-item]
    if len(session.turns) > 30:
        dropped, session.turns = session.turns[:-30], session.turns[-30:]
        session.summary = _summarise(session.summary, dropped)
    elif len(session.turns) >= 10:
        session.summary = _summarise("", session.turns[:-10])
    _save(license_id, user_ref, session)


def _summarise(summary: str, turns: list[dict[str, str]]) -> str:
    # A running summary without a model: what the user asked earlier, newest last.
    asked = [t["text"].split("\n")[0][:160] for t in turns if t["role"] == "user"]
    text = "; ".join(filter(None, [summary, *asked]))
    return text[-SUMMARY_CHARS:]


def _save(license_id: object, user_ref: str, session: Session) -> None:
    payload = json.dumps(
        {"turns": session.turns, "summary": session.summary, "started_at": session.started_at}
    )
    limits = session.limits
    remaining = limits.absolute_seconds - (time.time() - session.started_at)
    ttl = max(1, int(min(limits.idle_seconds, remaining)))
    index = _index_key(license_id, user_ref)
    try:
        client = _client()
        with client.pipeline() as pipe:
            pipe.set(_key(license_id, user_ref, session.id), payload, ex=ttl)
            pipe.zadd(index, {session.id: time.time()})
            pipe.expire(index, LONGEST_SECONDS)
            pipe.execute()
        _evict_extra_sessions(client, license_id, user_ref, limits.at_once)
    except redis.RedisError as exc:
        logger.warning("session context not saved (Redis: %s)", exc)


def _evict_extra_sessions(
    client: redis.Redis, license_id: object, user_ref: str, at_once: int
) -> None:
    index = _index_key(license_id, user_ref)
    extra: list[bytes] = client.zrange(index, 0, -(at_once + 1))  # type: ignore[assignment]
    for session_id in extra:  # oldest first
        client.delete(_key(license_id, user_ref, session_id.decode()))
        client.zrem(index, session_id)


# -- forgetting ------------------------------------------------------------------------------


def sessions_erase_user(*, license_id: object, user_ref: str) -> int:
    """Every session transcript of this user of this license (their erasure)."""
    client = _client()
    index = _index_key(license_id, user_ref)
    ids: list[bytes] = client.zrange(index, 0, -1)  # type: ignore[assignment]
    keys = [_key(license_id, user_ref, session_id.decode()) for session_id in ids]
    if keys:
        client.delete(*keys)
    client.delete(index)
    if keys:
        _rewrite_files(client)
    return len(keys)


def sessions_scrub_passages(*, chunk_ids: list[int]) -> int:
    """Every session's answers that cited one of ``chunk_ids``: their text and sources go."""
    gone = set(chunk_ids)

    def cites_gone(turn: dict[str, Any]) -> bool:
        return any(c.get("chunk_id") in gone for c in turn.get("citations") or [])

    client = _client()
    keys = [key.decode() for key in client.scan_iter(match="pb:session:*", count=500)]
    return _scrub(client, keys, cites_gone, said="")


def sessions_scrub_memory(*, license_id: object, user_ref: str, description: str) -> int:
    """This user's session turns that said ``description`` (a forgotten memory)."""
    said = " ".join(fold(description).split())
    if not said:
        return 0

    def says_it(turn: dict[str, Any]) -> bool:
        return said in " ".join(fold(str(turn.get("text", ""))).split())

    client = _client()
    ids: list[bytes] = client.zrange(_index_key(license_id, user_ref), 0, -1)  # type: ignore[assignment]
    keys = [_key(license_id, user_ref, session_id.decode()) for session_id in ids]
    return _scrub(client, keys, says_it, said=said)


def _scrub(
    client: redis.Redis, keys: list[str], hit: Callable[[dict[str, Any]], bool], *, said: str
) -> int:
    """Rewrite the sessions at ``keys`` whose turns ``hit`` (keeping each key's TTL)."""
    scrubbed = 0
    for key in keys:
        raw: bytes | None = client.get(key)  # type: ignore[assignment]
        if not raw:
            continue
        data = json.loads(raw)
        changed = False
        for turn in data["turns"]:
            if hit(turn):
                turn["text"], changed = FORGOTTEN_TURN, True
                turn.pop("citations", None)
        if said and said in fold(data.get("summary", "")):
            data["summary"], changed = "", True
        if changed:
            client.set(key, json.dumps(data), keepttl=True)
            scrubbed += 1
    if scrubbed:
        _rewrite_files(client)
    return scrubbed


def _rewrite_files(client: redis.Redis) -> None:
    """The old values live on in Redis' append-only file and snapshot until they are
    rewritten: ask for both (a managed Redis may refuse; its own retention applies)."""
    try:
        client.bgrewriteaof()
    except redis.RedisError as exc:
        logger.info("Redis did not rewrite its append-only file: %s", exc)
    try:
        client.bgsave(schedule=True)
    except redis.RedisError as exc:
        logger.info("Redis did not write a new snapshot: %s", exc)
