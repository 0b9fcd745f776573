"""A memory the user asks for in the chat: "recuerda que prefiero reservas por la mañana".

Only a command is one. "¿Recuerdas a qué hora abre la piscina?", "Do you remember when the
pool opens?", "I can't remember the fee" and "recuérdame el horario" ask to be told, and
are answered like any other question: the verb must open its sentence (after a greeting,
"please" or the assistant's name), the sentence must not ask, and what follows must not be
a question of its own ("recuérdame a qué hora abre").
"""

from __future__ import annotations

import re

from memory.models import MemorySource, MemoryType
from memory.services import Proposal
from text.folding import fold
from text.languages import LANGUAGES
from text.words import COURTESY_WORDS, QUESTION_WORDS

_COMMAND = re.compile(
    # The command's words name its language: the answer's, when the rest does not tell.
    r"\b(?P<verb>(?P<es>recuerd[ae](?:me)?|acuerd[ae]te|acuerdese|no (?:te |se )?olvides?"
    r"|ten(?:ga)? en cuenta|toma nota|anota|apunta)"
    r"|(?P<pt>recorda(?:-me)?|lembre(?:-se|-me)?|lembra(?:-me)?|nao (?:se )?esqueca"
    r"|tenha em mente|anote)"
    r"|(?P<en>remember|don't forget|do not forget|keep in mind|bear in mind|make a note))"
    r"\s*(?P<colon>[,:])?\s*(?P<that>de que|de q|que|q|that)?\s+"
    # Up to the end of the sentence: a "." that is followed by more text (bob@example.com,
    # 3.5, a.m.) does not end it, so nothing is cut before it is checked.
    r"(?P<what>(?:[^.!?\n]|[.!?](?=\S)){3,300})(?P<end>[.!?]*)",
)
# Verbs that only command with what they are told after "que" / "that" or a colon: "anota
# el horario" and "keep in mind the fee" are no memory.
_NEEDS_THAT = frozenset({
    "ten en cuenta", "tenga en cuenta", "toma nota", "anota", "apunta", "tenha em mente",
    "anote", "keep in mind", "bear in mind", "make a note",
})  # fmt: skip
# "Remind me" without "that" asks to be told: "recuérdame el horario de la piscina", "me
# lembra o horário".
_REMIND_ME = frozenset({"recuerdame", "recuerdeme", "recorda-me", "lembre-me", "lembra-me"})
# What may stand before the command in its sentence besides courtesy ("hola, por favor…").
_LEAD_WORDS = COURTESY_WORDS | {
    "y", "e", "and", "also", "tambien", "tambem", "ah", "oh", "ok", "okay", "vale", "bueno",
    "so", "entonces", "entao", "just", "solo", "eso", "si", "sim", "yes", "anyway",
    # a polite request: "can you remember that I prefer short answers?"
    "can", "could", "would", "will", "kindly",
}  # fmt: skip
_POLITE = frozenset({"can", "could", "would", "will"})
# A tag that turns a statement into a question without asking one: "…cortas, ¿vale?".
_TAGS = frozenset({
    "vale", "ok", "okay", "si", "sim", "ta", "certo", "right", "bien", "de", "acuerdo",
    "beleza", "blz", "dale", "yes", "alright", "ne", "no", "nao", "verdad", "eh", "sale",
})  # fmt: skip
# The question words, not the verbs that open a question ("fue", "was"), with those that
# only open an indirect one ("remember why…", "if…").
_QUESTION_WORDS = (QUESTION_WORDS - {"foi", "fue", "was", "son", "sao", "are"}) | {
    "whom", "why", "whether", "if", "quanta", "quantas",
}  # fmt: skip
# Spanish asks with an accent what it says without one ("a qué hora" / "que prefiero",
# "cuándo abre" / "cuando reservo").
_ACCENTED = frozenset({
    "qué", "cuál", "cuáles", "cómo", "cuándo", "dónde", "quién", "quiénes", "cuánto",
    "cuánta", "cuántos", "cuántas",
})  # fmt: skip
_BEFORE_A_QUESTION_WORD = frozenset({"a", "o", "de", "en", "por", "at", "in", "on", "para"})
_SENTENCE_STOP = re.compile(r"[.!?]\s|[\n¿¡]")
_WORD = re.compile(r"[\w'-]+")
_STYLE_WORDS = re.compile(
    r"\b(respuest|respost|answer|repl|corto|curt|short|formal|breve|detallad|detalhad)\w*"
)


