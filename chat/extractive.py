"""The offline answerer: no model. It quotes the retrieved passages' sentences that answer
the question best, each cited, and says it is offline — or that the knowledge holds nothing
on what is asked. The default when no model is configured (``make run`` out of the box)."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from price_parser import Price

from chat.llm import ANSWER_WORDS, Prompt, Source
from chat.texts import NO_INFORMATION
from knowledge.chunking import is_table_row, sentence_groups
from knowledge.extraction.mail import sender_labels
from knowledge.extraction.office import slide_title, speaker_notes_headings
from knowledge.redaction import placeholders_in
from knowledge.search.word_shares import kin_of
from text.citations import OFFLINE_ANSWERER
from text.folding import fold
from text.languages import detect_language
from text.sentences import split_sentences
from text.words import (
    FACT_WORDS,
    QUESTION_WORDS,
    asks_a_contact_alone,
    asks_again_of_a_time,
    asks_cheapest_or_dearest,
    asks_how_long,
    asks_sender,
    asks_the_address,
    asks_the_hours,
    asks_the_hours_alone,
    asks_where_it_is,
    asks_whether_allowed,
    asks_whether_it_is,
    asks_whether_there_is,
    asks_with_no_subject,
    asks_yes_or_no,
    content_words,
    names_a_time,
    naming_words,
    refers_back,
    says_opening_or_closing,
    stem,
    weekdays_asked,
    weekdays_named,
    words_to_weigh,
)

# Fewer words are a fragment, not worth quoting on its own.
MIN_QUOTE_WORDS = 4
# How much a word asking for a kind of fact ("cuesta", "abre") counts in a sentence beside
# one naming a thing ("implante", "piscina").
FACT_WORD_WEIGHT = 0.5
# How much a word of a sentence's heading counts in it when the sentence does not say it.
HEADING_WORD_WEIGHT = 0.75
# A table's row up to this long is quoted whole (a short answer's length, ANSWER_WORDS).
MAX_ROW_WORDS = 60

# The answer's closing line, never its first: the first sentence is the answer.
OFFLINE_LABEL = {
    "es": "(Modo sin conexión: citas literales de la base de conocimiento.)",
    "pt": "(Modo offline: citações literais da base de conhecimento.)",
    "en": "(Offline mode: quoted word for word from the knowledge base.)",
}


# Quoted word for word, a passage keeps its language: the answer says which when it is not
# the question's ("When does the pool open?" answered from a Spanish handbook).
SOURCE_LANGUAGE = {
    "es": {"pt": "(La fuente está en portugués.)", "en": "(La fuente está en inglés.)"},
    "pt": {"es": "(A fonte está em espanhol.)", "en": "(A fonte está em inglês.)"},
    "en": {"es": "(The source is in Spanish.)", "pt": "(The source is in Portuguese.)"},
}


# What a question asking whether something is there names and no page holds, said after
# the quotes: "¿hay wifi en el gimnasio?" gets the gym's page and that none speaks of wifi.
# Not "no information": the same counts hold for a word the pages say otherwise ("¿cuál es
# la clave del wifi?" over "la contraseña del wifi se pide en conserjería"), answered.
UNHEARD_OF = {
    "es": "(Nada de lo citado habla de {}.)",
    "pt": "(Nada do que foi citado fala de {}.)",
    "en": "(Nothing quoted mentions {}.)",
}


# What a quote's placeholder stands for: "Qual o e-mail do RH?" was answered "… para o e-mail
# [EMAIL]", which reads as the address.
WITHHELD = {
    "es": "(Entre corchetes, {}: datos personales ocultados al guardar el documento.)",
    "pt": "(Entre colchetes, {}: dados pessoais ocultados ao guardar o documento.)",
    "en": "(In brackets, {}: personal data hidden when the document was stored.)",
}


def _withheld_note(quoted: list[tuple[str, int]], language: str) -> str:
    placeholders = placeholders_in(" ".join(sentence for sentence, _ in quoted))
    if not placeholders:
        return ""
    return WITHHELD.get(language, WITHHELD["en"]).format(", ".join(placeholders))


def _unheard_of_note(prompt: Prompt) -> str:
    if not prompt.unheard_of:
        return ""
    words = ", ".join(f"“{word}”" for word in prompt.unheard_of)
    return UNHEARD_OF.get(prompt.language, UNHEARD_OF["en"]).format(words)


def _in_the_question_s_language(
    quoted: list[tuple[str, int]], language: str, sources: list[Source]
) -> tuple[list[tuple[str, int]], str]:
    """The quotes, and the note naming their language when none is the question's. A
    handbook written in several languages says each thing in each: a quote in another
    language is left out when one in the question's comes from its document (its
    translation). From another document it may be the answer: "Posso fazer obra no
    sábado?" lost the Spanish rules to the Portuguese gym page's "sábado".

    The note names the language of the passages quoted when they have one: "Hora extra de
    sala: R$ 60.", from a Portuguese deck, reads as Spanish too, and was said to be."""
    documents = {source.number: source.document for source in sources}
    languages = [_sentence_language(sentence) for sentence, _ in quoted]
    if language in languages:
        translated = {
            documents.get(number, "")
            for (_, number), said in zip(quoted, languages, strict=True)
            if said == language
        }
        kept = [
            (sentence, number)
            for (sentence, number), said in zip(quoted, languages, strict=True)
            if said in (language, "other") or documents.get(number, "") not in translated
        ]
        return kept, ""
    numbers = {number for _, number in quoted}
    passages = {_language_of(source) for source in sources if source.number in numbers}
    together = " ".join(sentence for sentence, _ in quoted)
    known = [passage for passage in passages if passage is not None]
    if len(passages) == 1 and known:
        source = known[0]
    else:
        source = (detect_language(together) or "other") if len(together.split()) >= 6 else "other"
    return quoted, SOURCE_LANGUAGE.get(language, {}).get(source, "")


def _sentence_language(sentence: str) -> str:
    """es, pt or en when the quote says so clearly, else "other" (Spanish and Portuguese
    share many short sentences' words). A few words say none: a table's "Clase: Spinning"
    read as English, and was left out of a Spanish table's classes."""
    if len(sentence.split()) < MIN_QUOTE_WORDS:
        return "other"
    return detect_language(sentence) or "other"


def _languages_of(prompt: Prompt) -> dict[int, str | None]:
    """Each passage's language, by its source's number (``_language_of``)."""
    return {source.number: _language_of(source) for source in prompt.sources}


def _language_of(source: Source) -> str | None:
    """The passage's language (None when unsure), read once per passage for the several
    rules that judge passages in the question's language only. A short one is read with
    its headings: "WhatsApp: [PHONE], E-mail: [EMAIL]" says no word of its own language,
    its "Pousada Maré Alta > Contato" does."""
    body = source.body or source.text
    return _passage_language(source.text if len(body.split()) < _FEW_WORDS else body)


_FEW_WORDS = 8


@functools.lru_cache(maxsize=256)
def _passage_language(text: str) -> str | None:
    return detect_language(text)


def _without_bullet(sentence: str) -> str:
    """A list item's sentence without the bullet its document's Markdown gave it ("- Gorro
    de baño", quoted «Gorro de baño»): a mark of layout, not of what it says. A number
    stays: "2. Entrega el DNI" says which step. Bold stays: the widget shows it bold."""
    return _BULLET.sub("", sentence, count=1)


_BULLET = re.compile(r"^[-*•]\s+")
_WORD = re.compile(r"\w+")


def _sentences(passage: str) -> list[str]:
    """Its sentences, line by line: knowledge.chunking's splitter knows abbreviations (a
    bare regex cut "Y. pestis" and quoted "pestis asociados…"). A title — a Markdown heading,
    or a short line with no final stop — is not a sentence to quote. A question goes with
    the sentence after it, its answer in an FAQ: quoted alone, "Pregunta: ¿Cuál es la
    contraseña del wifi?" told the user what they had asked. A Markdown FAQ's question is
    often bold ("**¿Dónde recojo los paquetes?**"), its mark after the question mark. A
    table's row is a record that answers whole, when short enough to quote: an FAQ sheet's
    "pergunta: Posso instalar programas? · resposta: Não. Peça a instalação…" was quoted
    up to "Não." for "Quem instala programas no notebook?"."""
    sentences = [
        sentence
        for line in _unwrapped(passage.splitlines())
        if not _is_title(line)
        for sentence in _row_or_sentences(line)
    ]
    joined: list[str] = []
    for sentence in sentences:
        # A short question opens the next pair: the language school's "¿Hay descuentos?"
        # had been quoted as the end of the answer before it.
        short_answer = _is_short(sentence) and not _asks(sentence)
        if joined and (_asks(joined[-1]) or ("?" in joined[-1] and short_answer)):
            joined[-1] = f"{joined[-1].rstrip()} {sentence.strip()}"
        else:
            joined.append(sentence)
    return joined


def _unwrapped(lines: list[str]) -> list[str]:
    """The lines, a sentence a PDF wrapped onto the next line joined again: "Aos domingos no
    almoço o" / "estacionamento conveniado…" was quoted as two, the first «Aos domingos no
    almoço o»: a line ending with no stop, the next opening in lowercase."""
    joined: list[str] = []
    for line in lines:
        if line[:1].islower() and joined and _runs_on(joined[-1].rstrip()):
            joined[-1] = f"{joined[-1].rstrip()} {line.strip()}"
        else:
            joined.append(line)
    return joined


def _runs_on(line: str) -> bool:
    """A line a sentence may run on from: no stop ends it, and it is no heading nor row."""
    return (
        bool(line)
        and not line.endswith(_STOPS)
        and not line.startswith("#")
        and not is_table_row(line)
    )


_STOPS = (".", "!", "?", ":", ";", "…")


def _row_or_sentences(line: str) -> list[str]:
    """A line's sentences, one too short to quote alone said with the one before it: the
    coworking's "Lockers can be rented for 20 euros a month. Ask at reception." lost its
    second sentence, which "Who do I ask about lockers?" asked for."""
    if is_table_row(line) and len(line.split()) <= MAX_ROW_WORDS:
        return [line.strip()]
    sentences: list[str] = []
    for sentence in split_sentences(line):
        if sentences and _is_short(sentence):
            sentences[-1] = f"{sentences[-1]} {sentence}"
        else:
            sentences.append(sentence)
    return sentences


def _asks(sentence: str) -> bool:
    return sentence.rstrip().rstrip("*_").endswith("?")


def _is_short(sentence: str) -> bool:
    """Too short to quote alone: in an FAQ's answer, said with the sentences before it
    ("¿Se puede pagar con tarjeta? Sí, aceptamos tarjeta y efectivo. No aceptamos
    cheques.": the last was dropped as a fragment, and "¿Aceptáis cheques?" got the one
    before it alone)."""
    return len(sentence.split()) < MIN_QUOTE_WORDS


def _is_title(line: str) -> bool:
    """A Markdown heading, or a short line with no final stop, no figure but a year and no
    list marker ("Normas de convivencia", a title slide's "Loja Verde Materiais de
    Construção — 2026"; not "- Piscina: de 8 a 20 h" nor a table's row "Cargo: Conserje ·
    Nombre: Luis"), nor a contact: "WhatsApp: [PHONE], E-mail: [EMAIL]" has no figure
    left once redacted, and "Qual o whatsapp?" was "no information"."""
    line = line.strip()
    if line.startswith("#"):
        return True
    if is_table_row(line) or _CONTACT.search(line):
        return False
    return (
        len(line.split()) <= 8
        and not line.endswith((".", "!", "?", ":", ";", "»", '"', ")"))
        and not line.startswith(("-", "*", "•"))
        and not any(c.isdigit() for c in _YEAR.sub("", line))
    )


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


