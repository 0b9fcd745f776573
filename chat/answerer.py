"""The offline answerer's reading: which sentences of the retrieved passages answer the
question, best first.

Every sentence of the passages (split by knowledge.chunking.split_sentences, which knows
abbreviations such as "Y. pestis" or "Sr.") is scored on its own against the question:

- **meaning**: the cosine between the question's and the sentence's embeddings (the
  deployment's own embedder, e5 by default), the signal that finds a sentence worded unlike
  the question;
- **words**: the share of the question's words the sentence contains (accents, case and
  endings folded), weighted by how rare each word is among the candidates, so a name or a
  term counts more than a word every sentence repeats;
- **what is asked**: a sentence that holds the kind of fact the question asks for — a number
  for "¿cuántos…?", a year or a date for "¿en qué año…?"/"quando", a name for "quién" —
  that the question itself does not already say;
- **where it was found**: the passage's retrieval rank, a small prior.

The weights were tuned on the shared sets' dev splits (BENCHMARKS.md, "Answers").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from knowledge.chunking import split_sentences
from portality.text import fold

MIN_WORDS = 4  # a fragment ("Historia.") is not worth quoting on its own
_WORD = re.compile(r"\w+")
_NUMBER = re.compile(r"\d")
_YEAR_OR_DATE = re.compile(
    r"\b(1[0-9]{3}|20[0-9]{2})\b|\b\d{1,2} de \w+|"
    r"\b(janeiro|fevereiro|março|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|"
    r"dezembro|enero|febrero|marzo|mayo|junio|julio|septiembre|octubre|noviembre|diciembre|"
    r"january|february|march|april|may|june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-ZÁÉÍÓÚÂÊÔÃÕÇÑ][\wáéíóúâêôãõçñü]+")

# What a question asks for, from its first words (es, pt, en).
_ASKS_NUMBER = re.compile(
    r"\b(cu[aá]nt[oa]s?|quant[oa]s?|how (many|much)|qu[eé] (porcentaje|cantidad|n[uú]mero)|"
    r"que (porcentagem|quantidade|n[uú]mero)|qual (a|o) (porcentagem|n[uú]mero|valor))\b",
    re.IGNORECASE,
)
_ASKS_DATE = re.compile(
    r"\b(cu[aá]ndo|quando|when|(en|em|in) (qu[eé]|que|what|which) (a[nñ]o|ano|year|d[eé]cada|"
    r"s[ií]glo|s[eé]culo|fecha|data|date)|qu[eé] (a[nñ]o|fecha)|que (ano|data)|what year)\b",
    re.IGNORECASE,
)
_ASKS_NAME = re.compile(r"\b(qui[eé]n(es)?|quem|who|whom)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Weights:
    # Tuned on XQuAD-es dev (585 questions): the lead sentence held the gold answer for
    # 0.798 of them, against 0.756 for meaning alone and 0.713 for words alone
    # (BENCHMARKS.md, "Answers").
    meaning: float = 1.0
    words: float = 0.2
    asked: float = 0.05
    rank: float = 0.05


WEIGHTS = Weights()


@dataclass(frozen=True)
class Candidate:
    sentence: str
    number: int  # the source's citation number
    rank: int  # the source's position in the retrieval, 0 first


def candidates(passages: Sequence[tuple[int, str]]) -> list[Candidate]:
    """Each sentence of (citation number, passage) pairs given best first, once."""
    found: list[Candidate] = []
    seen: set[str] = set()
    for rank, (number, passage) in enumerate(passages):
        for sentence in split_sentences(passage):
            key = " ".join(fold(sentence).split())
            if len(sentence.split()) < MIN_WORDS or key in seen:
                continue
            seen.add(key)
            found.append(Candidate(sentence, number, rank))
    return found


def _stems(text: str) -> set[str]:
    return {word[:6] for word in _WORD.findall(fold(text)) if len(word) > 3 or word.isdigit()}


def _word_scores(question: str, found: Sequence[Candidate]) -> list[float]:
    """Share of the question's (rarity-weighted) words in each sentence."""
    wanted = _stems(question)
    sentence_stems = [_stems(candidate.sentence) for candidate in found]
    spread = Counter(stem for stems in sentence_stems for stem in stems & wanted)
    weight = {stem: math.log(1 + len(found) / (1 + spread[stem])) for stem in wanted}
    total = sum(weight.values()) or 1.0
    return [sum(weight[stem] for stem in stems & wanted) / total for stems in sentence_stems]


def _asked_scores(question: str, found: Sequence[Candidate]) -> list[float]:
    """1 for a sentence holding the kind of fact asked for, beyond what the question says."""
    if _ASKS_DATE.search(question):
        pattern = _YEAR_OR_DATE
    elif _ASKS_NUMBER.search(question):
        pattern = _NUMBER
    elif _ASKS_NAME.search(question):
        pattern = _NAME
    else:
        return [0.0] * len(found)
    said = {fold(match.group(0)) for match in pattern.finditer(question)}
    return [
        float(any(fold(m.group(0)) not in said for m in pattern.finditer(candidate.sentence)))
        for candidate in found
    ]


def _cosine(left: Sequence[float], right: Sequence[float]) -> float:
    dot = sum(a * b for a, b in zip(left, right, strict=True))
    norms = math.sqrt(sum(a * a for a in left)) * math.sqrt(sum(b * b for b in right))
    return dot / norms if norms else 0.0


def ranked(
    question: str,
    found: Sequence[Candidate],
    *,
    embed_query: Callable[[str], Sequence[float]],
    embed_passages: Callable[[Sequence[str]], Sequence[Sequence[float]]],
    weights: Weights = WEIGHTS,
) -> list[tuple[float, Candidate]]:
    """The candidates with their scores, best first."""
    if not found:
        return []
    query_vector = embed_query(question)
    vectors = embed_passages([candidate.sentence for candidate in found])
    words = _word_scores(question, found)
    asked = _asked_scores(question, found)
    scored = [
        (
            weights.meaning * _cosine(query_vector, vector)
            + weights.words * word
            + weights.asked * ask
            + weights.rank / (1 + candidate.rank),
            candidate,
        )
        for candidate, vector, word, ask in zip(found, vectors, words, asked, strict=True)
    ]
    scored.sort(key=lambda pair: -pair[0])
    return scored


MAX_WORDS = 45  # the answer's length: the lead sentence, and a second one when it fits


def compose(
    scored: Sequence[tuple[float, Candidate]], *, max_words: int = MAX_WORDS
) -> list[Candidate]:
    """The best sentence first, then the next best that still fits in ``max_words``."""
    if not scored:
        return []
    chosen = [scored[0][1]]
    words = len(chosen[0].sentence.split())
    for _, candidate in scored[1:]:
        if words + len(candidate.sentence.split()) <= max_words:
            chosen.append(candidate)
            break
    return chosen