def explicit_proposal(message: str, *, session_id: str = "") -> Proposal | None:
    """ "recuerda que prefiero reservas por la mañana" → a user_explicit memory proposal;
    None when the message commands nothing."""
    folded = fold(message)
    # Folding keeps the length of Latin text (accents are dropped, not expanded), so the
    # offsets point into the original; ligatures and the like fall back to the folded text.
    original = message if len(folded) == len(message) else folded
    for match in _COMMAND.finditer(folded):
        what = _commanded(match, folded, original)
        if what:
            return _proposal(what, match, message, session_id)
    return None


def _commanded(match: re.Match[str], folded: str, original: str) -> str | None:
    """What the command asks to remember, without a closing tag; None when it is no command."""
    verb, that = match.group("verb"), match.group("that") or match.group("colon") == ":"
    if verb in _NEEDS_THAT and not that:
        return None
    opening = _sentence_start(folded, match.start())
    lead = folded[opening : match.start()]
    if not that and (verb in _REMIND_ME or lead.split()[-1:] == ["me"]):
        return None
    if not _only_leads(lead, original[opening : match.start()]):
        return None
    what = original[match.start("what") : match.end("what")]
    what, tagged = _without_tag(what)
    asks = match.group("end").startswith("?") and not tagged
    if (asks or folded[opening - 1 : opening] == "¿") and not _POLITE & set(lead.split()):
        return None
    what = what.strip(" ,;:")
    if len(what) < 3 or _asks_itself(what, after_that=bool(match.group("that"))):
        return None
    return what


def _sentence_start(folded: str, end: int) -> int:
    starts = [stop.end() for stop in _SENTENCE_STOP.finditer(folded, 0, end)]
    return starts[-1] if starts else 0


def _only_leads(lead: str, lead_as_written: str) -> bool:
    """Courtesy, "and", "please", a polite "can you", or the assistant's name followed by a
    comma ("Lumen, recuerda…"; "Ana recuerda que…" tells what Ana remembers)."""
    clauses = list(zip(lead.split(","), lead_as_written.split(","), strict=True))
    for position, (clause, written) in enumerate(clauses):
        named = position < len(clauses) - 1
        for word, as_written in zip(_WORD.findall(clause), _WORD.findall(written), strict=True):
            if word not in _LEAD_WORDS and not (named and as_written[:1].isupper()):
                return False
    return True


def _without_tag(what: str) -> tuple[str, bool]:
    """ "prefiero respuestas cortas, ¿vale" → ("prefiero respuestas cortas", True)."""
    head, comma, tail = what.rpartition(",")
    words = _WORD.findall(fold(tail))
    if comma and 0 < len(words) <= 3 and all(word in _TAGS for word in words):
        return head, True
    return what, False


def _asks_itself(what: str, *, after_that: bool) -> bool:
    """ "a qué hora abre", "when the pool opens", "o que eu disse": a question, not a fact.
    After "que" / "that" only a written accent asks: "recuerda que cuando reservo prefiero
    la mañana" and "remember that when it rains I take the car" tell."""
    written = what.lower().split()[:2]
    folded = [fold(word) for word in written]
    # The question word may follow a preposition or an article: "a qué hora", "o que".
    first = 1 if len(written) > 1 and folded[0] in _BEFORE_A_QUESTION_WORD else 0
    if written[first] in _ACCENTED:
        return True
    if after_that:
        return False
    return folded[first] in _QUESTION_WORDS or folded == ["o", "que"]


def _proposal(what: str, match: re.Match[str], message: str, session_id: str) -> Proposal:
    kind = MemoryType.STYLE if _STYLE_WORDS.search(fold(what)) else MemoryType.PREFERENCE
    return Proposal(
        kind,
        what[:1].upper() + what[1:],
        0.9,
        MemorySource.USER_EXPLICIT,
        session_id,
        message[:1000],
        language=next(code for code in LANGUAGES if match.group(code)),
    )
