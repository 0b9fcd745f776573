"""A question's misspelt words, read as the passages found for it spell them.

"¿Cuántos derrbos se anotó Kuechly?": "derrbos" is in no page of the scope, so the keyword
branch found nothing for it, and the offline answerer weighed it as the question's rarest
word, found it in no passage, and said it had no information, though the passage the
vectors brought first says "derribos". One typo in the longest word of each dev question
(``bench_answers --typos``) turned 40 (FaQuAD-pt) and 45 (XQuAD-es) answered questions into
"no information" and cost 4.8 / 2.9 points of R@1; read as the passages spell it, 12 and 22,
and 2.0 / 0.5 (BENCHMARKS.md, "Typos"). The search respells a question with the words of
its first candidates (engine.py), searches again when a word changed and says so
(``searched_as``); the offline answerer's word shares weigh the question as searched.

A word is read as a passage's word only when both hold: it is in no chunk of the caller's
scope (a real word of the knowledge is never "corrected"), and one of the passages holds a
word spelt nearly alike — same first letter, at least five letters, difflib's ratio at least
``SIMILARITY``. A capitalised word past the first is a name, left as typed: a name the
knowledge lacks is what a question it cannot answer usually asks about.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable
from uuid import UUID

from datastores.replicas import read_connection
from knowledge.models import GLOBAL_SCOPE_KEY
from knowledge.search.word_shares import (
    KIN_LETTERS,
    KIN_SQL,
    SCOPE_ROWS,
    SCOPE_ROWS_CAP,
    chunks_matching,
    kin_cap,
)
from text.folding import fold
from text.words import content_words, plural_in_oes, singular_in_ao

SIMILARITY = 0.85
MIN_LETTERS = 5
# A question names a few things; a 4,000-character query of near-misses would otherwise cost
# ~0.1 s of comparisons and a scope check of hundreds of words.
MAX_WORDS = 12

_WORD = re.compile(r"[^\W\d_]+")

# Which of some words no chunk of the scope holds, in any language's stems. Not a stopword
# of any of the languages ("era", "esta"): pages in that language never keep it, so its
# absence says nothing. With a kin cap, not a word whose kin (its stems less a letter, as
# prefixes: word_shares.KIN_SQL) between one and that many chunks hold.
_UNKNOWN = f"""
SELECT w.word
  FROM unnest(%(words)s::text[]) AS w(word)
 CROSS JOIN LATERAL (
       SELECT string_agg(DISTINCT quote_literal(p.prefix || u.lexeme), ' | ')::tsquery AS in_scope,
              (string_agg(DISTINCT quote_literal(p.prefix || {KIN_SQL.format(stem="u.lexeme")})
                           || ':*', ' | ')
                 FILTER (WHERE length(u.lexeme) >= {KIN_LETTERS}))::tsquery AS kin,
              count(DISTINCT cfg) AS configs
         FROM unnest(ARRAY['pb_spanish', 'pb_portuguese', 'pb_english']::regconfig[]) AS cfg,
              unnest(to_tsvector(cfg, w.word)) AS u,
              (VALUES (pb_scope_prefix(%(global_scope)s::uuid)),
                      (pb_scope_prefix(%(scope)s::uuid))) AS p(prefix)) q
 WHERE q.configs = 3
   AND NOT EXISTS (
       SELECT 1 FROM knowledge_chunk c
        WHERE pb_scoped_lexemes(c.scope_key, c.search_vector) @@ q.in_scope
          AND c.scope_key IN (%(global_scope)s::uuid, %(scope)s::uuid))
   AND (%(kin_cap)s::int IS NULL OR q.kin IS NULL
        OR {chunks_matching("q.kin", "%(kin_cap)s::int + 1")} NOT BETWEEN 1 AND %(kin_cap)s::int)