class ExtractiveLLM:
    """No model: quotes the retrieved passages' sentences that answer the question best,
    best first, each cited, within the answer length the assistant is set to.

    A sentence's score (weights tuned on the shared sets' dev splits; BENCHMARKS.md):
    - how close its sentence group is to the question, from the vectors already stored
      (the passage's own similarity when it has none) — what it says;
    - the question's rare words it shares (idf over the candidates) — what it names;
    - for "how many / when / which year" a figure, for "who" a name, that the question does
      not already hold, for "e-mail / phone / web / address" a contact, for "how much does it
      cost / fee" a sum of money — the kind of fact asked for;
    - a small penalty per rank of its passage.

    How many it quotes depends on how sure it is (``_enough``): temperature and ``sure``
    tuned on the dev splits so that the median answer stays under 45 words."""

    name = OFFLINE_ANSWERER
    weights = {
        "meaning": 10.0, "words": 0.3, "figure": 0.3, "name": 0.2, "contact": 1.0, "money": 1.0,
        "sender": 1.0, "row": 1.0, "rank": 0.2,
    }  # fmt: skip
    temperature = 0.4
    sure = 0.8

    def stream(self, prompt: Prompt) -> Iterator[str]:
        prompt = self._past_a_weak_page(prompt)
        best = [] if self._says_nothing_asked(prompt) else self._best_sentences(prompt)
        if not best:
            yield NO_INFORMATION.get(prompt.language, NO_INFORMATION["en"])
            return
        quoted, note = _in_the_question_s_language(best, prompt.language, prompt.sources)
        for sentence, number in quoted:
            yield f"«{_without_bullet(sentence)}» [{number}]\n"
        # Words cannot be compared across languages: "Tem pão sem glúten?" over a Spanish
        # FAQ's "pan sin gluten" was told that nothing quoted mentions "pão".
        notes = (
            note,
            "" if note else _unheard_of_note(prompt),
            _withheld_note(quoted, prompt.language),
        )
        for said in notes:
            if said:
                yield said + "\n"
        yield "\n" + OFFLINE_LABEL.get(prompt.language, OFFLINE_LABEL["en"])

    # "No information" rather than unrelated quotes (the newcomer's finding: 3 of 5 questions
    # with no answer in the documents got quotes): when the best passages hold too little of
    # what the question names, or they barely passed the calibrated floor and hold less than
    # some. "What it names" weighs each word by its rarity in the scope (the passages' word
    # shares); without them, each word alike. Tuned on the dev splits with half of the
    # articles as knowledge (bench_answers --unanswerable article; BENCHMARKS.md "Answers").
    unsure_coverage = 0.2
    unsure_margin = 0.04  # over the calibrated floor (e5-small's 0.82)
    unsure_coverage_near_floor = 0.4

    def _past_a_weak_page(self, prompt: Prompt) -> Prompt:
        """The prompt without its pages in the question's language when the best of them
        barely passed, holds little of the question, and a page in another language is
        closer to it: "How many vacation days do I get?" found the English handbook's pool
        page ("every day") first — the keyword search reads only the question's language —
        then the Portuguese policy's "30 dias de férias", closer by meaning although meaning
        runs lower across languages (BENCHMARKS.md "Questions across English"), and the
        handbook's page judged "no information"."""
        first = prompt.sources[0] if prompt.sources else None
        if first is None or not self._unsure(prompt, [first]):
            return prompt
        language_of = {s.number: _language_of(s) for s in prompt.sources}
        if language_of[first.number] != prompt.language:
            return prompt
        across = [
            s.score for s in prompt.sources if language_of[s.number] not in (None, prompt.language)
        ]
        if not across or max(across) <= first.score:
            return prompt
        kept = [
            s
            for s in prompt.sources
            if s.score >= max(across) or language_of[s.number] != prompt.language
        ]
        # Across languages only the meaning ranks them: the keyword search cannot.
        return replace(prompt, sources=sorted(kept, key=lambda s: -s.score))

    def _unsure(self, prompt: Prompt, top: list[Source]) -> bool:
        if _follows_up(prompt):
            coverage = _follow_up_coverage(prompt, top)
        else:
            coverage = _coverage(prompt.question, prompt.language, top)
        if coverage is None:
            return False
        near_floor = prompt.min_score > 0 and top[0].score < prompt.min_score + self.unsure_margin
        return coverage < self.unsure_coverage or (
            near_floor and coverage < self.unsure_coverage_near_floor
        )

    def _says_nothing_asked(self, prompt: Prompt) -> bool:
        """The passages do not say what is asked. Judged on those in the question's
        language: words cannot be compared across languages (a question in English about a
        Spanish handbook is answered from it, and says so). A handbook in several languages
        puts the question's page beside its translation: "Posso levar meu cachorro para a
        piscina?" was read over the pool's Spanish page too, and quoted its hours. Not when
        the best passage is in another language: the others in the question's are then
        further from it."""
        top = prompt.sources[:3]
        if asks_a_contact_alone(prompt.question) and any(
            _holds_the_contact_asked(s.body or s.text, prompt.question) for s in top
        ):
            return False  # "¿Cuál es el teléfono?": no page says "teléfono", one holds one
        if _asks_the_hours_alone(prompt) and any(
            _TIME_OF_DAY.search(fold(s.body or s.text)) for s in top
        ):
            return False  # "¿A qué hora abrís?": the hours say "Atendemos de 9:30 a 14:00"
        if _asks_a_price_alone(prompt) and any(_MONEY.search(fold(s.body or s.text)) for s in top):
            return False  # "¿Cuáles son los precios?": a gym's fees say "Cuota mensual: 29,90 €"
        if _asks_where_it_is_alone(prompt):
            # "¿Dónde estáis?": "Estamos en la calle del Mar 14", and no page of a
            # coworking's rules, which say no street, its parcels' "en recepción"
            return not any(says_a_street_address(s.body or s.text) for s in prompt.sources)
        if _language_of(prompt.sources[0]) not in (None, prompt.language):
            # "Aceitam cartão?" over a Spanish FAQ ("aceptamos tarjeta") is judged by
            # nothing, nor "¿Cuántos días de vacaciones tengo?" over a Portuguese policy's
            # "férias" by the Spanish pages after it that share only "días".
            return False
        if detect_language(" ".join(s.body or s.text for s in top)) != prompt.language:
            top = [s for s in top if _language_of(s) == prompt.language]
            if not top or top[0] is not prompt.sources[0]:
                return False
        return self._unsure(prompt, top)

    def _best_sentences(self, prompt: Prompt) -> list[tuple[str, int]]:
        candidates = _candidates(prompt)
        if not candidates:
            first = prompt.sources[0]
            return [((first.body or first.text)[:300], first.number)]
        if column := _the_column_asked(prompt) or _the_price_list(candidates, prompt):
            return [(c.sentence, c.number) for c in column]
        candidates = _from_passages_naming_it(candidates, prompt)
        if not _asks_what_a_header_says(prompt.question):
            candidates = [c for c in candidates if not c.sentence.startswith(sender_labels())]
        asks_price, asks_contact = (
            _asks_price(prompt.question) or _asks_the_price_before_of(prompt),
            _asks_contact_detail(prompt.question),
        )
        asks_length = _asks_how_long_alone(prompt.question)
        if (asks_price or asks_contact or asks_length) and self._names_only_what_no_page_holds(
            prompt
        ):
            return []
        if asks_price:
            # "¿cuánto cuesta la piscina?" is not answered by the pool's hours, nor "Quanto
            # custa reservar o salão?" by how to book it when a page names the sum.
            candidates = _pricing_what_is_asked(candidates, prompt)
            if not candidates:
                return []
        elif asks_contact:
            # "Qual é o telefone da portaria?" is not answered by how to book the party
            # room at the front desk: only a sentence holding a phone, an e-mail or a link.
            candidates = _holding_the_contact_asked(
                [c for c in candidates if _CONTACT.search(c.sentence)], prompt.question
            )
            if not candidates:
                return []
        elif _asks_where_it_is_alone(prompt):
            # "Qual o endereço do restaurante?", over an FAQ that says none, quoted its
            # phone's sentence, and "Onde fica a clínica?" the vet's "Somos uma clínica
            # exclusivamente médica" before its street: only a street address answers.
            addressed = [c for c in candidates if says_a_street_address(c.sentence)]
            if not addressed and asks_the_address(prompt.question):
                return []
            candidates = addressed or candidates
        elif _asks_the_hours_alone(prompt):
            # "¿Cuándo abren?" is not answered by when to deworm ("cada tres meses"), nor by
            # the puppies' first vaccine "a las 8 semanas": only by a time of day.
            # "Abre domingo?" is answered by a sentence saying Sundays too ("Cerramos los
            # domingos" says no time of day), or another word it says: "a que hora cierran
            # hoy sabado?", by "El acceso se cierra treinta minutos antes del cierre".
            # A weekday in any language: "¿Abren el domingo?" over an English library's
            # hours is answered by its "Day: Sunday · Opens: Closed · Closes: Closed", and
            # "Vocês abrem segunda?" not by "O salão do segundo andar".
            days = _times_named(prompt)
            weekdays = weekdays_asked(prompt.question, prompt.language)
            said = _words_besides_weekdays(prompt) if days else set()
            language_of = _languages_of(prompt)
            candidates = [
                c
                for c in candidates
                if _TIME_OF_DAY.search(fold(c.sentence))
                or said & content_words(c.sentence, prompt.language)
                or weekdays & weekdays_named(c.sentence, language_of[c.number])
            ] or candidates
            candidates = _without_rows_of_another_timetable(candidates)
            if weekdays:
                candidates = _saying_the_hours_of_the_day(candidates, prompt, weekdays)
                if not candidates:
                    return []
        elif asks_length:
            # "How long does the roast take?" over a menu saying no time quoted the roast's
            # price, and "¿Cuánto dura la clase de natación?" the pool's grid of start times.
            candidates = _timing_what_is_asked(candidates, prompt)
            if not candidates:
                return []
        candidates = _timed_of_what_came_before(candidates, prompt)
        candidates = _of_the_row_named_before(candidates, prompt)
        candidates = _rows_lacking_what_is_asked(candidates, prompt)
        candidates = _rows_on_the_day_asked(candidates, prompt)
        _score(
            candidates,
            prompt.question,
            prompt.language,
            self.weights,
            _asked_of(prompt),
            price_asked=asks_price,
        )
        across = {
            s.number for s in prompt.sources if _language_of(s) not in (None, prompt.language)
        }
        for candidate in candidates:
            candidate.across = candidate.number in across
        candidates.sort(key=lambda c: -c.score)
        candidates = _row_priced_most_or_least(candidates, prompt)
        # Two questions in one are not answered by the first's clear winner alone.
        at_least = 2 if _ASKS_ANOTHER.search(fold(prompt.question)) else 1
        chosen = _steps_in_order(self._enough(candidates, prompt.max_words, at_least))
        chosen = _the_hours_table(chosen, prompt)
        return _grid_rows_cut(chosen, prompt)

    def _names_only_what_no_page_holds(self, prompt: Prompt) -> bool:
        """Every word the question names is in no page of the scope, and the best passage
        is in its language: "¿Cuánto cuesta la sauna?", of a clinic's and a condominium's
        pages, quoted the clinic's prices, each another thing's. Not across languages:
        "Quanto custa o clareamento?" names what a Spanish FAQ calls "blanqueamiento"."""
        first = prompt.sources[0]
        return prompt.names_only_unknown and _language_of(first) in (None, prompt.language)

    def _enough(
        self, ranked: list[_Candidate], max_words: int, at_least: int = 1
    ) -> list[_Candidate]:
        """The best sentences, best first, until the answer is probably among them: a clear
        winner is quoted alone; close contenders join it (the answerer's scores read as
        probabilities, softmax at ``temperature``, until they add up to ``sure``; two at
        least for two questions in one). Within
        the answer length the assistant is set to — a sentence per 50 words, two at least —
        and a detailed answer, asked to say more, takes all its length allows."""
        best = ranked[0].score
        weights = [math.exp((c.score - best) / self.temperature) for c in ranked]
        total = sum(weights)
        most = max(2, max_words // 50)
        sure = self.sure if max_words <= ANSWER_WORDS["normal"] else math.inf
        chosen: list[_Candidate] = []
        covered = 0.0
        for candidate, weight in zip(ranked, weights, strict=True):
            if sure < math.inf and chosen and _by_meaning_alone(candidate, chosen[0]):
                continue
            if chosen and (
                (covered >= sure and len(chosen) >= at_least)
                or len(chosen) >= most
                or sum(c.words for c in chosen) + candidate.words > max_words
            ):
                break
            chosen.append(candidate)
            covered += weight / total
        return chosen


def _steps_in_order(chosen: list[_Candidate]) -> list[_Candidate]:
    """Numbered steps of one passage, in their order: "How do I reset my password?" quoted
    a guide's step 3, then 1, then 2, the best first."""
    if len({c.number for c in chosen}) > 1 or not all(_STEP.match(c.sentence) for c in chosen):
        return chosen
    return sorted(chosen, key=_step_number)


def _step_number(candidate: _Candidate) -> int:
    step = _STEP.match(candidate.sentence)
    return int(step.group(1)) if step else 0


# A numbered step, as a list item's text keeps its number: "1. Go to the portal…".
_STEP = re.compile(r"\s*(\d{1,2})[.)]\s")


def _row_named(sentence: str, naming: set[str], language: str) -> bool:
    """A table's row whose first cell the question names: "¿A qué hora abre la biblioteca
    el sábado?" asks the "Día: Sábados" row of the opening hours, not the sentence saying
    the study room also opens on Saturday afternoons in exam time."""
    if not naming or not is_table_row(sentence):
        return False
    # Named as a whole, or the most of it: "Quanto custa a hora extra de sala?" names no
    # "Sala privativa (4 pessoas)", whose row came before the slide's "Hora extra de sala".
    name = _row_name(sentence, language)
    return len(naming & name) * 2 >= len(name) > 0


def _row_name(row: str, language: str) -> set[str]:
    """The words of a table row's first cell, as compared ("Deluxe Double")."""
    _, _, first = row.split(" · ", 1)[0].partition(": ")
    return {word for word in content_words(first, language) if not word.isdigit()}


def _cell_named(sentence: str, naming: set[str], language: str) -> bool:
    """A table's row with a cell whose column and value the question both names: a class
    timetable's "Horário: 18:30 · … · Quarta: Pilates" answers "Que horas tem pilates na
    quarta?", not the 07:00 row's "Terça: Pilates · Quarta: Spinning" first."""
    if len(naming) < 2 or not is_table_row(sentence):
        return False
    for cell in sentence.split(" · "):
        column, _, value = cell.partition(": ")
        in_column = naming & content_words(column, language)
        # two words: "Aulas incluídas: 1 aula" names "aula" twice, and no class's day
        if in_column and naming & content_words(value, language) - in_column:
            return True
    return False


def _priced_where_named(sentence: str, naming: set[str], language: str) -> bool:
    """A sum right after a word the question names, in a sentence saying all it names, as
    a list of prices in one sentence gives it: "How much is Premium?" is answered by
    "…Standard (£34 a month) and Premium (£49 a month…)", not first by "Premium members
    can bring one guest per month free of charge"."""
    folded = fold(sentence)
    if not naming <= content_words(folded, language):
        return False  # "classes for Standard members": not "…Standard (£34 a month)…"
    for word in _WORD.finditer(folded):
        if content_words(word.group(), language) & naming:
            after = _BEFORE_A_SUM.match(folded, word.end())
            if _MONEY.match(folded, after.end() if after else word.end()):
                return True
    return False


# What may stand between a thing and its sum in a list of prices: "Premium (£49", "Pro: 49 €".
_BEFORE_A_SUM = re.compile(r"\s*[(:–—-]?\s*")


def _by_meaning_alone(candidate: _Candidate, best: _Candidate) -> bool:
    """Close to the best quote by meaning, it shares none of what the question says or asks
    for while the best does: a tour's keyword questions, "desayuno", "mascotas", each got
    a hotel e-mail's "Los turnos de verano van en el adjunto." after their answer. Not
    across languages, where words compare by chance (a name, a cognate): an English
    question over Spanish passages lost its answer, second, to that rule."""
    if best.across or candidate.across:
        return False
    return best.says_something_asked and not candidate.says_something_asked


def _follow_up_coverage(prompt: Prompt, top: list[Source]) -> float | None:
    """A follow-up's kind of fact is judged by the sentences quoted (a sum for a price),
    its passages by what the conversation names, each word alike: "How much does it
    cost?" after "Can I bring my dog?" was "no information", the pets' "£45 each way"
    saying neither "cost" nor "bring", and the shares weighing them as the dog. Or by the
    shares of all it says: "¿Y los domingos?" after the clinic's hours names a day no
    page says, and its "horario" is the hours'."""
    joined = _coverage(prompt.asked, prompt.language, top)
    named = content_words(" ".join(naming_words(prompt.asked)), prompt.language)
    if not named or joined is None:
        return joined
    said = [content_words(s.body or s.text, prompt.language) for s in top]
    return max(joined, *(len(named & words) / len(named) for words in said))


def _coverage(question: str, language: str, top: list[Source]) -> float | None:
    """The largest share of the question's words one of the passages holds: weighted by
    rarity when the search measured it, else each content word alike. None when the
    question names nothing to look for."""
    shares = [s.word_share for s in top]
    if all(share is not None for share in shares):
        return max(share for share in shares if share is not None)
    asked = content_words(words_to_weigh(question), language)
    if not asked:
        return None
    return max(len(asked & content_words(s.body or s.text, language)) / len(asked) for s in top)


@dataclass
class _Candidate:
    sentence: str
    number: int  # its source's
    rank: int  # its source's position in the retrieval
    meaning: float
    words: int = 0
    score: float = 0.0
    # it holds some of the question's words, or the kind of fact asked (a figure, a sum…)
    says_something_asked: bool = False
    across: bool = False  # its passage is in another language than the question
    heading: str = ""  # its section's heading: what each of its sentences is about
    named_before: bool = False  # a table's row a follow-up's question before named
    title: str = ""  # its document's title: what the whole document is about


def _an_item_priced(line: str) -> bool:
    """A price list's line naming a thing and its sum, whole though short: a salon's
    "Escova R$ 60" and "Manicure R$ 35" (typed with a tab between) were left out as
    fragments, and "Quanto custa a escova?" quoted the haircuts."""
    return _says_price(line) and bool(_NAMED_BESIDE_A_SUM.search(line))


_NAMED_BESIDE_A_SUM = re.compile(r"[^\W\d_]{3,}")


def _the_price_list(candidates: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """The prices asked alone over a price list ("Quais são os preços?" over a salon's
    "Escova R$ 60", "Manicure R$ 35"… quoted three lines of nine): its every line the
    passages hold, in their order, when they fit the answer. A line, not a sentence: no
    stop, a few words."""
    if _asks_a_price_alone(prompt):
        listing = candidates
    elif _asks_which_the_document_lists(prompt):
        # of the passages headed by what is named: "What desserts do you have?" is not the
        # starters'
        named = content_words(" ".join(naming_words(prompt.question)), prompt.language)
        listing = [
            c
            for c in candidates
            if named <= content_words(f"{c.title} {c.heading}", prompt.language)
        ]
    else:
        return []
    listed = [
        c
        for c in listing
        if c.words <= _PRICE_LINE_WORDS
        and not c.sentence.endswith(".")
        and not is_table_row(c.sentence)
        and _an_item_priced(c.sentence)
    ]
    if len(listed) < 3 or sum(c.words for c in listed) > prompt.max_words:
        return []
    return listed


_PRICE_LINE_WORDS = 10


def _candidates(prompt: Prompt) -> list[_Candidate]:
    """Every quotable sentence of the sources, once (a sentence repeated across sources is
    quoted from the best-ranked one), with its group's similarity."""
    candidates, seen = [], set()
    # A directory's "Recepção: [PHONE]" is whole, though short, when a contact is asked.
    contact_asked = _asks_contact_detail(prompt.question)
    for rank, source in enumerate(prompt.sources):
        # The body only: a heading path ("Normas > Comedor") is a title, not a fact.
        body = source.body or source.text
        heading, title = _section_heading(source), _document_title(source)
        groups = sentence_groups(body) or [" ".join(body.split())]
        for sentence in _sentences(body):
            sentence = sentence.strip()
            short = len(sentence.split()) < MIN_QUOTE_WORDS
            if (
                short
                and not (contact_asked and _CONTACT.search(sentence))
                and not _an_item_priced(sentence)
            ):
                continue  # fragments are not worth quoting on their own
            if fold(sentence) in seen:
                continue
            seen.add(fold(sentence))
            meaning = _group_score(sentence, groups, source)
            candidates.append(
                _Candidate(
                    sentence,
                    source.number,
                    rank,
                    meaning,
                    len(sentence.split()),
                    heading=heading,
                    title=title,
                )
            )
    return candidates


def _asks_the_hours_alone(prompt: Prompt) -> bool:
    """The question asks when something opens or closes, or its hours, and names nothing
    but the document and a time ("¿A qué hora abrís?", "Que horas abre o restaurante?",
    "Abre domingo?": over a vet's FAQ saying no Sunday, it was read as a follow-up of the
    consultation's price before it and quoted the price again). A time alone following
    the hours asked is that question again ("¿Y el domingo?" after Tuesday's hours quoted
    the library's address after its Sunday row)."""
    if asks_the_hours(prompt.question):
        return _names_only_the_document(prompt, besides=_times_named(prompt))
    # as searched too: "E domingo?" after "Posso fazer obra no sábado?" and "Até que horas?"
    # asks the works' hours
    before = _hours_asked_before_a_time(prompt)
    return bool(before) and _names_only_the_document(
        prompt, besides=_times_named(prompt), question=f"{before} {prompt.asked}"
    )


def _hours_asked_before_a_time(prompt: Prompt) -> str:
    """The question asking the hours that a time alone ("¿Y el domingo?", "E no sábado?")
    follows, directly or after other times alone ("¿Y el domingo?", then "¿Y los
    sábados?"); "" when it follows none. Not a day asked of something named before: "Em
    que dia?" after "Vocês atendem coelho?" asks the rabbits' day."""
    if not asks_again_of_a_time(prompt.question):
        return ""
    asked_before = _asked_before(prompt)
    for question in reversed(asked_before):
        if asks_the_hours(question):
            return question
        if not asks_again_of_a_time(question):
            return ""
    return ""


def _words_besides_weekdays(prompt: Prompt) -> set[str]:
    """The words the question says but its days of the week and its document's title: "Que
    horas fecha o clube na sexta?" is not answered by "Club manager: Mrs Helen Shaw"."""
    weekdays = [w for w in _WORD.findall(prompt.question) if weekdays_named(w, prompt.language)]
    title = _best_document_title(prompt)
    return content_words(prompt.question, prompt.language) - content_words(
        " ".join([*weekdays, title]), prompt.language
    )


def _times_named(prompt: Prompt) -> set[str]:
    """The days, months and times of day the question names ("domingo"), as compared."""
    return _times_named_in(prompt.question, prompt.language)


def _times_named_in(question: str, language: str) -> set[str]:
    named = [word for word in naming_words(question) if names_a_time(word)]
    return content_words(" ".join(named), language)


def _asks_where_it_is_alone(prompt: Prompt) -> bool:
    """The question asks where something is, or its address, and names nothing but the
    document ("¿Dónde estáis?", "Onde fica a autoescola?"), nor follows one naming
    something ("¿Hay farmacia?" then "¿Dónde está?")."""
    return (
        not prompt.asked and asks_where_it_is(prompt.question) and _names_only_the_document(prompt)
    )


def _without_rows_of_another_timetable(candidates: list[_Candidate]) -> list[_Candidate]:
    """The opening hours asked are not a class's: "¿A qué hora cerráis el miércoles?"
    quoted spinning's "Día: Lunes y miércoles · Hora: 19:00" before the gym's "abre de
    lunes a viernes de 6:30 a 23:00". A table's row saying no opening or closing is left
    out when another candidate says one."""

    def other(candidate: _Candidate) -> bool:
        return is_table_row(candidate.sentence) and not says_opening_or_closing(candidate.sentence)

    if all(map(other, candidates)):
        return candidates
    return [c for c in candidates if not other(c)]


def _saying_the_hours_of_the_day(
    candidates: list[_Candidate], prompt: Prompt, asked: set[int]
) -> list[_Candidate]:
    """The hours of a day asked are not other days' classes ("A piscina abre no domingo?"
    quoted a weekday grid's "Lunes: Aquagym" rows), nor when to call ("Is the club open on
    Saturday?" quoted "Phone: … (from 2pm)"). A sentence saying an opening or a closing
    answers, and one naming days, whichever ("open Monday to Thursday" says not Sunday, as
    does the booking line's "de segunda a sábado, das 8h às 20h") unless another names
    one asked; a table's row only naming the day or none, and a sentence naming no day
    only holding no contact. None is "no information"."""
    language_of = _languages_of(prompt)

    def answers(candidate: _Candidate, days: set[int]) -> bool:
        if says_opening_or_closing(candidate.sentence):
            return True
        if is_table_row(candidate.sentence):
            return not days or bool(days & asked)
        return bool(days) or not _CONTACT.search(candidate.sentence)

    named = [(c, weekdays_named(c.sentence, language_of[c.number])) for c in candidates]
    answering = [(c, days) for c, days in named if answers(c, days)]
    if any(days & asked for _, days in answering):
        # "E no fim de semana?" is answered by "Aos sábados o espaço abre das 9h às 14h…",
        # not by the reception's "de segunda a sexta, das 8h às 19h" before it
        answering = [(c, days) for c, days in answering if not days or days & asked]
    return [c for c, _ in answering]


def _asks_which_the_document_lists(prompt: Prompt) -> bool:
    """ "Que serviços vocês fazem?" over "Salão Bela Vista – Tabela de serviços": which of
    what the document's title names there are, its list (it quoted the opening hours)."""
    named = naming_words(prompt.question)
    return (
        bool(named)
        and bool(_ASKS_WHICH.match(fold(prompt.question)))
        and not _follows_up(prompt)
        and _names_only_the_document(prompt)
    )


def _asks_a_price_alone(prompt: Prompt) -> bool:
    """The question asks what things cost and names nothing but the document, not following
    up ("¿Cuáles son los precios?", "Quanto custa?", "What are the prices?")."""
    return (
        _asks_price(prompt.question)
        and not _follows_up(prompt)
        and _names_only_the_document(prompt)
    )


def _names_only_the_document(
    prompt: Prompt, besides: set[str] | None = None, question: str = ""
) -> bool:
    """What the question names (and the ``question`` it follows), but ``besides``, is
    nothing, or only in its best passage's document title: "Que horas abre o restaurante?"
    over "Restaurante Mar Azul — Perguntas frequentes" names nothing inside it (and quoted
    "Às segundas-feiras o restaurante fica fechado", the one sentence saying "restaurante",
    before the hours)."""
    asked = f"{question} {prompt.question}"
    named = content_words(" ".join(naming_words(asked)), prompt.language)
    named -= (besides or set()) | _times_named_in(question, prompt.language)
    if not named:
        return True
    title = _best_document_title(prompt)
    return named <= content_words(title, prompt.language)


def _asked_before(prompt: Prompt) -> list[str]:
    """The user's earlier questions of the conversation, oldest first."""
    return [m["text"] for m in prompt.messages[:-1] if m["role"] == "user"]


def _best_document_title(prompt: Prompt) -> str:
    """The title of the best passage's document ("" with no passage)."""
    return _document_title(prompt.sources[0]) if prompt.sources else ""


def _document_title(source: Source) -> str:
    """The first heading of the passage's path, its document's title ("Restaurante Mar Azul
    — Perguntas frequentes"), when it has one."""
    path = source.text.removesuffix(source.body).strip() if source.body else ""
    first = path.split(">")[0].strip()
    return "" if _NUMBERED_SECTION.match(first) else first


def _section_heading(source: Source) -> str:
    """The heading of the passage's own section ("Piscina" under "Manual del residente", a
    slide's title), when it is a section's: a document's title alone is not (on the shared
    sets, whose passages are each headed by their article's title, crediting the title's
    words to every sentence cost 6 of the dev splits' 1,040 leads). A deck's "Slide 2:
    Horário de funcionamento" is: "Qual o horário da loja no sábado?" found the slide's
    "Domingos e feriados: fechado" saying nothing asked; its speaker notes are of it too.
    """
    path = source.text.removesuffix(source.body).strip() if source.body else ""
    headings = [heading.strip() for heading in path.split(">")] if path else []
    if len(headings) > 1 and headings[-1] in speaker_notes_headings():
        headings.pop()
    slide = slide_title().match(headings[-1]) if headings else None
    if slide:
        return slide.group(1)
    if len(headings) > 1 or (headings and _NUMBERED_SECTION.match(headings[-1])):
        return headings[-1]
    return ""


# A heading numbered as a section is one, though no title heads it ("4. Freezing your
# membership" in a gym's terms whose title the PDF does not hold).
_NUMBERED_SECTION = re.compile(r"(?:\d+\.)+\d*\s+\w")  # "4. …", "2.1 …"; not "2024 Price List"


def _from_passages_naming_it(candidates: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """The sentences of the passages holding some of what the question names, when some
    do: "¿cuánto cuesta la piscina?" quoted the gym's fee, whose passage says nothing of
    the pool, after the pool's hours. All of them when the shares were not measured or no
    passage holds any (a question asked across languages)."""
    shares = {source.number: source.word_share for source in prompt.sources}
    if None in shares.values() or not any(shares.values()):
        return candidates
    # a day named is in a range ("¿A qué hora cerráis el miércoles?": "El gimnasio abre
    # de lunes a viernes de 6:30 a 23:00")
    days = weekdays_asked(prompt.question, prompt.language)
    on_the_day = {s.number for s in prompt.sources if days & weekdays_named(s.body or s.text, None)}
    kept = [c for c in candidates if shares[c.number] or c.number in on_the_day]
    # A share may be of words asking for a kind of fact alone: "¿y cuánto cuesta eso?"
    # after "¿A qué hora abre la piscina?" quoted the gym's fee, its page holding "abre".
    named = _named_in_the_conversation(prompt)
    if not named:
        return kept
    words_of = _with_kin(named, [content_words(s.text, prompt.language) for s in prompt.sources])
    in_its_language = {
        s.number for s in prompt.sources if _language_of(s) in (None, prompt.language)
    }
    naming = {
        source.number
        for source, words in zip(prompt.sources, words_of, strict=True)
        if (named & words or source.number in on_the_day) and source.number in in_its_language
    }
    if not naming:  # words cannot judge ("a qué hora abre la pileta?": no page says it)
        return kept
    # Words cannot be compared across languages: a page in another is kept ("Quanto custa
    # reservar o salão de festas?" is answered by a Spanish page's "La fianza es de cien
    # euros"), but for a follow-up, which names nothing of its own: "¿y cuánto cuesta eso?"
    # after the pool's hours had quoted the handbook's Portuguese gym page's fee.
    if not prompt.asked or prompt.asked == prompt.question:
        naming |= {s.number for s in prompt.sources} - in_its_language
    # None when the naming passages' sentences are all quoted from a passage before them
    # (overlapping chunks): the answerer then failed on an empty list.
    return [c for c in kept if c.number in naming] or kept


def _asked_of(prompt: Prompt) -> list[str]:
    """What a follow-up that names nothing of its own asks of: what the questions before
    it named. "Onde?" after the year-end party's date quoted, after the party's sentence,
    how to confirm and the maintenance day's, as close to "where?" alone. Not a question
    naming something new of it: "E para visitantes?" after the wifi's password quoted the
    members' password again; "E se não encher?" after the full tank, its "tanque cheio"
    before "Se faltar combustível, cobramos…"."""
    question = prompt.question
    if not prompt.asked or prompt.asked == question:
        return []
    if not (
        asks_with_no_subject(question)
        or asks_whether_it_is(question)
        or asks_again_of_a_time(question)
    ):
        return []
    return named_before(prompt.asked, naming_words(question))


def _timed_of_what_came_before(candidates: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """A follow-up asking a time of day of what came before ("E até que horas pode ser
    usado?" after the party room's price) is answered by a sentence saying a time of day
    and, itself or its section, what was named: "As festas devem terminar até as 23h",
    under "Do salão de festas", came after the room's booking and price, closer by
    meaning to the two questions joined."""
    if _figure_asked(prompt.question) != "time" or not (named := _asked_of(prompt)):
        return candidates
    language = prompt.language
    before = content_words(" ".join(named), language)
    timed = [
        c
        for c in candidates
        if _TIME_OF_DAY.search(fold(c.sentence))
        and before & content_words(f"{c.heading} {c.sentence}", language)
    ]
    return timed or candidates


def _of_the_row_named_before(candidates: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """A follow-up naming no row of a table, only nothing or a column ("¿Y cuánto dura?"
    after the cleaning's price, "¿Qué alérgenos tiene?" after the sea bass's), asking it
    again of another time ("And per week?" after the SUV's daily price, which no column
    says in English), or whether it is so ("É obrigatório?" after the GPS's), asks about
    the row named before: the other rows answer it alike, and three were quoted. That row
    is then weighed as a row the question names."""
    if not prompt.asked or prompt.asked == prompt.question:
        return candidates
    named_now = naming_words(prompt.question)
    passages = [source.body or source.text for source in prompt.sources[:3]]
    named = named_before(prompt.asked, named_now)
    if asks_how_long(prompt.question):  # "¿Tarda mucho?" names nothing that lasts
        named_now = [word for word in named_now if fold(word) not in _DURATION_WORDS]
    if not _asks_of_a_row_named_before(prompt.question, named_now, named, passages):
        return candidates
    language_of = _languages_of(prompt)

    def names_it(row: _Candidate) -> bool:
        return _row_says(row.sentence, named, language_of[row.number])

    def naming_of(row: _Candidate) -> set[str]:
        return {stem(word, language_of[row.number]) for word in named}

    def names_it_by_name(row: _Candidate) -> bool:
        language = language_of[row.number] or prompt.language
        return _row_named(row.sentence, naming_of(row), language) and said_of(row) == most

    def said_of(row: _Candidate) -> int:
        language = language_of[row.number] or prompt.language
        return len(naming_of(row) & _row_name(row.sentence, language))

    rows = [c for c in candidates if is_table_row(c.sentence)]
    # the row naming most of it: "And at the weekend?" after the Deluxe Double's price is
    # not the Classic Double's too
    most = max(map(said_of, rows), default=0)
    # The row named by its name (its first cell), when one is: "¿Y el vidrio?" after the
    # paper's day in "Centro" quoted the industrial estate's row too, whose "No hay
    # recogida" says the "recogen" asked before.
    for naming in (names_it_by_name, names_it):
        if named_rows := [row for row in rows if naming(row)]:
            last = {id(row) for row in _named_last(named_rows, prompt, language_of)}
            kept = [c for c in candidates if not is_table_row(c.sentence) or id(c) in last]
            return [replace(c, named_before=is_table_row(c.sentence)) for c in kept]
    return candidates


def _named_last(
    rows: list[_Candidate], prompt: Prompt, language_of: dict[int, str | None]
) -> list[_Candidate]:
    """Of the rows the questions before a follow-up name, those the latest of them naming
    any names: "¿En qué sala?" after "¿A qué hora es yoga?" and "¿Y pilates?" asks the
    pilates' room, and had quoted the yoga's row first. Two rows one question names stay.
    The questions as searched (``prompt.asked``, a misspelt word respelt), each ending with
    its question mark; without one, they read as one question, naming every row."""
    earlier = _QUESTION_END.split(prompt.asked)[:-1]
    for question in reversed(earlier):
        named = naming_words(question)
        if latest := [
            row for row in rows if _row_says(row.sentence, named, language_of[row.number])
        ]:
            return latest
    return rows


_QUESTION_END = re.compile(r"(?<=\?)\s+")


def _asks_of_a_row_named_before(
    question: str, named_now: list[str], named: list[str], passages: list[str]
) -> bool:
    if names_a_column_of_a_row(named_now, named, passages):
        return True  # "Tem armário?" after the Fixo plan's price: its "Armário" cell
    if not named_now:
        return True  # "¿Y cuánto dura?"
    # "¿Y el domingo?" names a row of its own; "É obrigatório?" after the GPS's price
    # says a word of the child seat's row of what was named before.
    if names_a_row(named_now, passages) and not asks_whether_it_is(question):
        return False
    return names_only_columns(named_now, passages) or refers_back(question)


def _the_column_asked(prompt: Prompt) -> list[_Candidate]:
    """A question naming a table's column and none of its rows, nothing else but what the
    table is about, is answered by that column of every row: "Quais aulas tem na segunda?"
    over a timetable of times by weekdays quoted the page's sentence on classes; now each
    row's "Horário: 07:00 · Segunda: Spinning", its empty cells ("–") left out; of a
    column saying yes or no, the rows saying yes ("¿Qué tratamientos se pueden
    financiar?"). Every row of the table the passages hold, and only when all fit the
    answer: a part of the column would read as all of it. Not a follow-up of a row named
    before ("E na quinta?" after zumba on Mondays asks zumba's row), nor the opening hours
    asked of a day, nor when, the cheapest or what lacks something (rules of their own)."""
    folded = fold(prompt.question)
    if (
        _asks_the_hours_alone(prompt)
        or _ASKS_WHEN.search(folded)
        or asks_cheapest_or_dearest(prompt.question)
        or _negates(folded, prompt.language)
    ):
        return []
    named = naming_words(prompt.question)
    named_earlier = named_before(prompt.asked, named) if _follows_up(prompt) else []
    tables = _tables(prompt)
    for first, rows in tables.items():
        language = _language_of(prompt.sources[rows[0].rank]) or prompt.language
        wanted = _column_asked_of(rows, named, language, prompt)
        if not wanted:
            continue
        # a word of the column's name said in a cell names no row ("Observaciones: …
        # en temporada alta" for "¿Cuánto cuesta en temporada alta?")
        in_column = content_words(" ".join(wanted), language)
        naming = [w for w in named if stem(w, language) not in in_column] + named_earlier
        others = [row for name, table in tables.items() if name != first for row in table]
        asked = {stem(word, language) for word in named}
        # the rows' kind is this table's: "¿Qué clases hay?", "Qual plano inclui armário?"
        of_its_rows = wanted == [first] or bool(asked & content_words(first, language))
        if (
            any(_names_the_row(row.sentence, naming, language, prompt) for row in rows)
            or any(_row_named(row.sentence, asked, language) for row in rows)
            or any(
                _names_the_row(row.sentence, named + named_earlier, language, prompt)
                for row in others
                if not of_its_rows
            )
        ):
            # "Que horas tem pilates na quarta?" names a cell, "Quanto custa o plano
            # mensal?" the "Plano: Mensal" row (though "Mensalidade" is a column): that
            # row answers; "Tem armário?" names the extras' "Armário avulso", not each
            # plan's cell
            return []
        column = _saying_yes([cut for row in rows if (cut := _cells_of(row, wanted))])
        if column and sum(c.words for c in column) <= prompt.max_words:
            return column
    return []


def _negates(folded: str, language: str) -> bool:
    """The question says "not": Portuguese "no" is "in the" ("Tem aula no sábado?")."""
    negation = _NEGATION - {"no"} if language == "pt" else _NEGATION
    return not negation.isdisjoint(_WORD.findall(folded))


def _follows_up(prompt: Prompt) -> bool:
    """The search read the question with the ones it follows ("E na quinta?")."""
    return bool(prompt.asked) and prompt.asked != prompt.question


def _column_asked_of(
    rows: list[_Candidate], named: list[str], language: str, prompt: Prompt
) -> list[str]:
    """The columns of the table of ``rows`` (not the first, the rows' names) the question
    names, when it names nothing but the table's columns and what it is about; or, not
    following up what was named, those holding the price or the length it asks
    ("¿Cuánto cuesta?" after the guided tour asks the tour's, not the bikes' prices)."""
    columns = list(dict.fromkeys(name for row in rows for name in _column_names(row.sentence)))
    asked = {stem(word, language) for word in named}
    spelt = [_units_spelt_out(column) for column in columns]
    about = content_words(" ".join((*spelt, rows[0].heading, rows[0].title)), language)
    # a day is its column in any language: "¿Qué hay el martes?" over "Tuesday", and what
    # a timetable holds is asked in any language: "¿Qué actividades hay el jueves?" over
    # "Weekly activities"
    days = _days_naming_columns(columns[1:], named, prompt.language)
    held = [word for word in named if fold(word) in _WHAT_IS_ON] if days else []
    # what a row includes is its column saying yes: "Qual plano inclui armário?"
    held += [word for word in named if fold(word) in _INCLUDES]
    if len(rows) < 2 or not asked <= about | {stem(word, language) for word in [*days, *held]}:
        return []
    as_named = dict(zip(spelt[1:], columns[1:], strict=True))
    figures = set(_WRITTEN_FIGURE.findall(prompt.question))
    named_columns = [as_named[c] for c in _columns_named(spelt[1:], asked, language, figures)]
    named_columns = named_columns or list(dict.fromkeys(days.values()))
    if named_columns and _asks_price(prompt.question):
        # a column naming no price, with the prices: "Quanto custa o plano com armário?"
        priced = _columns_of_the_kind_asked(rows, columns[1:], prompt.question)
        if not set(priced) & set(named_columns):
            named_columns = [c for c in columns[1:] if c in priced or c in named_columns]
    # following up what was named ("¿Cuánto cuesta?" after the guided tour), not a table
    # asked whole ("¿Y cuánto duran?" after its prices)
    if named_columns or (_follows_up(prompt) and named_before(prompt.asked, named)):
        return named_columns
    if kind := _columns_of_the_kind_asked(rows, columns[1:], prompt.question):
        return kind
    # which of them there are: "¿Qué tratamientos hay?" is the first column, the rows' names
    rows_kind = content_words(columns[0], language)
    if asked and asked <= rows_kind and _ASKS_WHICH.match(fold(prompt.question)):
        return columns[:1]
    return []


# What a row includes, in the three languages: asked of a table, its column saying yes.
_INCLUDES = frozenset({
    "incluye", "incluyen", "inclui", "incluem", "include", "includes", "incluido", "incluida",
    "incluidos", "incluidas", "incluso", "inclusa", "included",
})  # fmt: skip
# What a timetable holds, in the three languages.
_WHAT_IS_ON = frozenset({
    "actividad", "actividades", "clase", "clases", "sesion", "sesiones", "curso", "cursos",
    "atividade", "atividades", "aula", "aulas", "sessao", "sessoes",
    "activity", "activities", "class", "classes", "lesson", "lessons", "session", "sessions",
    "course", "courses",
})  # fmt: skip


def _days_naming_columns(columns: list[str], named: list[str], language: str) -> dict[str, str]:
    """Of the words named, each naming a day of the week that a column of a timetable names
    alone, in any language ("martes", "Tuesday"), and that column."""
    by_day = {day: c for c in columns if _a_day(c) for day in weekdays_named(c, None)}
    return {
        word: by_day[day]
        for word in named
        for day in weekdays_named(word, language)
        if day in by_day
    }


def _columns_of_the_kind_asked(
    rows: list[_Candidate], columns: list[str], question: str
) -> list[str]:
    """A price or a length asked of a table as a whole ("¿Cuáles son los precios?", "¿Cuánto
    duran los tratamientos?" quoted three of a dentist's seven rows, whole): the columns
    naming a price, or whose every cell is a sum ("Matrícula: 15 €"), or naming a length."""
    if _asks_price(question):
        priced = [
            column
            for column in columns
            if _PRICE_COLUMN.search(fold(column)) or _every_cell_a_sum(rows, column)
        ]
        # what each is priced per stays beside it: "Unidade: inteiro (1,2 kg)"
        return [c for c in columns if c in priced or _UNIT_COLUMN.search(fold(c))] if priced else []
    if asks_how_long(question):
        return [column for column in columns if _LENGTH_COLUMN.search(fold(column))]
    return []


def _every_cell_a_sum(rows: list[_Candidate], column: str) -> bool:
    """Every cell of ``column`` saying something is a sum: "—" says there is none."""
    cells = [
        value
        for row in rows
        for name, value in _cells(row.sentence)
        if name == column and re.search(r"\w", value)
    ]
    return bool(cells) and all(_MONEY.search(fold(value)) for value in cells)


def _units_spelt_out(column: str) -> str:
    """A column's name with its units' abbreviations spelt out in the three languages:
    "Quanto custa a aula de 60 minutos?" names "Aula individual (60 min)"."""
    return _UNIT_ABBREVIATION.sub(lambda m: f"{m.group()} {_UNITS[m.group().lower()]}", column)


_UNITS = {
    "min": "minutos minutes",
    "mins": "minutos minutes",
    "h": "horas hours",
    "hr": "horas hours",
    "hrs": "horas hours",
}
_UNIT_ABBREVIATION = re.compile(rf"(?<=\d )(?:{'|'.join(_UNITS)})\b|(?<=\d)(?:h|min)\b", re.I)


# A column saying what a price is counted per: "Unidade", "Unidad", "Unit", "Per".
_UNIT_COLUMN = re.compile(r"\b(unidade|unidad|unit|per|por)\b")
# A column holding how long something lasts: "Duración", "Duração", "Duration".
_LENGTH_COLUMN = re.compile(r"\b(duracion|duracao|duration|length)\b")


def _saying_yes(column: list[_Candidate]) -> list[_Candidate]:
    """Of a column whose every cell says yes or no ("Financiación: Sí (24 meses)"), the
    rows saying yes; any other column whole."""
    answers = [fold(_WORD.findall(row.sentence.rpartition(": ")[2])[0]) for row in column]
    if not set(answers) <= _YES | _NONE or not set(answers) & _YES:
        return column
    return [row for row, answer in zip(column, answers, strict=True) if answer in _YES]


_YES = frozenset({"si", "sim", "yes"})


def _the_hours_table(chosen: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """The hours asked alone, naming no day, answered by a table's row are its every row:
    "What are your opening hours?" quoted a library's Monday, Thursday and Tuesday rows of
    seven. Asked of days together, the rows of those days: "Is the library open every
    day?" quoted Sunday's, Thursday's and Friday's. Only when they all fit the answer, and
    not for a follow-up: "¿A qué hora?" after pilates' day asks pilates' row."""
    if not chosen or not is_table_row(chosen[0].sentence):
        return chosen
    days = weekdays_asked(prompt.question, prompt.language)
    if (_times_named(prompt) and not days) or _follows_up(prompt):
        return chosen  # "¿Abre en agosto?" is not answered by every day's row
    if not _asks_the_hours_alone(prompt):
        return chosen
    rows = _tables(prompt).get(_column_names(chosen[0].sentence)[0], [])
    if days:
        rows = [row for row in rows if not _on_other_days(row.sentence, days)]
    words = sum(len(row.sentence.split()) for row in rows)
    return rows if len(rows) > len(chosen) and words <= prompt.max_words else chosen


def _grid_rows_cut(chosen: list[_Candidate], prompt: Prompt) -> list[tuple[str, int]]:
    """The quotes, a timetable's rows cut to the cells asked (``_cells_named_in_a_grid``):
    a row whose cells name less of the question than another's is left out ("¿A qué hora
    es natación infantil?" quoted the 19:00 row's "Natación adultos" after the 17:30 row's
    "Natación infantil")."""
    cut = [(c, *_cells_named_in_a_grid(c.sentence, prompt)) for c in chosen]
    best = max((named for _, _, named in cut if named is not None), default=0)
    return [(sentence, c.number) for c, sentence, named in cut if named in (None, best)]


def _cells_named_in_a_grid(sentence: str, prompt: Prompt) -> tuple[str, int | None]:
    """A timetable's row (its columns days) quoted for a class the question names, cut to
    its first cell and the cells naming most of it, and how many words they name (None for
    any other sentence, 0 for a row naming none, -1 for one whose day asked is empty):
    "When is yoga?" quoted the 5:15pm row's every weekday; now "Time: 5:15pm · Wednesday:
    Yoga". A day named too keeps its cell alone ("Que horas tem pilates na quarta?"); a
    conversation's class named before counts ("E na quinta?" after zumba on Mondays); the
    row's time written in the question names it, its cell on the day named ("¿Qué hay el
    lunes a las 19:00?")."""
    cells = sentence.split(" · ")
    columns = _column_names(sentence)[1:]
    if len(columns) < 2 or not is_table_row(sentence) or not all(map(_a_day, columns)):
        return sentence, None
    question = prompt.asked if _follows_up(prompt) else prompt.question
    language = prompt.language
    asked = content_words(" ".join(naming_words(question)), language)
    said = {cell: len(asked & content_words(_value_of(cell), language)) for cell in cells}
    most = max(said[cell] for cell in cells[1:])
    kept = [cell for cell in cells[1:] if said[cell] == most]
    days = weekdays_asked(question, language)

    def on_a_day_asked(cell: str) -> bool:
        return bool(weekdays_named(cell.rpartition(": ")[0], None) & days)

    on_a_day_named = [
        c
        for c in kept
        if on_a_day_asked(c) or asked & content_words(c.rpartition(": ")[0], language)
    ]
    # its time written in the question names the row ("¿Qué hay el lunes a las 19:00?")
    timed = bool(set(_WRITTEN_FIGURE.findall(question)) & set(_WRITTEN_FIGURE.findall(cells[0])))
    if not (most or (timed and on_a_day_named)):
        # names nothing of it: whole, and after any row that does; but for the day asked
        # alone, that day's cell ("¿Abre la piscina el lunes?" over a grid of classes),
        # left out when empty and another row's is not ("Hora: 17:30 · Viernes: –")
        on_the_day = [c for c in cells[1:] if on_a_day_asked(c)]
        if not on_the_day:
            return sentence, 0
        empty = not any(_WORD.search(_value_of(cell)) for cell in on_the_day)
        return " · ".join([cells[0], *on_the_day]), -1 if empty else 0
    # a row holding it on the day named comes before one holding it on another day
    return " · ".join([cells[0], *(on_a_day_named or kept)]), most + timed + bool(on_a_day_named)


def _a_day(column: str) -> bool:
    words = column.split()
    return len(words) == 1 and names_a_time(words[0])


def _column_names(row: str) -> list[str]:
    return [column for column, _ in _cells(row)]


def _cells(row: str) -> list[tuple[str, str]]:
    """A table row's cells, each its column's name and its value: "Preço: R$ 45" is
    ("Preço", "R$ 45"), split at its last ": " ("Hora: 9:00" is ("Hora", "9:00"))."""
    return [
        (column, value) for column, _, value in (cell.rpartition(": ") for cell in row.split(" · "))
    ]


def _columns_named(
    columns: list[str], asked: set[str], language: str, figures: set[str]
) -> list[str]:
    """The columns whose names say the most of ``asked`` and of the question's ``figures``:
    "temporada alta" is the "Temporada alta (por noche)" column, not "Temporada baja (por
    noche)" too; "aula de 60 minutos" is "Aula individual (60 min)", not "(30 min)"."""
    said = {
        column: len(asked & content_words(column, language))
        + len(figures & set(_WRITTEN_FIGURE.findall(column)))
        for column in columns
    }
    most = max(said.values(), default=0)
    return [column for column, count in said.items() if count == most] if most else []


def _tables(prompt: Prompt) -> dict[str, list[_Candidate]]:
    """The passages' table rows, each once, grouped by their first column's name in their
    order: a row whose last cells are empty holds fewer columns ("Concepto: Adulto ·
    Temporada baja (por noche): 6 € · Temporada alta (por noche): 8,50 €", no
    "Observaciones")."""
    tables: dict[str, list[_Candidate]] = {}
    seen = set()
    for rank, source in enumerate(prompt.sources):
        for line in (source.body or source.text).splitlines():
            line = _without_bullet(line.strip())
            if not is_table_row(line) or fold(line) in seen:
                continue
            seen.add(fold(line))
            heading, title = _section_heading(source), _document_title(source)
            row = _Candidate(line, source.number, rank, 0.0, heading=heading, title=title)
            tables.setdefault(_column_names(line)[0], []).append(row)
    return tables


def _names_the_row(row: str, named: list[str], language: str, prompt: Prompt) -> bool:
    """A cell of ``row`` says a word of ``named``, or a figure the question writes ("Que
    aula tem às 12:15 na terça?" names the 12:15 row)."""
    figures = set(_WRITTEN_FIGURE.findall(prompt.question))
    values = " ".join(value for _, value in _cells(row))
    return _row_says(row, named, language) or bool(figures & set(_WRITTEN_FIGURE.findall(values)))


# A figure as a cell writes it, whole: "12:15", "8,50", "2.390".
_WRITTEN_FIGURE = re.compile(r"\d+(?:[:.,h]\d+)*")
_ASKS_WHEN = re.compile(r"\b(cuando|quando|when)\b")
# Asking which there are: "¿Qué tratamientos hay?", "Quais planos vocês têm?".
_ASKS_WHICH = re.compile(r"\W*(?:que|quais|qual|cuales|cual|what|which)\b")


def _cells_of(row: _Candidate, wanted: list[str]) -> _Candidate | None:
    """The row cut to its first cell and the ``wanted`` columns' cells (its first cell alone
    when that is all wanted); None when those say nothing ("Sábado: –")."""
    cells = row.sentence.split(" · ")
    kept = [
        cell
        for cell, (column, value) in zip(cells[1:], _cells(row.sentence)[1:], strict=True)
        if column in wanted and re.search(r"\w", value)
    ]
    if not kept and wanted != _column_names(row.sentence)[:1]:
        return None  # but the rows' names alone when they are asked
    sentence = " · ".join([cells[0], *kept])
    return replace(row, sentence=sentence, words=len(sentence.split()))


def _rows_lacking_what_is_asked(candidates: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """A question asking which rows lack what a column names ("¿Qué platos no tienen
    alérgenos?", "Qual plano não tem fidelidade?") is answered by the rows whose cell in it
    says none ("Alérgenos: ninguno", "Fidelidade: sem fidelidade"): the others, which say
    the word, were quoted instead."""
    if _NEGATION.isdisjoint(_WORD.findall(fold(prompt.question))):
        return candidates
    named = naming_words(prompt.question)
    language_of = _languages_of(prompt)
    lacking = [
        c
        for c in candidates
        if is_table_row(c.sentence) and _says_none_of(c.sentence, named, language_of[c.number])
    ]
    return lacking or candidates


def _rows_on_the_day_asked(candidates: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """A question naming a day of the week leaves out the rows whose days are others and
    which name nothing else it asks:
    "¿Qué clases hay el martes?" quoted pilates' "Día: Lunes y viernes" after yoga's
    "Día: Martes y jueves", and "What classes are on Tuesday?" three rows of other days."""
    asked = weekdays_asked(prompt.question, prompt.language)
    if not asked:
        return candidates
    # a row naming what is asked stays: "¿A qué hora es pilates el jueves?" is answered
    # by pilates' Mondays and Fridays
    named = [w for w in naming_words(prompt.question) if not names_a_time(w)]
    language_of = _languages_of(prompt)
    kept = [
        c
        for c in candidates
        if not _on_other_days(c.sentence, asked)
        or _row_says(c.sentence, named, language_of[c.number])
    ]
    return kept or candidates


def _on_other_days(sentence: str, asked: set[int]) -> bool:
    if not is_table_row(sentence):
        return False
    days = [weekdays_named(value, None) for _, value in _cells(sentence)]
    said = set().union(*days)
    return bool(said) and not said & asked


def _says_none_of(row: str, named: list[str], language: str | None) -> bool:
    asked = {stem(word, language) for word in named}
    for column, value in _cells(row):
        words = _WORD.findall(fold(value))
        if asked & content_words(column, language) and words and words[0] in _NONE:
            return True
    return False


def _row_priced_most_or_least(candidates: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """ "¿Cuál es el plato más caro?", "Qual o plano mais barato?", "What's the cheapest
    plan?": the row of the asked table with the highest or lowest price, which words
    cannot tell (three dishes were quoted). The asked table is the one whose columns the
    question names, else the best ranked priced row's (``candidates`` come ranked)."""
    extreme = asks_cheapest_or_dearest(prompt.question)
    if not extreme:
        return candidates
    named = content_words(" ".join(naming_words(prompt.question)), prompt.language)
    priced = [
        (c, amount)
        for c in candidates
        if (amount := _row_price(c.sentence, named, prompt.language)) is not None
    ]
    if not priced:
        return _extreme_in_every_column(candidates, extreme) or candidates
    tables: dict[str, list[tuple[_Candidate, Decimal]]] = {}
    for candidate, amount in priced:
        tables.setdefault(_columns_of(candidate.sentence), []).append((candidate, amount))
    named_columns = [
        rows for columns, rows in tables.items() if named & content_words(columns, prompt.language)
    ]
    asked = named_columns[0] if named_columns else tables[_columns_of(priced[0][0].sentence)]
    pick = min if extreme == "least" else max
    best = pick(amount for _, amount in asked)
    return [row for row, amount in asked if amount == best]  # all of them, when tied


def _extreme_in_every_column(candidates: list[_Candidate], extreme: str) -> list[_Candidate]:
    """Of the best ranked table, whose columns name no price but hold sums, each a lesson's
    ("Instrumento: Ukulele · Aula individual (30 min): R$ 80 · …"), the row cheapest (or
    dearest) in every such column, when one is: "Qual o instrumento mais barato?" quoted
    three rows, none the ukulele's. None when the columns disagree or tie: a fares' table's
    extra bags cost the same for every fare, and say nothing of the fare's own price."""
    rows = [c for c in candidates if is_table_row(c.sentence)]
    if not rows:
        return []
    first = _column_names(rows[0].sentence)[0]
    table = [c for c in rows if _column_names(c.sentence)[0] == first]
    columns = dict.fromkeys(name for c in table for name in _column_names(c.sentence)[1:])
    pick = min if extreme == "least" else max
    chosen: set[int] = set()
    for column in (name for name in columns if _every_cell_a_sum(table, name)):
        amounts = {
            i: amount for i, c in enumerate(table) if (amount := _sum_in(c, column)) is not None
        }
        best = [i for i, amount in amounts.items() if amount == pick(amounts.values())]
        if len(best) != 1 or (chosen and chosen != set(best)):
            return []
        chosen = set(best)
    return [table[i] for i in chosen]


def _sum_in(row: _Candidate, column: str) -> Decimal | None:
    cells = dict(_cells(row.sentence))
    return Price.fromstring(cells[column]).amount if column in cells else None


def _row_price(row: str, named: set[str], language: str) -> Decimal | None:
    """A table row's price: its first cell read as an amount with a currency, or under a
    column naming a price ("Precio (€): 49"), under a column naming a price, a period
    ("Diária", "Mensal") or what the question names. Not under one naming another thing:
    "What's the cheapest fare?" got the Business fare, whose "Extra bag (online): £30" is
    an extra bag's price, not the fare's."""
    if not is_table_row(row):
        return None
    for column, value in _cells(row):
        price = Price.fromstring(value)
        if price.amount is None or not (price.currency or _PRICE_COLUMN.search(fold(column))):
            continue
        said = content_words(column, language) - {stem(w, language) for w in _PERIODS}
        if not said or _PRICE_COLUMN.search(fold(column)) or said & named:
            return price.amount
    return None


# What a price is counted per, as a column names it: "Diária", "Semanal", "Por noche".
_PERIODS = frozenset({
    "dia", "diaria", "diario", "diarias", "semana", "semanal", "mes", "mensal", "mensual",
    "ano", "anual", "noche", "noite", "hora", "day", "daily", "week", "weekly", "month",
    "monthly", "year", "yearly", "annual", "night", "hour", "hourly", "per", "por",
    "persona", "pessoa", "person", "pax",
})  # fmt: skip


# Saying a row lacks something: "no", "sin", "não", "sem", "without", "not".
_NEGATION = frozenset({"no", "sin", "nao", "sem", "without", "not", "don", "doesn", "isn", "aren"})
# A cell saying there is none: "ninguno", "sem fidelidade", "No", "none", "—".
_NONE = frozenset({
    "no", "ninguno", "ninguna", "nada", "sin", "nao", "nenhum", "nenhuma", "sem", "none",
    "without", "nil",
})  # fmt: skip


def _pricing_what_is_asked(candidates: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """The sentences naming a sum of what the question names, when a sentence of a passage
    in its language names that: "¿Cuánto cuesta el desayuno?", over a hotel's e-mail whose
    breakfast has no price, quoted its late check-out's and its pets' sums. A sum that no
    word before it says what for ("La cuota mensual es de veinte euros") is of what its
    passage speaks of. Words cannot be compared across languages: a sum in another is kept
    ("Quanto custa reservar o salão?" and the Spanish "La fianza es de cien euros")."""
    priced = [c for c in candidates if _says_price(c.sentence)]
    language = prompt.language
    named = _named_in_the_conversation(prompt)
    if not named or not priced:
        return priced
    naming_flags, in_its_language = _naming_what_is_asked(candidates, prompt, named)
    naming = [c for c, names_it in zip(candidates, naming_flags, strict=True) if names_it]
    if not naming:  # no sentence says it: the vectors found the page ("alberca", "pileta")
        return priced
    said_by_question = content_words(prompt.asked or prompt.question, language)
    return [
        c
        for c in priced
        if c in naming
        or c.number not in in_its_language
        # a table's row is of the thing its cells name: "Plano: Anual · Mensalidade: R$ 89,90"
        # is not the monthly plan's price, though "anual" can name what a sum is counted per
        or not (
            is_table_row(c.sentence)
            or _names_before_its_sum(c.sentence, language, said_by_question)
        )
    ]


def _names_before_its_sum(sentence: str, language: str, said_by_question: set[str]) -> bool:
    """A word before the sentence's sum names another thing than the question does, what
    that sum is charged for: "El late check-out hasta las 14:00 cuesta 25 euros", not "La
    cuota mensual es de veinte euros", nor "La reserva cuesta veinte euros" when the
    question asks what booking the party room costs ("reserva" names nothing, a verb's
    noun, but the question says it)."""
    folded = fold(sentence)
    found = _MONEY.search(folded) or _FREE.search(folded)
    before = folded[: found.start()] if found else folded
    said = {word for word in content_words(before, language) if not word.isdigit()}
    return bool(said - _stems(_PRICE_NAMES, language) - said_by_question)


# Words that name a price or what it is counted per, saying nothing of what it is paid for.
_PRICE_NAMES = (
    "cuota cuotas precio precios tarifa tarifas coste costo fianza deposito suplemento importe "
    "matricula inscripcion entrada abono mensual anual semanal diario diaria cuesta cuestan "
    "vale valen sale salen cobra cobran paga pagan pagar pago total persona noche dia mes "
    "semana hora aproximadamente solo desde "
    "preco precos custa custam custo taxa valor mensalidade anuidade caucao mensal diaria "
    "inscricao ingresso cobram pagam pagamento pessoa noite apenas cerca "
    "fee fees price prices cost costs charge charges charged deposit rate rates monthly "
    "yearly annual weekly daily nightly membership admission entry ticket amount paid pays "
    "person night day month week hour year only about around approximately"
)


def _asks_what_a_header_says(question: str) -> bool:
    """The question asks who, when, or for an address, which an e-mail's header line
    ("From: Marta Ruiz <[EMAIL]> · To: … · Date: 2026-06-01") says; quoted for anything else
    ("¿Cuántas semanas de baja por maternidad hay?" got it for its figures), it says nothing
    asked."""
    folded = fold(question)
    return (
        asks_sender(question)
        or bool(_ASKS_NAME.search(folded) or _ASKS_DATE.search(folded))
        or _names_a_contact(question, _ASKS_CONTACT)
    )


def _holds_the_contact_asked(text: str, question: str) -> bool:
    return bool((_contact_kind_asked(question) or _CONTACT).search(text))


def _contact_kind_asked(question: str) -> re.Pattern[str] | None:
    """How a sentence says the kind of contact asked (a phone, an e-mail, an extension),
    when the question names one."""
    folded = fold(question)
    return next((said for asked, said in _CONTACT_KINDS if asked.search(folded)), None)


def _holding_the_contact_asked(candidates: list[_Candidate], question: str) -> list[_Candidate]:
    """Of sentences holding a contact, those holding the kind asked, when some do: "Qual o
    telefone da recepção?" quoted where to write about the internet ("…ou escreva para
    [EMAIL]"), not the contacts slide's "Recepção: [PHONE]"."""
    said = _contact_kind_asked(question)
    if said is None:
        return candidates
    return [c for c in candidates if said.search(c.sentence)] or candidates


def _asks_price(question: str) -> bool:
    folded = fold(question)
    return (
        bool(_ASKS_PRICE.search(folded))
        and not _ASKS_ANOTHER.search(folded)
        and not _asks_else_of_a_price(question)
    )


def _asks_the_price_before_of(prompt: Prompt) -> bool:
    """ "¿Y lenguaje musical?" after "¿Cuánto cuesta la clase de piano?": the price asked
    before, of another thing (it quoted the music school's lesson length first, before
    "Lenguaje musical: 30 € al mes"). Only "and…" naming something, asking nothing itself."""
    question = prompt.question
    asked_before = _asked_before(prompt)
    if not asked_before or not _AND_WHAT_OF.match(fold(question)):
        return False
    asking = QUESTION_WORDS | FACT_WORDS
    if any(word in asking for word in _WORD.findall(fold(question))):
        return False
    return bool(naming_words(question)) and _asks_price(asked_before[-1])


# "And…", not "and if…": "¿Y lenguaje musical?", "E a moto?", "And the gym?".
_AND_WHAT_OF = re.compile(r"^\W*(?:y|e|and)\s+(?!(?:si|se|if)\b)\w")


def _asks_else_of_a_price(question: str) -> bool:
    """The question names a price by a noun alone ("cuota", "mensalidade", "fee") and asks
    something else of it: when it falls due ("Quando vence a mensalidade?"), whether it may
    be done ("¿Puedo congelar la cuota?"), how it is paid. Both got "no information", no
    sentence saying them naming a sum. Not when it asks how much, nor whether it is free."""
    folded = fold(question)
    if _ASKS_A_SUM.search(folded):
        return False
    return bool(
        _ASKS_ELSE_OF_A_PRICE.search(folded)
        or asks_whether_allowed(question)
        or (asks_yes_or_no(question) and not asks_whether_there_is(question))
    )


def _asks_contact_detail(question: str) -> bool:
    """The question asks for a phone, an e-mail or a link itself: not whether one may be
    used ("Can I take a phone call on the second floor?", "Posso usar meu celular para o
    e-mail?"), how much of something it holds ("Quanto espaço tem meu e-mail?") or a thing
    it names ("Qual o tamanho da caixa de e-mail?", "Where are the phone booths?")."""
    folded = fold(question)
    if _ASKS_OTHER_FACT.search(folded) or _ASKS_ANOTHER.search(folded):
        return False
    return _names_a_contact(question, _ASKS_CONTACT_DETAIL)


def _names_a_contact(question: str, words: re.Pattern[str]) -> bool:
    """Some of ``words`` in the question name a way to reach someone, in a question that
    asks neither whether something may be done nor how much or how many."""
    folded = fold(question)
    if asks_whether_allowed(question) or _ASKS_QUANTITY.search(folded):
        return False
    return any(
        not _NAMES_ANOTHER_THING.match(folded, match.start())
        and not _THING_OF_A_CONTACT.search(folded[: match.end()])
        for match in words.finditer(folded)
    )


def _says_price(sentence: str) -> bool:
    folded = fold(sentence)
    return bool(_MONEY.search(folded) or _FREE.search(folded))


def _group_score(sentence: str, groups: list[str], source: Source) -> float:
    if not source.group_scores:
        return source.score
    flat = " ".join(sentence.split())
    for index, group in enumerate(groups[: len(source.group_scores)]):
        if flat in group or flat[:40] in group:
            return source.group_scores[index]
    return source.score


_ASKS_FIGURE = re.compile(
    r"\b(cu[aá]nt[oa]s?|cu[aá]ndo|quant[oa]s?|quando|a[nñ]os?|fecha|data|siglo|s[eé]culo|"
    r"porcentaje|porcentagem|n[uú]mero|how (many|much)|when|year)\b"
)
# A figure is written in digits or, below a hundred or so, in words ("nueve naciones").
_NUMBER_WORDS = (
    r"dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|veinte|treinta|"
    r"cuarenta|cincuenta|cien|ciento|mil|millones|dois|duas|quatro|sete|oito|nove|dez|"
    r"onze|doze|vinte|trinta|quarenta|cinquenta|cem|cento|milhoes|two|three|four|five|six|"
    r"seven|eight|nine|ten|twelve|twenty|hundred|thousand|million|docena|duzia|dozen"
)
_FIGURE = re.compile(rf"\d+|\b(?:{_NUMBER_WORDS})\b")
# "¿A qué hora…?", "Até que horas…?", "What time…?" ask a time of day, which a sentence
# says by the clock or as midnight or noon: "Que horas abre?" after whether the pool opens
# on Mondays quoted "Às segundas fica fechada" and "Crianças menores de 12 anos…" before
# the pool's "das 8h às 21h"; "Até que horas pode ser a festa?", "até 60 dias" before "A
# festa deve terminar à meia-noite".
_ASKS_TIME = re.compile(r"\b(?:que|q|what)\s+(?:hora|horas|time)\b")
# An hour of the day, not a duration: a bakery's "Encomenda com 48h" is not its hours.
_TIME_OF_DAY = re.compile(
    r"\b(?:[01]?\d|2[0-4])(?::\d\d|h\d{0,2}\b|\s?(?:am|pm|a\.m\.|p\.m\.))"
    r"|\b(?:medianoche|mediodia|meia-noite|meio-dia|midnight|noon|midday)\b"
)
# A duration asked (``asks_how_long``) is said as a figure and its unit: "Quanto tempo dura a
# sessão?" quoted the single session's price, "R$ 120", before "As sessões duram 50 minutos".
_DURATION = re.compile(
    r"\b\d+(?:[.,]\d+)?\s*(?:min|minutos?|minutes?|h|horas?|hours?|hrs?|dias?|days?|"
    r"semanas?|weeks?|mes|meses|months?|anos?|years?)\b"
)
# How long something lasts, said without a figure too ("varios años", "um ano ou mais",
# "hasta bien entrado el siglo XIX") or as a span ("de 1870 hasta 1939", "from 3:15pm to
# 6pm"): wider than the figure a duration scores for, it only tells a sentence that cannot
# say how long ("Hora: 17:30", a price) from one that may.
_HOW_MANY = (
    r"\d+|un|una|uno|um|uma|an|one|media|meia|half|varios|varias|several|algunos|algunas|"
    r"alguns|algumas|unos|unas|uns|umas|pocos|poucos|few|muchos|muitos|many|millions|"
    + _NUMBER_WORDS
)
_UNIT_OF_TIME = (
    r"s|seg|segundos?|seconds?|secs?|min|mins|minutos?|minutes?|h|hs|hrs?|horas?|hours?|"
    r"dias?|days?|noches|noites|nights?|semanas?|weeks?|mes|meses|months?|trimestres?|"
    r"quarters?|semestres?|semesters?|anos?|years?|decadas?|decades?"
)
_SAYS_HOW_LONG = re.compile(
    rf"\b(?:{_HOW_MANY})\s*(?:de\s+)?(?:{_UNIT_OF_TIME})\b"
    r"|\ba\s+(?:second|minute|day|night|week|month|quarter|semester|year|decade)\b"
    # the next day, the same day: "al día siguiente", "no mesmo dia", "overnight"
    r"|\b(?:next|same|following|mismo|misma|mesmo|mesma)\s+(?:day|week|month|dia|semana|mes)\b"
    r"|\b(?:dia|semana|mes)\s+(?:siguiente|seguinte)\b|\b(?:tomorrow|amanha|overnight)\b"
    r"|\b(?:siglos?|seculos?|centur(?:y|ies))\b"
    r"|\b\d{3,4}\s*(?:-|–|a|al|hasta|ate|to|until|till)\s*\d{2,4}\b"
    # from one hour to another: "served from 7 to 10:30 am", "das 8h às 20h", "de 9 a 14"
    r"|\b(?:from|de|desde|das?|entre)\s+\d{1,2}(?:[:.h]\d\d)?\s*(?:am|pm|h)?\s*"
    r"(?:to|a|al|hasta|as|ate|and|y|e|-|–)\s+(?:las\s+)?\d{1,2}\b"
)
# An age says no length of time: "at least 16 years old", "Joven (hasta 25 años)".
_AGE = re.compile(
    r"\b\d+\s*(?:years?|anos?)\s+(?:old|de edad|de idade)\b"
    r"|\b(?:aged|menores de|mayores de|maiores de)\s+\d+\s*(?:years?|anos?)\b"
    r"|\(\s*(?:de|hasta|ate|under|over|menores de|mayores de|maiores de)?\s*\d+\s*"
    r"(?:(?:a|-|–|to)\s*\d+\s*)?(?:years?|anos?)\s*\)"
)
_ASKS_NAME = re.compile(r"\b(qui[eé]n(es)?|quem|who)\b")
_ASKS_DATE = re.compile(r"\b(cuando|quando|when|fecha|data|date|dia|day)\b")
# A phone, an e-mail or a link, by name: what only a sentence holding one answers.
_CONTACT_DETAIL_WORDS = (
    "correo|e-?mail|telefono|telefone|phone|movil|celular|whatsapp|url|website|pagina web|"
    "sitio web|enlace|link"
)
# An office's extension, asked: "What's the helpdesk's extension?" quoted its hours first.
# Only as a phone's: "ramal", "extension number", "número de extensión", someone's
# extension. An extension is also a university's ("atividades de extensão") or a
# deadline's: FaQuAD-pt's "Quais alguns exemplos de atividades de extensão?" had become
# "no information".
_EXTENSION_ASKED = r"ramal|extension number|numero de extension|(?<='s )extension|(?<=s' )extension"
# A question asking how to reach someone, in words that ask for nothing else ("dirección"
# alone is also a direction, "call" a name, "sitio" a place), and a sentence that says it:
# an e-mail address, a phone number or an office extension ("ramal 4400"), a web or street
# address (or redaction's placeholder).
_ASKS_CONTACT = re.compile(
    rf"\b({_CONTACT_DETAIL_WORDS}|mail|contacto|contato|contact|site|direccion postal|"
    r"endereco|address|llamo|ligo|escribo|escrevo|write to)\b"
)
# Asking for a phone, an e-mail or a link, which only a sentence holding one answers: not
# "contact" or an address ("¿cómo contacto con la conserjería?" is answered by where it
# is), nor a way to do something ("¿puedo pedir por teléfono?", "can I pay by phone?"),
# nor another fact about one ("¿cuántos nombres se firmaron en el sitio web…?").
_ASKS_CONTACT_DETAIL = re.compile(
    r"(?<!\bpor )(?<!\bpor el )(?<!\bpelo )(?<!\bpela )(?<!\bby )(?<!\bvia )(?<!\bover the )"
    rf"\b({_CONTACT_DETAIL_WORDS}|{_EXTENSION_ASKED})\b"
)
_ASKS_OTHER_FACT = re.compile(
    r"\b(cuant[oa]s?|cuando|quant[oa]s?|quando|quien(es)?|quem|how (many|much)|when|who)\b"
)
_ASKS_QUANTITY = re.compile(r"\b(cuant[oa]s?|quant[oa]s?|how (many|much))\b")
# A contact word naming another thing: English puts it before that thing ("phone call",
# "e-mail account"); Spanish and Portuguese after "de" ("la caixa de e-mail", "el horario
# del teléfono"), where "número de teléfono" and "dirección de correo" still ask for one.
_NAMES_ANOTHER_THING = re.compile(
    rf"(?:{_CONTACT_DETAIL_WORDS}) (?:call|calls|booth|booths|box|inbox|account|accounts|"
    r"storage|quota|size|space|limit|signature|password|app|apps|settings|line|lines|bill|plan)\b"
)
_THING_OF_A_CONTACT = re.compile(
    r"(?<!numero )(?<!direccion )(?<!endereco )(?<!number )(?<!address )"
    r"\b(?:de|da|do|del|of)\s+(?:(?:la|el|o|a|mi|meu|minha|my|the|your|su|seu|sua)\s+)?"
    rf"(?:{_CONTACT_DETAIL_WORDS})$"
)
# A phone or an e-mail address as a sentence says it (or redaction's placeholder).
_PHONE_SAID = r"\+?\d[\d ().-]{6,}\d|\[PHONE\]"
_EMAIL_SAID = r"[\w.+-]+@[\w-]+\.[\w.-]+|\[EMAIL\]"
_EXTENSION_SAID = r"(?i:\b(?:ramal|extensi[oó]n|extens[aã]o|extension|ext\.)\s*\d{2,6}\b)"
# A phone asked for, and said; an e-mail asked for, and said.
_CONTACT_KINDS = (
    (
        re.compile(r"\b(?:telefono|telefone|phone|movil|celular|whatsapp)\b"),
        re.compile(_PHONE_SAID),
    ),
    (re.compile(r"\b(?:correo|e-?mail|mail)\b"), re.compile(_EMAIL_SAID)),
    (re.compile(rf"\b(?:{_EXTENSION_ASKED})"), re.compile(_EXTENSION_SAID)),
)
_CONTACT = re.compile(
    rf"{_EMAIL_SAID}|{_PHONE_SAID}|https?://|\bwww\."
    r"|\b(calle|avenida|rua|street|road|avda?\.|c/)\s"
    rf"|{_EXTENSION_SAID}"
    # an emergency number, too short for a phone's: "llame al 112", "ligue 190", "call 911"
    r"|(?i:\b(?:llam[ae]n?|llamar|marque|marcar|ligue|ligar|disque|discar|call|dial|ring)\s+"
    r"(?:al |el |para o |para |o |a )?\d{3,4}\b)"
)
# A street address as a sentence says it: a street's kind, its name and number ("la calle
# del Mar 14", "Avenida Amazonas, 1200", "10 Downing Street").
_ADDRESS_SAID = re.compile(
    r"(?i:\b(?:calle|c/|avenida|avda\.?|av\.|plaza|paseo|ronda|camino|carrer|rua|pra[cç]a|"
    r"travessa|alameda|largo|rodovia|estrada)\s+[^\d.;:!?]{2,40}?\d+)"
    # "221B Baker Street", "Unit 4, Quayside Road"
    r"|\b\d+[A-Z]?,?\s+(?:[A-Z]\w+\s+){1,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Square|Place|Way"
    r"|Drive|Boulevard|Blvd|Close|Crescent|Terrace|Parade|Court)\b"
)


def says_a_street_address(text: str) -> bool:
    """``text`` gives a street address: "Estamos en la calle del Mar 14"."""
    return bool(_ADDRESS_SAID.search(text))


# A question asking what something costs, and a sentence that names a sum of money: a
# currency's sign or code, or a figure followed by a currency's name ("veinte euros", "R$
# 50", "mil pesos": "pesos" alone may be a gym's weights).
_PRICE_WORDS = (
    "cuesta|cuestan|costar|precio|precios|coste|costo|cuota|tarifa|custa|custam|preco|precos|"
    "custo|mensalidade|cost|costs|price|prices|fee|fees"
)
# Paying asks for a sum only with "how much": "Can I pay by card?" is answered by "aceptamos
# tarjeta", not by "el envío cuesta cuatro euros". Whether something is free asks for a sum
# too, or for a sentence calling it free ("Is the first visit free?": "La primera visita es
# gratuita", not how long it lasts).
# "How much" asks a sum when a verb or nothing follows ("How much is parking?", "How
# much do you pay…?"), a quantity when a thing does: "How much liquid can I carry?" had
# quoted the pets' "£45 each way" first.
_ASKS_MONEY = re.compile(
    rf"\b({_PRICE_WORDS}|fianza|taxa|valor|charge|deposit|gratis|gratuit[oa]s?|free|"
    r"de graca)\b"
    r"|\bhow much(?=\W*$|\s+(?:is|are|was|were|does|do|did|will|would|should|could|can|"
    r"for|to|in|extra|more)\b)"
    r"|\b(cuant[oa]s?|quant[oa]s?)\b.*\b(pag|cobr)\w*"
)
_MONEY = re.compile(
    # pence as English writes them: "Printing costs 15p per page"
    r"[€$£]|\b(?:eur|usd|brl|gbp|pence)\b|\b\d+(?:\.\d+)?p\b"
    rf"|(?:{_FIGURE.pattern})[ .,\d]*(?:de |of )?(?:euros?|dolares|dollars?|reais|pesos|"
    r"libras|pounds?|centimos|centavos|cents?)\b"
)
# What something costs and nothing else: not paying ("¿dónde pago?"), a deposit's return
# ("¿cuándo devuelven la fianza?", "Quanto tempo demora para liberar a caução?" quoted
# the deposit's sum, not its "liberado em até 7 dias úteis") or "how much time"; but how
# much a deposit is ("Quanto é a fiança do salão?" quoted how the room is booked).
_ASKS_PRICE = re.compile(
    rf"\b({_PRICE_WORDS}|custar|how much (is|are|does|do|for|will)|what does it cost)\b"
    r"|\b(cuant[oa]s?|quant[oa]s?)\b(?!\s+(?:tiempo|tempo|dias|semanas|meses)\b)"
    r".*\b(fianza|fianca|caucao)\b"
)
# Words asking a sum (or whether there is one) whatever else the question asks, and those
# asking anything but a sum.
_ASKS_A_SUM = re.compile(
    r"\b(cuesta|cuestan|costar|custa|custam|custar|cost|costs|cuant[oa]s?|quant[oa]s?|"
    r"how much|gratis|gratuit[oa]s?|free|de graca)\b"
)
_ASKS_ELSE_OF_A_PRICE = re.compile(
    r"\b(cuando|quando|when|donde|onde|where|como|how|quien(es)?|quem|who|por que|why|"
    r"what time|que horas?|a que hora)\b"
)
# A column holding prices ("Precio (€)"): its figures are amounts without a currency sign.
_PRICE_COLUMN = re.compile(rf"\b({_PRICE_WORDS}|importe|valor|rate|rates)\b", re.IGNORECASE)
# A second question joined to the first ("¿cuánto cuesta el gimnasio y cuándo abre?"): its
# answer need not name a sum or a contact.
_ASKS_ANOTHER = re.compile(
    r"\b(y|e|and)\s+(cuando|donde|como|a que hora|quando|onde|que horas?|when|where|how|"
    r"what time)\b"
)
_FREE = re.compile(
    r"\b(gratis|gratuit[oa]s?|sin (coste|costo|cargo)|sem (custo|cobranca)|free|no charge|"
    r"no cost|incluid[oa]s? en|incluid[oa]s? na|included in)\b"
)
_NAME = re.compile(r"\b[A-ZÁÉÍÓÚÂÊÔÃÕÇÑ][\wáéíóúâêôãõçñü]+")


def _names(sentence: str) -> list[str]:
    """Its capitalised words but the one opening it; in a table's row, but those opening a
    column's name or a cell: "Tipo de ausência: Casamento · Dias por ano: 15" names nobody,
    "Contacto: Joana Ribeiro" names her."""
    if not is_table_row(sentence):
        return _NAME.findall(sentence)[1:]
    return [
        match.group()
        for match in _NAME.finditer(sentence)
        if not _opens_cell(sentence[: match.start()].rstrip())
    ]


def _said_in(sentence: str) -> str:
    """What the sentence says; in a table's row, its cells without their columns' names,
    which every row repeats, even inside a cell ("Sala: Sala 2"): "Qual o horário da aula
    de yoga?" quoted the yoga row, then the zumba's and the pilates' for their "Horário"."""
    if not is_table_row(sentence):
        return sentence
    return " ".join(_value_of(cell) for cell in sentence.split(" · "))


def names_only_columns(named: list[str], passages: list[str]) -> bool:
    """Every word the question names is, in ``passages``, only the name of a table's
    column: it asks for a row's cell without naming the row ("¿Qué alérgenos tiene?" after
    the sea bass's price; "Tem fidelidade?" after the yearly plan), which a follow-up
    names; alone, it quoted the first rows found."""
    only_columns = False
    for text in passages:
        language = _passage_language(text)
        asked = {stem(word, language) for word in named}
        lines = text.splitlines()
        if not asked or asked & content_words(" ".join(map(_said_in, lines)), language):
            return False
        columns = " ".join(_columns_of(line) for line in lines if is_table_row(line))
        only_columns = only_columns or asked <= content_words(columns, language)
    return only_columns


def named_before(asked: str, named_now: list[str]) -> list[str]:
    """What a follow-up searched as ``asked`` (the questions before it, then it) names in
    the questions before it: not what it says of that ("obrigatório" after the GPS's
    price is the child seat's word). ``asked`` ends with the follow-up as searched, a word
    maybe respelt ("obrigatória"): its last words are the follow-up's."""
    named = naming_words(asked)
    return named[: max(len(named) - len(named_now), 0)]


def names_a_column_of_a_row(columns: list[str], rows: list[str], passages: list[str]) -> bool:
    """A table's row of ``passages`` says a word of ``rows`` in its cells, and its columns'
    names hold every word of ``columns``: "Tem armário?" after the Fixo plan's price asks
    its "Armário" cell, though the extras' table has an "Armário avulso" row."""
    for text in passages:
        language = _passage_language(text)
        asked = {stem(word, language) for word in columns}
        for line in text.splitlines():
            if not (asked and is_table_row(line) and _row_says(line, rows, language)):
                continue
            if asked <= content_words(_columns_of(line), language):
                return True
    return False


def names_a_row(named: list[str], passages: list[str]) -> bool:
    """A word of ``named`` is in a cell of a table's row of ``passages`` ("lubina" in "Plato:
    Lubina a la sal · Precio: 19,50 €"), not only in its columns' names."""
    return any(
        _row_says(line, named, _passage_language(text))
        for text in passages
        for line in text.splitlines()
        if is_table_row(line)
    )


def _row_says(row: str, named: list[str], language: str | None) -> bool:
    asked = {stem(word, language) for word in named}
    return bool(asked & content_words(_said_in(row), language))


def _columns_of(row: str) -> str:
    return " ".join(_column_names(row))


def _value_of(cell: str) -> str:
    column, _, value = cell.rpartition(": ")
    named = {fold(word) for word in _WORD.findall(column)}
    return " ".join(word for word in _WORD.findall(value) if fold(word) not in named)


def _opens_cell(before: str) -> bool:
    return not before or before.endswith((":", "·"))


def _with_kin(asked: set[str], words_of: list[set[str]]) -> list[set[str]]:
    """Each sentence's words, and the question's words no sentence says that it says in a
    kindred one: "bici" in "bicicletas", as the word shares found its passage
    (``knowledge.search.word_shares.kin_of``)."""
    said = set().union(*words_of)
    kin = {word: prefix for word in asked - said if (prefix := kin_of(word))}
    return [
        words | {word for word, prefix in kin.items() if any(w.startswith(prefix) for w in words)}
        for words in words_of
    ]


def _asks_how_long_alone(question: str) -> bool:
    """The question asks how long something lasts, and nothing else with it ("How long does
    it take and where do I go?")."""
    folded = fold(question)
    return asks_how_long(question) and not _ASKS_ANOTHER.search(folded)


def _says_how_long(sentence: str, *, lead_times: bool = True) -> bool:
    """``sentence`` may say how long something lasts: a quantity of a unit of time but an
    age, a century, a span of years or of hours of the day; with ``lead_times`` false, but
    how long ahead of something ("booked up to seven days ahead", "avisa con 24 horas de
    antelación")."""
    folded = _A_SUM_PER_TIME.sub(" ", _AGE.sub(" ", fold(sentence)))
    if not lead_times:
        folded = _LEAD_TIME.sub(" ", folded)
    return (
        bool(_SAYS_HOW_LONG.search(folded))
        or len(_TIME_OF_DAY.findall(folded)) >= 2
        or (is_table_row(sentence) and any(map(_a_length_in_its_column, _cells(folded))))
    )


def _a_length_in_its_column(cell: tuple[str, str]) -> bool:
    """A table's cell holding a figure whose column names its unit of time or that it is a
    length: "Semanas: 12", "Duración: 2 sesiones"; not a time of day ("Hora: 9:00"), a year
    ("Año: 2024"), nor a rate ("Horas a la semana: 6" does not say how long a class lasts,
    and "Quanto tempo dura uma aula?" lost "de 10:00 a 11:30" to the courses' rows)."""
    column, value = cell
    figure = any(c.isdigit() for c in value)
    if not figure or _TIME_OF_DAY.search(value) or _YEAR.search(value) or _A_RATE.search(column):
        return False
    return bool(_LENGTH_COLUMN.search(column) or _A_UNIT_OF_TIME.search(column))


_A_UNIT_OF_TIME = re.compile(rf"\b(?:{_UNIT_OF_TIME})\b")
# A sum per unit of time is a price, no length: "£22 a month", "65 € por noche".
_A_SUM_PER_TIME = re.compile(
    r"(?:[€$£]\s*\d[\d.,]*|\d[\d.,]*\s*(?:[€$£]|euros?|reais|pounds?|dollars?))\s*"
    r"(?:a|an|per|al|por|ao|each|/)\s*(?:la\s+)?"
    r"(?:hour|day|night|week|month|year|hora|dia|noche|noite|semana|mes|ano)\b"
)
# How long ahead of something: a notice, a booking window, an arrival before the hour.
_AHEAD = (
    r"ahead|before|beforehand|in advance|early|earlier|prior|notice|antes|"
    r"(?:de|con|com) (?:antelacion|anticipacion|antecedencia|aviso|preaviso)"
)
_LEAD_TIME = re.compile(rf"\b(?:{_HOW_MANY})\s*(?:de\s+)?(?:{_UNIT_OF_TIME})'?s?\s+(?:{_AHEAD})\b")
# A question asking what a thing lasts, not how long ahead: "How long is a class?",
# "¿Cuánto dura una consulta?"; "How long do I have to cancel?" may be answered by a notice.
_ASKS_WHAT_IT_LASTS = re.compile(
    r"\bhow long (?:is|are|was|were)\b|\blasts?\b|\bdura[nm]?\b|\bduracao\b|\bduracion\b"
)
_ASKS_AHEAD = re.compile(
    r"\b(?:ahead|before|beforehand|advance|early|earlier|prior|notice|antes|antelacion|"
    r"anticipacion|antecedencia|aviso|preaviso|avisar)\b"
)
_A_RATE = re.compile(
    r"\b(?:a|al|por|per|ao|each)\s+(?:la\s+)?(?:semana|week|mes|month|dia|day|ano|year)\b"
    r"|/|\b(?:semanales|semanais|weekly|mensuales|mensais|monthly|diarias|diarios|daily)\b"
)


def _timing_what_is_asked(candidates: list[_Candidate], prompt: Prompt) -> list[_Candidate]:
    """The sentences that may say how long the thing the question names lasts. When a
    sentence of a passage in its language names that thing, a length is of it only if its
    sentence, or the one before it, names it too: "How long is the induction?", over a gym's
    rules naming the induction but not its length, quoted the memberships' "£22 a month".
    Words cannot be compared across languages: a length in another is kept."""
    question = fold(prompt.question)
    lead_times = not _ASKS_WHAT_IT_LASTS.search(question) or bool(_ASKS_AHEAD.search(question))
    saying = [_says_how_long(c.sentence, lead_times=lead_times) for c in candidates]
    timed = [c for c, says in zip(candidates, saying, strict=True) if says]
    language = prompt.language
    named = _named_in_the_conversation(prompt)
    named -= _stems(_DURATION_NAMES, language)
    if not named or not timed:
        return timed
    naming, in_its_language = _naming_what_is_asked(candidates, prompt, named)
    if not any(naming):  # no sentence says it: the vectors found the page
        return timed
    return [
        c
        for i, c in enumerate(candidates)
        if saying[i]
        and (
            c.number not in in_its_language
            or (naming[i] and _a_length_by_its_name(c, named, language, lead_times=lead_times))
            or (
                i > 0
                and naming[i - 1]
                and candidates[i - 1].number == c.number
                and not is_table_row(c.sentence)  # a row goes on with no row before it
            )
        )
    ]


def _a_length_by_its_name(
    candidate: _Candidate, named: set[str], language: str, *, lead_times: bool
) -> bool:
    """Whether a sentence naming what is asked, and saying a length, says one of it: a
    table's row, a sentence without brackets or under a heading naming it does; another,
    when one of its parts both names it and says a length, a part being what is in brackets
    with the three words before them, or what is outside them: "How long is a class?"
    quoted "Off-Peak (… gym access weekdays 10am–4pm …) … Premium (… unlimited classes …)",
    whose hours are the Off-Peak's."""
    sentence = candidate.sentence
    if is_table_row(sentence) or "(" not in sentence:
        return True  # a row's length may be its column's ("Semanas: 6")
    if named & content_words(candidate.heading, language):
        return True
    parts = [_BRACKETED.sub(" ", sentence)] + [
        " ".join(before.split()[-3:]) + " " + inside
        for before, inside in _AFTER_WORDS_BRACKETED.findall(sentence)
    ]
    words_of = _with_kin(named, [content_words(part, language) for part in parts])
    return any(
        named & words and _says_how_long(part, lead_times=lead_times)
        for part, words in zip(parts, words_of, strict=True)
    )


_BRACKETED = re.compile(r"\([^()]*\)")
_AFTER_WORDS_BRACKETED = re.compile(r"([^()]*)\(([^()]*)\)")


def _named_in_the_conversation(prompt: Prompt) -> set[str]:
    """What the question names, stemmed; a follow-up's with what the questions before it
    named ("¿Tarda mucho?" after the whitening's price names the whitening)."""
    return content_words(" ".join(naming_words(prompt.asked or prompt.question)), prompt.language)


def _naming_what_is_asked(
    candidates: list[_Candidate], prompt: Prompt, named: set[str]
) -> tuple[list[bool], set[int]]:
    """Whether each sentence names what the question names (``named``, stemmed; its section
    heading's words and the question's words' kin count), in a passage in the question's
    language; and those passages' numbers. Words cannot be compared across languages."""
    language = prompt.language
    in_its_language = {s.number for s in prompt.sources if _language_of(s) in (None, language)}
    words_of = _with_kin(
        named, [content_words(f"{c.heading} {_said_in(c.sentence)}", language) for c in candidates]
    )
    naming = [
        bool(named & words) and c.number in in_its_language
        for c, words in zip(candidates, words_of, strict=True)
    ]
    # Naming all it names beats naming a part: "¿Cuánto dura el curso intensivo?" is not
    # answered under "Cursos y niveles" by "una prueba de nivel gratuita de 30 minutos"
    # when a row says "Curso: Intensivo" (its column's name counts here).
    whole = _with_kin(
        named, [content_words(f"{c.heading} {c.sentence}", language) for c in candidates]
    )
    if any(names and named <= words for words, names in zip(whole, naming, strict=True)):
        naming = [names and named <= words for words, names in zip(whole, naming, strict=True)]
    return naming, in_its_language


@functools.cache
def _stems(words: str, language: str) -> frozenset[str]:
    return frozenset(content_words(words, language))


# Words that ask or say how long, or how long at most, saying nothing of what lasts.
_DURATION_NAMES = (
    "tiempo rato dura duran duracion tarda tardan demora demoran lleva llevan mucho maximo "
    "minimo tempo duram duracao leva levam muito "
    "long time take takes last lasts length much maximum minimum most least"
)


_DURATION_WORDS = frozenset(_DURATION_NAMES.split())


def _figure_asked(question: str) -> str:
    """The kind of figure ``question`` asks for: "time" (of day), "duration", "figure" (any
    figure: how many, when, which year), or ""."""
    folded = fold(question)
    if _ASKS_TIME.search(folded) or asks_the_hours_alone(question):
        return "time"
    if asks_how_long(question):
        return "duration"
    return "figure" if _ASKS_FIGURE.search(folded) else ""


def _holds_the_figure_asked(sentence: str, asked: str, question_tokens: set[str]) -> bool:
    """``sentence`` says the kind of figure asked: a time of day, a duration, or a figure the
    question does not already hold."""
    folded = fold(sentence)
    if asked == "time":
        return bool(_TIME_OF_DAY.search(folded))
    if asked == "duration":
        return bool(_DURATION.search(folded))
    return asked == "figure" and any(n not in question_tokens for n in _FIGURE.findall(folded))


def _score(
    candidates: list[_Candidate],
    question: str,
    language: str,
    weights: dict[str, float],
    context: Sequence[str] = (),
    *,
    price_asked: bool = False,
) -> None:
    """Each candidate's score. ``price_asked``: its price, asked by a conversation's "And
    Premium?" after one, as "How much is Premium?" asks it."""
    weighed = words_to_weigh(question)
    asked = content_words(weighed, language)
    # What a follow-up naming nothing of its own asks of ("Onde?" after the year-end
    # party's date): its words count as a kind of fact's do.
    of_before = content_words(" ".join(context), language) - asked
    # A word asking for a kind of fact ("cuesta", "dura") says less of which sentence
    # answers than one naming a thing, when the question names one: counted whole, "¿Cuánto
    # cuesta un implante?" quoted the FAQ's "Una limpieza dental cuesta 45 euros" before the
    # price list's "Implante" row.
    naming = content_words(
        " ".join(w for w in _WORD.findall(weighed) if fold(w) not in FACT_WORDS),
        language,
    )
    weight_of = {w: 1.0 if w in naming or not naming else FACT_WORD_WEIGHT for w in asked}
    weight_of |= dict.fromkeys(of_before, FACT_WORD_WEIGHT)
    asked |= of_before
    counts: dict[str, int] = {}
    # A word of the heading is said by each sentence under it: "¿Pueden los niños ir solos
    # a la piscina?" quoted the pool's hours, the one sentence of the "Piscina" page saying
    # "piscina", before its "Los menores de doce años deben ir acompañados". Said by the
    # heading alone it counts a little less, to part sentences the meaning ties: "E se
    # cancelar?" quoted the "Atrasos e cancelamento" section's late-return tolerance first,
    # before its "O cancelamento é gratuito…".
    headings = {c.heading: content_words(c.heading, language) for c in candidates}
    titles = {c.title: content_words(c.title, language) for c in candidates}
    said = [content_words(_said_in(c.sentence), language) for c in candidates]
    words_of = _with_kin(
        asked, [own | headings[c.heading] for own, c in zip(said, candidates, strict=True)]
    )
    for words in words_of:
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    total = len(candidates)
    folded_question = fold(question)
    asks_name = bool(_ASKS_NAME.search(folded_question))
    figure_asked = _figure_asked(question)
    asks_place = asks_where_it_is(question)
    # a phone or an e-mail is no answer to where it is ("Qual o endereço?")
    asks_contact = _names_a_contact(question, _ASKS_CONTACT) and not asks_place
    asks_money = price_asked or (
        bool(_ASKS_MONEY.search(folded_question)) and not _asks_else_of_a_price(question)
    )
    sender_asked = asks_sender(question)
    question_tokens = set(_WORD.findall(folded_question))
    for candidate, words, own in zip(candidates, words_of, _with_kin(asked, said), strict=True):
        shared = sum(
            weight_of[w]
            * (1.0 if w in own else HEADING_WORD_WEIGHT)
            * math.log(1 + total / counts[w])
            for w in asked & words
        )
        # A time of day counts beside what the question names, in the sentence itself:
        # "What time does the pool close?" is answered by "There is no pool", not by the
        # fitness room's hours under the heading "Is there a pool or a gym?".
        # What the question names beyond the document itself: "Que horas abre o
        # restaurante?" over the restaurant's FAQ names nothing its hours must say.
        named_here = naming - titles[candidate.title]
        figure = _holds_the_figure_asked(candidate.sentence, figure_asked, question_tokens) and (
            figure_asked != "time" or bool(naming & own) or not named_here
        )
        # Where it is, asked: a street address answers "¿Dónde estáis?" and "Onde fica a
        # autoescola?" over the driving school's guide; not "¿Dónde está la piscina?".
        place = (
            asks_place
            and says_a_street_address(candidate.sentence)
            and (bool(naming & own) or not named_here)
        )
        name = asks_name and any(fold(n) not in question_tokens for n in _names(candidate.sentence))
        contact = (asks_contact and bool(_CONTACT.search(candidate.sentence))) or place
        money = asks_money and _says_price(candidate.sentence)
        # "Who sent the notice?": the message's "From: Ana <[EMAIL]>", in no word of it.
        sender = sender_asked and candidate.sentence.startswith(sender_labels())
        row = (
            candidate.named_before
            or _row_named(candidate.sentence, naming, language)
            or _cell_named(candidate.sentence, naming, language)
            or (asks_money and _priced_where_named(candidate.sentence, naming, language))
        )
        if row and figure_asked in ("time", "duration") and not figure:
            row = False  # "Quanto tempo dura a sessão?": not the "Sessão avulsa" row's price
        candidate.says_something_asked = bool(
            shared or figure or name or contact or money or sender or row
        )
        candidate.score = (
            weights["meaning"] * candidate.meaning
            + weights["words"] * shared
            + weights["figure"] * figure
            + weights["name"] * name
            + weights["contact"] * contact
            + weights["money"] * money
            + weights["sender"] * sender
            + weights["row"] * row
            - weights["rank"] * candidate.rank
        )