"""


def scope_lacks(license_id: UUID | None, *, kin: bool = False) -> Callable[[list[str]], set[str]]:
    """Which of some words no chunk of the caller's scope (global and ``license_id``'s)
    holds: ``respelt``'s ``unknown``. With ``kin``, a word whose kin a few chunks hold is
    held, as the word shares count it: Snowball leaves a short plural whole (Portuguese
    "obras", its stem too short to lose the "s") and "obra" as it is, and "Posso fazer obra
    no sábado?" quoted the rules' "Obras só podem ser feitas…" saying that nothing quoted
    mentions "obra". Not for respelling: a misspelt word's kin is often a real word's."""
    scope = license_id or GLOBAL_SCOPE_KEY

    def unknown(words: list[str]) -> set[str]:
        # With kin, a Portuguese "opção" is held by a page's "opções", and back.
        other = {word: _other_number(word) for word in words} if kin else {}
        asked = list(dict.fromkeys([*words, *(w for w in other.values() if w)]))
        with read_connection().cursor() as cursor:
            cap = None
            if kin:
                cursor.execute(SCOPE_ROWS, {"license": license_id, "rows_cap": SCOPE_ROWS_CAP})
                cap = kin_cap(cursor.fetchone()[0])
            cursor.execute(
                _UNKNOWN,
                {"words": asked, "global_scope": GLOBAL_SCOPE_KEY, "scope": scope, "kin_cap": cap},
            )
            lacked = {word for (word,) in cursor}
        return {w for w in words if w in lacked and other.get(w, w) in lacked | {""}}

    return unknown


def _other_number(word: str) -> str:
    """A Portuguese noun in "-ão" or "-ões" in the other number (lowercased, as the search
    reads it); "" for any other word."""
    lowered = word.lower()
    other = singular_in_ao(lowered) if lowered.endswith("ões") else plural_in_oes(lowered)
    return "" if other == lowered else other


def respelt(
    question: str, passages: Iterable[str], unknown: Callable[[list[str]], set[str]]
) -> str:
    """``question`` with each misspelt word replaced by the passages' spelling of it.
    ``unknown`` tells which of some words no chunk of the scope holds; it is asked only
    when a word is missing from the passages and one of theirs is spelt nearly alike."""
    text = " ".join(passages)
    lowered = text.lower()
    missing = [
        match
        for match in _WORD.finditer(question)
        if len(match.group()) >= MIN_COMPOUND_LETTERS
        and match.group().lower() not in lowered
        and content_words(match.group(), None)  # "Cuánto" is no "canto" misspelt
    ][:MAX_WORDS]
    if not missing:  # the common case, answered without folding the passages
        return question
    compounds = _compounds(text)
    joined = {
        m.group(): compounds[fold(m.group())] for m in missing if fold(m.group()) in compounds
    }
    known = set(_WORD.findall(fold(text)))
    nearest = {
        match.group(): near
        for match in missing
        if match.group() not in joined and (near := _nearest(match, known)) is not None
    }
    if not nearest and not joined:
        return question
    misspelt = unknown([*joined, *nearest])
    if not misspelt:
        return question
    spelt = {
        word: joined[word] if word in joined else _as_written(nearest[word], text)
        for word in misspelt
    }
    return _WORD.sub(lambda m: spelt.get(m.group(), m.group()), question)


# A word written joined that the passages write with a hyphen ("wifi", "Wi-Fi"; "email",
# "e-mail"): PostgreSQL's parser keeps "wi-fi" and its parts, never "wifi", so "wifi" alone
# found the coworking's "Wi-Fi" page by meaning only, and its share of the question was 0.
_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")
MIN_COMPOUND_LETTERS = 4


def _compounds(text: str) -> dict[str, str]:
    """The passages' hyphenated words (lower case, as written) by their folded joined
    spelling."""
    return {fold(word.replace("-", "")): word.lower() for word in _COMPOUND.findall(text)}


def _as_written(folded: str, text: str) -> str:
    """The passages' word whose folded spelling is ``folded``, accents and all ("gimnasio",
    "días"), in lower case."""
    return next(
        (w.lower() for w in _WORD.findall(text) if len(w) == len(folded) and fold(w) == folded),
        folded,
    )


def _nearest(match: re.Match[str], known: set[str]) -> str | None:
    """The passages' word (folded) spelt nearly as ``match``'s, when they lack its own."""
    word = match.group()
    folded = fold(word)
    if len(folded) < MIN_LETTERS or folded in known:
        return None
    if word[0].isupper() and match.start() > 0 and match.string[: match.start()].strip("¿¡ "):
        return None  # a name
    # difflib's ratio is at most 2·shorter / (both lengths): a word far longer or shorter
    # could never reach SIMILARITY, and is not compared.
    alike = [
        w
        for w in known
        if w[0] == folded[0] and 2 * min(len(w), len(folded)) >= SIMILARITY * (len(w) + len(folded))
    ]
    found = difflib.get_close_matches(folded, alike, n=1, cutoff=SIMILARITY)
    return found[0] if found else None
