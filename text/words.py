"""Words that say something: stopwords, question words and stems of the three languages.

Stems come from the Snowball stemmers (PyStemmer: Snowball's own C library, the algorithms
PostgreSQL's text search uses for documents; 0.2 µs a word, the pure-Python port 34 µs):
"reservas" and "reservar" are both "reserv", "informação" and "informações" both "inform".
Words of a text in no known language are kept whole."""

from __future__ import annotations

import re
import threading

import Stemmer

from text.folding import fold
from text.languages import ENGLISH, PORTUGUESE, SPANISH, detect_language

# The commonest words of each language: they tell sentences apart by nothing.
STOPWORDS: dict[str, frozenset[str]] = {
    SPANISH: frozenset({
        "al", "como", "con", "de", "del", "el", "en", "es", "la", "las", "le", "lo", "los",
        "muy", "más", "para", "pero", "por", "que", "se", "su", "sus", "un", "una", "y", "ya",
    }),
    PORTUGUESE: frozenset({
        "a", "ao", "as", "com", "da", "das", "de", "do", "dos", "e", "em", "foi", "mais", "na",
        "no", "não", "o", "os", "para", "pela", "pelo", "por", "que", "se", "um", "uma", "é",
    }),
    ENGLISH: frozenset({
        "an", "and", "are", "as", "at", "be", "by", "for", "from", "have", "in", "is", "it",
        "not", "of", "on", "or", "that", "the", "this", "to", "was", "which", "with",
    }),
}  # fmt: skip
# The question words themselves (folded): a question shares them with no answer.
QUESTION_WORDS = frozenset({
    "qual", "quais", "quem", "quando", "onde", "como", "cual", "cuales", "quien", "quienes",
    "cuando", "donde", "cuanto", "cuantos", "cuanta", "cuantas", "quanto", "quantos", "quanta",
    "quantas",
    "what", "which", "who", "when", "where", "how", "foi", "fue", "was", "son", "sao", "are",
    # as typed on a phone: "qnd abre?", "qnt custa?", "xq cierra?"
    "qnd", "qdo", "qndo", "qnt", "qto", "qts", "qtos", "xq", "pq", "porq", "whats",
})  # fmt: skip
# Words that ask to be told ("¿Qué dice el anexo?", "O que diz a norma?", "Summarize the
# contract"): a passage that answers rarely holds them, so they neither decide a keyword
# match nor count as what the question names. A passage with "anexo" was not found for
# "¿Qué dice el anexo firmado?": it lacked "dice", and its vector fell under the floor.
REQUEST_WORDS = frozenset({
    "dice", "dicen", "dime", "diga", "digame", "decir", "habla", "hablan", "trata", "tratan",
    "pone", "ponen", "menciona", "mencionan", "explica", "explican", "explicame", "cuentame",
    "resume", "resumeme", "resumir", "describe", "describeme", "describa",
    "diz", "dizem", "dizer", "fala", "falam", "fale", "explique", "resuma", "descreve",
    "descreva", "conte", "mencione",
    "say", "says", "tell", "tells", "mention", "mentions", "explain", "explains", "summarize",
    "summarise", "summarizes", "summarises", "describes",
})  # fmt: skip
# Words (folded) that ask for a kind of fact — a price, a time, a place, a permission —
# rather than name a thing: "¿cuánto cuesta?", "e o preço?", "what time does it close?" may
# ask about what the question before them named (``naming_words``). Among them, those that
# ask whether one may, or bring, book or need something: a page that answers seldom says
# them ("Can I bring my dog?": "Dogs must be kept on a lead").
ALLOWING_OR_BRINGING = frozenset({
    "puedo", "puede", "pueden", "podemos", "permite", "permiten", "permitido", "permitida",
    "posso", "pode", "podem", "can", "may", "allowed", "permitted",
    "reservar", "reservo", "reserva", "necesito", "necesita", "necesitan", "llevar", "traer",
    "preciso", "precisa", "precisam", "levar", "trazer", "reserve", "book", "need", "needs",
    "bring",
})  # fmt: skip
# Opening and closing, as a question asks when: "¿a qué hora abrís?" (said to the staff),
# "abrimos" (said by them).
_OPENING_AND_CLOSING = frozenset({
    "abre", "abren", "abris", "abres", "abrimos", "abrir", "abierto", "abierta", "cierra",
    "cierran", "cerrais", "cierras", "cerramos", "cerrar", "cerrado", "cerrada", "horario",
    "horarios", "abrem", "aberto", "aberta", "fecha", "fecham", "fechamos", "fechar",
    "fechado", "fechada", "abiertos", "abiertas", "abertos", "abertas", "cerrados",
    "fechados",
    "open", "opens", "opening", "close", "closes", "closing", "closed", "hours",
})  # fmt: skip
FACT_WORDS = ALLOWING_OR_BRINGING | _OPENING_AND_CLOSING | frozenset({
    "cuesta", "cuestan", "costar", "vale", "valen", "sale", "salen", "precio", "precios",
    "coste", "costo", "tarifa", "tarifas", "cuota", "pagar", "pago", "paga", "cobran",
    "custa", "custam", "custar", "preco", "precos", "custo", "valor", "mensalidade", "taxa",
    "pagamento", "cobram",
    "cost", "costs", "price", "prices", "fee", "fees", "pay", "charge",
    # whether it is dear or cheap asks its price: "Is whitening expensive?"
    "caro", "caros", "barato", "barata", "baratos", "baratas", "expensive", "cheap", "pricey",
    "hora", "horas", "empieza", "comienza", "termina", "dura", "duran", "comeca", "terminam", "duram",
    "time", "start", "starts", "end", "ends", "last", "lasts", "long", "much", "many", "often",
    "queda", "ubicado", "ubicada", "direccion", "telefono", "correo", "email", "mail",
    "contacto", "fica", "ficam", "localizado", "localizada", "endereco", "telefone", "contato",
    "located", "address", "phone", "contact",
    "eso", "esto", "isso", "isto", "this",
})  # fmt: skip
# Words that only greet, thank or say sorry (folded): a clause of nothing else ("Hola,",
# "Buenas tardes,", "Hi!", "Obrigado.") is no part of what is asked.
COURTESY_WORDS = frozenset({
    "hola", "buenas", "buenos", "buen", "dia", "dias", "tardes", "noches", "saludos", "gracias",
    "muchas", "mil", "porfa", "por", "favor", "disculpa", "disculpe", "perdon", "perdona",
    "perdone", "oye", "estimado", "estimada", "senor", "senora", "a", "todos", "equipo",
    "oi", "ola", "bom", "boa", "tarde", "noite", "obrigado", "obrigada", "desculpa",
    "desculpe", "licenca", "prezado", "prezada", "senhor", "senhora", "pessoal",
    "gente", "equipe",
    "hi", "hello", "hey", "good", "morning", "afternoon", "evening", "thanks", "thank",
    "you", "please", "sorry", "excuse", "me", "dear", "all", "everyone", "team", "there",
    # small talk: "¿qué tal?", "tudo bem?", "how are you?"
    "que", "tal", "como", "estas", "esta", "va", "todo", "tudo", "bem", "vai", "voce",
    "how", "are", "is", "it", "going", "doing",
    # as typed on a phone: "holi", "wenas", "eae"
    "holi", "holis", "wenas", "opa", "eae", "ey", "heya",
})  # fmt: skip
# ... and those that only thank, closing a question ("… ¿abre hoy? Gracias.").
THANKS_WORDS = frozenset({
    "gracias", "muchas", "mil", "por", "favor", "porfa", "saludos", "un", "saludo", "de",
    "antemano", "adelantado", "desde", "ya",
    "obrigado", "obrigada", "muito", "ja", "abracos", "abraco", "antecipadamente",
    "thanks", "thank", "you", "please", "in", "advance", "cheers", "regards",
    # as typed on a phone: "porfa", "xfa", "obg", "pls"
    "porfis", "plis", "xfa", "xfavor", "grax", "obg", "brigado", "brigada", "vlw", "valeu",
    "pls", "plz", "thx", "ty", "tks",
})  # fmt: skip
# A greeting that opens the question's own clause ("hola a qué hora abre…"), a request or
# thanks that closes it ("…la piscina porfa"): a few words only, so as not to take what
# asks ("como", "todos", "mil") for courtesy.
_OPENING_GREETINGS = frozenset({
    "hola", "holi", "holis", "wenas", "buenas", "oye", "oi", "opa", "eae", "hi",
    "hello", "hey", "heya", "ey",
})  # fmt: skip
_THANKING = frozenset({
    "gracias", "grax", "obrigado", "obrigada", "obg", "brigado", "brigada", "vlw", "valeu",
    "thanks", "thank", "thx", "ty", "tks", "cheers",
})  # fmt: skip
_CLOSING_THANKS = (_THANKING - {"thank", "cheers"}) | {
    "porfa", "porfis", "plis", "xfa", "xfavor", "please", "pls", "plz",
}  # fmt: skip
# A message of courtesy alone ("hola", "gracias!", "ok 👍", "tchau") asks nothing: the
# assistant answers it in kind (``courtesy_said``), with no search and no "no information".
_GREETING = _OPENING_GREETINGS | {
    "buenos", "dia", "dias", "tardes", "noches", "ola", "bom", "boa", "tarde", "noite",
    "morning", "afternoon", "evening",
}  # fmt: skip
# A question word alone asks ("¿Cómo?"), as does "why" ("¿Por qué?", "Por quê?"), though
# each is also a word of small talk ("¿qué tal?", "¿cómo estás?") or of "por favor".
_ASKING_ALONE = frozenset({"que", "como", "what", "how"})
_WHY = re.compile(r"\bpor\s*que\b")
# A time of day greets beside its "good" only ("buenos días", "boa tarde", "good evening").
_TIMES_OF_DAY = frozenset({
    "dia", "dias", "tarde", "tardes", "noches", "noite", "morning", "afternoon", "evening",
})  # fmt: skip
_GOOD = frozenset({"buenos", "buenas", "buen", "bom", "boa", "good"})
_SMALL_TALK = frozenset({"tal", "estas", "tudo", "how", "going", "doing"})  # "¿qué tal?"
_FAREWELLS = frozenset({
    "adios", "chau", "chao", "hasta", "luego", "pronto", "vemos", "nos", "tchau", "ate",
    "logo", "mais", "bye", "goodbye", "later", "see", "cya",
})  # fmt: skip
_ACKNOWLEDGEMENTS = frozenset({
    "ok", "okay", "okey", "oka", "vale", "dale", "perfecto", "perfecta", "genial", "entendido",
    "entendida", "claro", "listo", "lista", "bien", "bueno", "excelente", "super", "si",
    "acuerdo", "no", "nada", "jaja", "jajaja", "certo", "beleza", "blz", "otimo", "otima",
    "perfeito", "perfeita", "entendi", "show", "legal", "combinado", "ta", "sim", "nao", "kk",
    "great", "cool", "nice", "perfect", "got", "understood", "sure", "alright", "fine", "yes",
    "yep", "nope", "haha", "lol", "k",
})  # fmt: skip
_INTENSIFIERS = frozenset({"lot", "much", "so", "very", "muchisimas", "muito", "muita"})
_COURTESY_ALONE = (
    COURTESY_WORDS | THANKS_WORDS | _GREETING | _FAREWELLS | _ACKNOWLEDGEMENTS | _INTENSIFIERS
)
# Courtesy words only one of the three says: "obrigado" alone is too little for the
# language detector, but it is Portuguese.
_COURTESY_LANGUAGES = {
    SPANISH: frozenset({
        "hola", "holi", "holis", "wenas", "buenas", "buenos", "dias", "tardes", "noches",
        "gracias", "grax", "adios", "chau", "chao", "hasta", "luego", "pronto", "vemos", "vale",
        "dale", "perfecto", "genial", "entendido", "listo", "bien", "bueno", "acuerdo", "jaja",
        "jajaja", "tal", "estas", "si", "muchas", "muchisimas",
    }),
    PORTUGUESE: frozenset({
        "oi", "ola", "opa", "eae", "bom", "boa", "noite", "obrigado", "obrigada", "obg",
        "brigado", "brigada", "vlw", "valeu", "tchau", "ate", "logo", "certo", "beleza", "blz",
        "otimo", "otima", "perfeito", "entendi", "legal", "combinado", "sim", "nao", "kk",
        "tudo", "muito", "muita",
    }),
    ENGLISH: frozenset({
        "hi", "hello", "hey", "morning", "afternoon", "evening", "thanks", "thank", "thx", "ty",
        "cheers", "bye", "goodbye", "later", "okay", "great", "cool", "nice", "perfect",
        "understood", "sure", "alright", "fine", "yes", "yep", "nope", "haha", "lol", "how",
        "going", "doing", "lot",
    }),
}  # fmt: skip
# Letters typed three times or more ("holaaa", "graciasss", "oiii") are read once.
_DRAWN_OUT = re.compile(r"(\w)\1{2,}")
# How an asker introduces themself before asking ("soy Ana, del tercero B", "I'm new here").
_INTRODUCTION = re.compile(
    r"\s*(?:soy|me llamo|mi nombre es|sou|me chamo|meu nome e|aqui e|i'm|i am|my name is"
    r"|this is)\b"
)
# A clause: up to a stop, comma or colon that ends it (one inside a word, "ana.lopez@x.com"
# or "2.500", does not), or an opening "¿" / "¡".
_NAME = re.compile(r"\b[A-ZÁÉÍÓÚÂÊÔÃÕÇÑ][a-záéíóúâêôãõçñü]+")
_CLAUSE = re.compile(r"(?:[^,.;:!?¡¿\n]|[.,:](?=\S))+[,.;:!?\n]*|[¡¿]+")
# English "per", which PostgreSQL's English stopwords leave out: "And per week?" after the
# SUV's daily price named "per", a word no page says, and was taken for a new subject.
_PER = frozenset({"per"})
# Portuguese as spoken: "pra" for "para a", "daqui a três meses" for "in three months":
# "Tem vaga pra visitante?" closed with "Nada do que foi citado fala de “pra”". Not "pro"
# ("para o"), also a name: "Pro Bowl", "o plano Pro".
_SPOKEN = frozenset({"pra", "pras", "prum", "pruma", "daqui"})
# Whom a question addresses, the organisation: "¿ustedes tienen parking?", "vcs dão
# almoço?", "do you guys have parking?" name nothing ("Nada do que foi citado fala de
# “vcs”" closed an answer on the school's lunch).
_ADDRESSED = frozenset({
    "usted", "ustedes", "vosotros", "vosotras", "voce", "voces", "vc", "vcs",
    "vuestro", "vuestra", "vuestros", "vuestras", "seu", "sua", "seus", "suas",
    "you", "guys", "yall", "your", "yours",
})  # fmt: skip
# The stopwords PostgreSQL's Spanish and Portuguese lists spell with their accents
# ("não", "até", "também", "tenéis"), folded: the configurations fold accents first, so
# every language kept them, words that tell passages apart by nothing. "E se não encher?"
# (the tank) quoted a rental's "Não é permitido sair do Brasil" and "Não aceitamos cartão
# de débito"; "Até que horas?" after the building works' days quoted the rubbish's "até as
# 20h" and the party room's "até 60 dias". Spanish "no" and English "not" are stopwords.
_NOT = frozenset({"nao"})
_ACCENTED_STOPWORDS = _NOT | frozenset({
    # Spanish
    "eramos", "estabamos", "estais", "estan", "estara", "estaran", "estaras", "estare",
    "estareis", "estaria", "estariais", "estariamos", "estarian", "estarias", "esteis",
    "esten", "estuvieramos", "estuviesemos", "fueramos", "fuesemos", "habeis", "habia",
    "habiais", "habiamos", "habian", "habias", "habra", "habran", "habras", "habre",
    "habreis", "habria", "habriais", "habriamos", "habrian", "habrias", "hayais",
    "hubieramos", "hubiesemos", "mia", "mias", "mio", "mios", "seais", "sera", "seran",
    "seras", "sere", "sereis", "seriais", "seriamos", "serian", "serias", "si", "tambien",
    "tendra", "tendran", "tendras", "tendre", "tendreis", "tendria", "tendriais",
    "tendriamos", "tendrian", "tendrias", "teneis", "tengais", "tenia", "teniais",
    "teniamos", "tenian", "tenias", "tuvieramos", "tuviesemos",
    # Portuguese
    "ate", "estao", "estavamos", "estiveramos", "estivessemos", "foramos", "fossemos", "hao",
    "houveramos", "houverao", "houveriamos", "houvessemos", "ja", "sao", "serao", "tambem",
    "tera", "terao", "teriamos", "tinhamos", "tiveramos", "tivessemos", "voce", "voces",
})  # fmt: skip
_COMMON = (
    frozenset(fold(word) for words in STOPWORDS.values() for word in words)
    | QUESTION_WORDS
    | REQUEST_WORDS
    | _PER
    | _SPOKEN
    | _ADDRESSED
    | (_ACCENTED_STOPWORDS - _NOT)  # "não" tells a row lacking something ("sem", "none")
)
_ALGORITHMS = {SPANISH: "spanish", PORTUGUESE: "portuguese", ENGLISH: "english"}
_WORD = re.compile(r"\w+")
_ASKING = QUESTION_WORDS | REQUEST_WORDS | _ACCENTED_STOPWORDS | _PER
_QUOTED = re.compile(r'"[^"]*"')
# A stemmer object is not thread-safe (PyStemmer's documentation): one per thread and language.
_stemmers = threading.local()


def _stemmer(language: str) -> Stemmer.Stemmer:
    cached: dict[str, Stemmer.Stemmer] = _stemmers.__dict__
    if language not in cached:
        cached[language] = Stemmer.Stemmer(_ALGORITHMS[language])
    return cached[language]


def stem(word: str, language: str | None) -> str:
    """``word``'s stem in ``language``, folded ("Sábados" → "sab"); folded whole when the
    language is none of the three."""
    lowered = word.lower()
    if language == PORTUGUESE and lowered.endswith("ões"):
        lowered = singular_in_ao(lowered)
    if language in _ALGORITHMS:
        lowered = _stemmer(language).stemWord(lowered)
    return fold(lowered)


def singular_in_ao(word: str) -> str:
    """A Portuguese plural in "-ões" as its singular in "-ão", which Snowball stems apart
    ("opções" "opco", "opção" "opca"; "cartões", "cartão"): "Tem opção sem glúten?" closed
    with "nothing quoted mentions “opção”" under "Temos opções sem glúten"."""
    return word.removesuffix("ões") + "ão" if word.endswith("ões") else word


def plural_in_oes(word: str) -> str:
    """A Portuguese singular in "-ão" as its plural in "-ões" (``singular_in_ao``'s)."""
    return word.removesuffix("ão") + "ões" if word.endswith("ão") else word


def content_words(text: str, language: str | None) -> set[str]:
    """The stems of its words that say something: no stopword, no question word, nothing
    under three letters but figures and initials."""
    return {stem(word, language) for word in _words(text) if _says_something(word)}


def _says_something(word: str) -> bool:
    """A figure, or a word of three letters or more, or two capitals ("AB", "UE"), that is
    no common word: "Quanto custa a categoria AB?" quoted the "Categoria B" and "Categoria
    A" rows, its "AB" read as nothing, the "Categoria AB" row not at all."""
    if word.isdigit():
        return True
    return (len(word) > 2 or _initials(word)) and fold(word) not in _COMMON


def _initials(word: str) -> bool:
    return len(word) == 2 and word.isupper() and word.isalpha()


def _words(text: str) -> list[str]:
    """Its words, but two capitals ending a name inside a sentence ("el motor Energiprojekt
    AB", "utiliza Sky+HD"): the name says them, and counted apart they drew the answer to
    sentences repeating the whole name (the dev splits lost two answers so)."""
    ends = {match.start(1) for match in _NAME_ENDING.finditer(text)}
    return [match.group() for match in _WORD.finditer(text) if match.start() not in ends]


_NAME_ENDING = re.compile(r"(?<=\w )[A-ZÁÉÍÓÚÂÊÔÃÕÇÑ]\w*\W{1,2}([A-Z]{2})\b")


def naming_words(question: str) -> list[str]:
    """The words of ``question`` that name something: neither courtesy, a common word, a
    question word, a word that only asks to be told, one that asks for a kind of fact, nor
    a light verb ("¿y el wifi?" and "¿hay wifi?" name "wifi"; "¿y cuánto cuesta?" names
    nothing). Nor the cheap or dear of "¿Cuál es la cuota más barata?", which names only
    "cuota": no price list says "barata", and the question was "no information"."""
    # "segunda-feira" names Monday, as "segunda" does: "feira" alone is a market
    question = _FEIRA_OF_A_DAY.sub("", without_courtesy(question))
    question = _days_together_as_a_time(question)
    asking = _cheap_or_dear_words(question) | _contact_asked(question)
    return [
        word
        for word in _words(question)
        if (len(word) > 2 or _initials(word))
        and fold(word) not in _COMMON | FACT_WORDS | LIGHT_VERBS | QUALIFIERS | asking
    ]


# "segunda-feira", "segundas-feiras": the day is its first word
_FEIRA_OF_A_DAY = re.compile(r"(?<=\w)-feiras?\b", re.I)


def courtesy_said(message: str) -> str:
    """What a message of courtesy alone says — "thanks", "farewell", "greeting" or "ok"
    ("ok", "👍", "no") —; "" when it says anything else."""
    words = {_as_said(word) for word in _WORD.findall(message)}
    if not words <= _COURTESY_ALONE or (words & _TIMES_OF_DAY and not words & _GOOD):
        return ""  # "Que dia?" after a class's teacher asks which day, and greets nobody
    if "?" in message and (words <= _ASKING_ALONE or _WHY.search(fold(message))):
        return ""  # "¿Por qué?", "¿Cómo?" ask about the answer before
    if _HOW_MUCH.search(fold(message)):
        return ""  # "How much?" after the car park asks its price: "much" also thanks
    greeting = _GREETING | _SMALL_TALK
    for kind, among in (("thanks", _THANKING), ("farewell", _FAREWELLS), ("greeting", greeting)):
        if words & among:
            return kind
    return "ok"


def courtesy_language(message: str) -> str | None:
    """The language whose courtesy words a message uses, when only one's ("obrigada!!")."""
    words = {_as_said(word) for word in _WORD.findall(message)}
    said = [code for code, among in _COURTESY_LANGUAGES.items() if words & among]
    return said[0] if len(said) == 1 else None


def without_courtesy(query: str) -> str:
    """``query`` without the clauses that open it only to greet or say who is asking, nor
    those that close it only to thank: "Hola, soy Ana del tercero B, ¿a qué hora abre la
    piscina? Gracias" asks "¿a qué hora abre la piscina?". Unchanged when nothing else would
    be left."""
    clauses = _CLAUSE.findall(query)
    worded = [i for i, clause in enumerate(clauses) if _WORD.search(clause)]
    if len(worded) < 2:
        return _without_edge_courtesy(query)
    first, last = worded[0], worded[-1]
    while first < last and (_only(COURTESY_WORDS, clauses[first]) or _introduces(clauses[first])):
        first = next(i for i in worded if i > first)
    while last > first and _only(THANKS_WORDS, clauses[last]):
        last = max(i for i in worded if i < last)
    if (first, last) != (worded[0], worded[-1]):
        start = first if first == 0 or _WORD.search(clauses[first - 1]) else first - 1  # "¿"
        query = "".join(clauses[start : last + 1]).strip(" ,;:")
    return _without_edge_courtesy(query)


# How a question opens after the situation told before it: a question word, a verb that
# asks ("can", "do", "posso", "puedo", "tem"), or Spanish "¿".
_ASKS_OPENING = frozenset({
    "can", "could", "do", "does", "did", "is", "are", "am", "was", "were", "will", "would",
    "should", "may", "must", "have", "has",
})  # fmt: skip
# The asker telling of themselves: "Mi perra está embarazada", "Moro no 502", "I'm 17".
_FIRST_PERSON = frozenset({
    "yo", "mi", "mis", "soy", "estoy", "tengo", "voy", "vamos", "somos", "estamos",
    "tenemos", "nuestro", "nuestra", "nuestros", "nuestras",
    "eu", "meu", "minha", "meus", "minhas", "sou", "estou", "tenho", "vou", "moro", "nosso",
    "nossa", "nossos", "nossas",
    # "I'm", "I've", "we're" as the apostrophe left out reads them
    "i", "im", "ive", "ill", "my", "we", "were", "weve", "our", "ours",
})  # fmt: skip
_TOLD = re.compile(r"\w+(?:'\w+)?")


def question_after_situation(query: str) -> str:
    """The question that closes ``query`` when a statement opens it, the situation the
    asker is in: "Moro no 502 e vou reformar a cozinha, posso fazer obra no sábado?" asks
    "posso fazer obra no sábado?"; "I'm 17, do I have to pay for a check-up?", "do I have
    to pay for a check-up?". "" when nothing is told before the question, or the question
    does not open as one does."""
    clauses = _CLAUSE.findall(without_courtesy(query))
    worded = [clause for clause in clauses if _WORD.search(clause)]
    if len(worded) < 2 or not worded[-1].rstrip().endswith("?"):
        return ""
    if any(clause.rstrip().endswith("?") for clause in worded[:-1]):
        return ""  # questions asked one after another, not a situation told
    told = {fold(word).replace("'", "") for word in _TOLD.findall("".join(worded[:-1]))}
    if not told & _FIRST_PERSON:
        return ""  # "Em 1990, quem ganhou…?": a circumstance of what is asked
    opening = _WORD.findall(worded[-1])[0]
    asks = fold(opening) in _ASKING_WORDS | LIGHT_VERBS | _ASKS_OPENING
    spanish = clauses[-2].strip() == "¿" if len(clauses) > 1 else False
    return worded[-1].strip() if asks or spanish else ""


def _without_edge_courtesy(query: str) -> str:
    """``query`` without a greeting its first words are, nor thanks its last words are
    ("holaaa a q hora abre la piscina porfa" asks "a q hora abre la piscina")."""
    words = list(_WORD.finditer(query))
    first, last = 0, len(words)
    while first < last and _as_said(words[first].group()) in _OPENING_GREETINGS:
        first += 1
    while last > first and _as_said(words[last - 1].group()) in _CLOSING_THANKS:
        last -= 1
    if (first, last) == (0, len(words)) or first == last:  # nothing, or nothing else
        return query
    start = words[first].start() if first else 0
    end = words[last - 1].end() if last < len(words) else len(query)
    return query[start:end].strip(" ,;:!¡")


def _as_said(word: str) -> str:
    """``word`` folded, its drawn-out letters read once."""
    return _DRAWN_OUT.sub(r"\1", fold(word))


def _only(words: frozenset[str], clause: str) -> bool:
    return all(_as_said(word) in words for word in _WORD.findall(clause))


def _introduces(clause: str) -> bool:
    """The asker saying their name ("soy Ana", "aqui é a Maria", "I'm Tom"); what they are
    ("soy propietario", "I'm new here") may be what the question turns on, and stays."""
    introduction = _INTRODUCTION.match(fold(clause))
    return bool(introduction and _NAME.search(clause, introduction.end()))


# Verbs any question may lean on — may, have, there is: "¿puedo tener un perro?", "tem
# estacionamento?", "can I have a cat?" —: they name nothing, and a handbook that answers
# need not use them. Not those that do ("posso levar visita?" asks about bringing).
LIGHT_VERBS = frozenset({
    "puedo", "puede", "puedes", "pueden", "podemos", "podeis", "poder", "tener", "tengo",
    "tiene", "tienes", "tienen", "tenemos", "hay",
    "posso", "pode", "podem", "ter", "tenho", "tem", "temos", "ha",
    "can", "could", "may", "might", "have", "has", "had", "do", "does", "did", "there",
    # "what do I do if…", "where is…": "¿qué hago si…?", "o que faço se ficar doente?",
    # "onde fica a biblioteca?"
    "hago", "hace", "hacen", "hacemos", "haceis", "hacer", "faco", "faz", "fazem", "fazemos",
    "fazer",
    "fico", "fica", "ficam", "ficar",
    # being (somewhere): "¿Dónde está la tienda?" names the shop, "¿Dónde estáis?" nothing
    "estar", "esta", "estan", "estas", "estais", "estoy", "estamos", "estao", "estou",
    # "¿qué pasa si cancelo…?", "o que acontece se…?", "what happens if…?"
    "pasa", "pasaria", "ocurre", "sucede", "acontece", "aconteceria", "happens", "happen",
    # what something holds: "¿las croquetas llevan gluten?", "o bolo contém leite?"
    "lleva", "llevan", "contiene", "contienen", "contem", "contain", "contains",
    # wanting: "¿y si quiero salir más tarde?", "quero levar visita", "I want to book"
    "quiero", "quiere", "quieres", "queremos", "quereis", "quieren", "quisiera", "querer",
    "quero", "quer", "querem", "queria", "gostaria",
    "want", "wants", "wanted", "wanna", "wish",
    # giving: "vocês dão almoço?", "do you give towels?" (not "dan", also a name)
    "dar", "dais", "dao", "give", "gives",
    # putting: "¿ponéis microchip?", "¿dónde pongo la basura?"
    "poner", "pongo", "pone", "pones", "ponen", "poneis", "ponemos",
    # accepting a way to pay: "Aceita pix?" over "Pagamento: Pix, cartões…" (held, "aceita"
    # kept the page from holding every word asked, and it was "no information")
    "acepta", "aceptan", "aceptais", "aceptas", "aceita", "aceitam", "accept", "accepts",
    # getting, seeing, keeping: "Can I get a check-up on Saturday?", "Do you see NHS
    # patients?", "Can I keep chickens?" (the rules' "kept", which no stem joins)
    "get", "gets", "see", "sees", "keep", "keeps",
})  # fmt: skip
# Words that qualify what a question names without naming anything: "¿puedo traer mi
# propia tarta?" asks about a cake; "propia" got "nothing quoted mentions" beside the
# menu's "No se puede traer tarta de fuera sin avisar".
QUALIFIERS = frozenset({
    "propio", "propia", "propios", "propias", "proprio", "propria", "proprios", "proprias",
    "own", "mismo", "misma", "mismos", "mismas", "mesmo", "mesma", "mesmos", "mesmas", "same",
})  # fmt: skip


# A pronoun standing for what an earlier question named: "until what time can they stay?"
# after "How many guests can I bring?", "How much does it cost?" after the gym's hours.
# Lowercased, not folded: Spanish "él" is not the article "el". Not "la", "los", "las",
# articles as often as pronouns, nor "that", as often a conjunction.
_REFERRING = frozenset({
    "it", "its", "they", "them", "their", "he", "she", "him", "her",
    "él", "ella", "ellos", "ellas", "eso", "esto", "lo", "le", "les",
    "ele", "ela", "eles", "elas", "dele", "dela", "deles", "delas", "nele", "nela", "isso",
    "isto",
})  # fmt: skip


# "That" or "this" standing alone for what came before: last, or before a verb ("How much
# does that cost?" after whether one may check in earlier was searched alone, and quoted
# breakfast's prices). Not a conjunction ("Is it true that…") nor a determiner ("that
# room").
_THAT_ALONE = re.compile(
    r"\b(?:that|this|those|these)(?=\W*$|\s+(?:costs?|includes?|takes?|works?|means?|opens?|"
    r"closes?|lasts?|appl(?:y|ies)|requires?|needs?|have|has|is|are|was|were|will|can|"
    r"would|should)\b)"
    # "Is that free?", "Is this included?": a copula, the pronoun and what is said of it
    r"|^\W*(?:and\s+)?(?:is|was|are|were)\s+(?:that|this|those|these)\s+\w+\W*$"
)


def refers_back(question: str) -> bool:
    """The question says "it", "they", "eso", "ele"…: it asks about something named before;
    or asks it again of another time, place or person ("¿Y en julio?"); or who sent "the
    e-mail", naming no one message ("¿Quién envió el correo?" after the breakfast's hours,
    quoted from a hotel's e-mail, was "no information")."""
    return (
        _says_a_referring_word(question.lower())
        or bool(_THAT_ALONE.search(question.lower()))
        or _asks_under_another_circumstance(question)
        or _asks_who_sent_it(question)
        or asks_whether_it_is(question)
    )


def _says_a_referring_word(lowered: str) -> bool:
    """A pronoun standing for what came before; not the "it" that only holds the place of
    what follows: "How much does it cost to park?" after the check-in's time quoted the
    early check-in's price, "How long does it take to the airport?" after breakfast's hours
    those hours."""
    referring = [word for word in _WORD.findall(lowered) if word in _REFERRING]
    return bool(referring) and not (referring == ["it"] and _IT_OF_WHAT_FOLLOWS.search(lowered))


# "It" before the clause it stands for: "does it take (me) to get…", "is it possible to…".
_IT_OF_WHAT_FOLLOWS = re.compile(
    r"\bit\s+(?:takes?|took|costs?)\s+(?:(?:me|us|you|them)\s+)?to\s+\w+"
    r"|\bit\s+(?:be\s+)?(?:possible|allowed|permitted|ok|okay|necessary|mandatory|compulsory|"
    r"required|safe|easy|difficult|hard|worth\s+it)\s+(?:for\s+\w+\s+)?to\s+\w+"
)


# "Is it…?" with the "it" left unsaid, as Spanish and Portuguese do: a copula and the one
# word said of what came before. Lowercased, not folded: "E SUV?" asks "and the SUV?".
_IS_IT = re.compile(
    r"^\W*(?:(?:y|e)\s+)?(?:es|son|est[aá]|est[aá]n|ser[ií]a|é|s[aã]o|est[aã]o|fica|ficam)"
    r"\s+\w+\W*$"
)


def asks_whether_it_is(question: str) -> bool:
    """Whether what was named before is so: "É obrigatório?" after the GPS's price asks
    whether the GPS is (it quoted the child seat's "Obrigatória para menores de 7 anos"),
    "¿Es gratis?", "¿Está incluido?". Not with a subject of its own ("¿Es obligatorio el
    casco?"), nor with a word naming one ("¿Es domingo?" asks of a day)."""
    asked = without_courtesy(question).lower()
    if not _IS_IT.match(asked):
        return False
    said = fold(_WORD.findall(asked)[-1])
    return said not in _DETERMINERS | _CALENDAR | _ASKING_WORDS


# Days, months, times of day and of the year, folded, as a follow-up asks of them.
_CALENDAR = frozenset({
    "lunes", "martes", "miercoles", "jueves", "viernes", "sabado", "sabados", "domingo",
    "domingos", "festivo", "festivos", "finde", "enero", "febrero", "marzo", "abril", "mayo",
    "junio", "julio", "agosto", "septiembre", "setiembre", "octubre", "noviembre",
    "diciembre", "manana", "mananas", "tarde", "tardes", "noche", "noches", "verano",
    "invierno", "primavera", "otono", "navidad", "hoy",
    "segunda", "segundas", "terca", "tercas", "quarta", "quartas", "quinta", "quintas",
    "sexta", "sextas", "feriado", "feriados", "janeiro", "fevereiro", "marco", "maio",
    "junho", "julho", "setembro", "outubro", "novembro", "dezembro", "manhas", "noite",
    "noites", "verao", "inverno", "outono", "natal", "hoje", "amanha",
    "monday", "mondays", "tuesday", "tuesdays", "wednesday", "wednesdays", "thursday",
    "thursdays", "friday", "fridays", "saturday", "saturdays", "sunday", "sundays", "weekend",
    "weekends", "holiday", "holidays", "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december", "morning", "mornings",
    "afternoon", "afternoons", "evening", "evenings", "night", "nights", "summer", "winter",
    "spring", "autumn", "fall", "christmas", "today", "tomorrow", "tonight",
    # and what a time is counted in: "¿Qué días?" after a course for the elderly
    "dia", "dias", "fecha", "fechas", "semana", "semanas", "mes", "meses", "data", "datas",
    "day", "days", "date", "dates", "week", "weeks", "month", "months",
})  # fmt: skip


# A few words opening with a preposition ask the question before again, of another time,
# place or person: "¿Y en julio?" after whether the pool opens in October (it quoted an
# English page's holidays: "julio", in no page, was taken for a new subject, as "wifi" in
# "¿y el wifi?"), "E no sábado?", "And on weekends?", "¿Y para niños?". Folded; Portuguese
# "no" after "e" only, Spanish "no" being "not"; "a" after "y" only, Portuguese's "the" as
# often ("A piscina abre?"). Not "¿En qué planta…?", which asks of its own, nor a longer
# question ("En la piscina, ¿se puede comer?"). A day, a month, a time of day or year alone
# asks it again too (``_ONLY_A_TIME``): "¿Y los domingos?" after the clinic's hours; and
# so does a question naming only one ("Abre domingo?").
_CIRCUMSTANCE = re.compile(
    r"^\W*(?:(?:y|e|and)\s+)?(?:"
    r"en|durante|hasta|desde|antes|despues|para|con|sin|al|(?<=y\s)a|"
    r"em|na|nas|ao|aos|pelo|pela|ate|depois|com|sem|pra|"
    r"in|on|at|per|during|until|after|before|for|with|without|(?<=e\s)(?:no|nos)"
    r")\s+(?!(?:que|what|which|whom|{asking})\b)\w".format(asking="|".join(sorted(QUESTION_WORDS)))
)
_ONLY_A_TIME = re.compile(
    r"^\W*(?:(?:y|e|and)\s+)?(?:(?:en|el|la|los|las|em|no|na|nos|nas|o|a|os|as|on|in|at|the|"
    r"next|este|esta|esse|essa|proximo|proxima|proximos|proximas)\s+)*(?:{times})\W*$".format(
        times="|".join(sorted(_CALENDAR))
    )
)
_CIRCUMSTANCE_WORDS = 5  # after "and"


def _asks_under_another_circumstance(question: str) -> bool:
    folded = fold(question)
    words = _WORD.findall(folded)
    if words[:1] in (["y"], ["e"], ["and"]):
        words = words[1:]
    if asks_again_of_a_time(question):
        return True
    return len(words) <= _CIRCUMSTANCE_WORDS and bool(_CIRCUMSTANCE.match(folded))


def asks_again_of_a_time(question: str) -> bool:
    """A time alone ("¿Y los domingos?", "E à tarde?"), or a question naming only one ("Abre
    domingo?" after the booking line's hours): the question before, asked again of it."""
    if _ONLY_A_TIME.match(fold(question)):
        return True
    named = naming_words(question)
    return bool(named) and all(fold(word) in _CALENDAR for word in named)


# "And if…?", in a few words: "E se não encher?" after whether the tank must be full.
_AND_IF = re.compile(r"^\W*(?:y|e|and)\s+(?:si|se|if)\b")


def asking_words(query: str) -> list[str]:
    """The words of ``query`` (as written) that ask for a price, a time, a place or a
    contact rather than name something ("cuesta", "abre"), each once. Not those asking
    whether one may, or bring or need something: a page may say them ("need the
    committee's approval"), and one that does not may not answer ("what time do I need
    to leave the room?" is not the fitness room's hours)."""
    asking = FACT_WORDS - ALLOWING_OR_BRINGING
    return list(dict.fromkeys(w for w in _WORD.findall(query) if fold(w) in asking))


def names_a_time(word: str) -> bool:
    """``word`` is a day, a month, a time of day or of the year, a holiday ("agosto",
    "sábados", "Christmas")."""
    return fold(word) in _CALENDAR


def weekdays_named(text: str, language: str | None) -> set[int]:
    """The days of the week ``text`` names, Monday 0, in any of the three languages, a
    range's every day ("de lunes a viernes", "segunda a sexta", "Monday to Friday"): a
    question in English asks a Spanish timetable's "Lunes" column by "Monday". Portuguese
    "segunda" or "quinta" is a day only outside Spanish, where it is "second", "fifth"."""
    days: set[int] = set()
    after: int | None = None  # the day a range may run from
    ranging = False
    for token in _DAY_TOKEN.findall(_FEIRA_OF_A_DAY.sub("", fold(text))):
        name = _weekday_name(token)
        if name in _WEEKDAYS and not (language == "es" and name in _ORDINALS):
            day = _WEEKDAYS[name]
            if ranging and after is not None:
                days.update((after + step) % 7 for step in range((day - after) % 7 + 1))
            days.add(day)
            after, ranging = day, False
        elif token in _RUNS_TO and after is not None and not ranging:
            ranging = True
        else:
            after, ranging = None, False
    return days


def weekdays_asked(question: str, language: str | None) -> set[int]:
    """The days of the week ``question`` names (``weekdays_named``), not a Portuguese
    ordinal before a noun: "a segunda melhor universidade", "na quarta edição" name no
    day; "Tem aula na segunda?", "segunda de manhã", "segunda-feira" do. And the days it
    names together: every day, the working days, the weekend ("¿Abrís todos los días?",
    "Are you open on weekdays?", "E no fim de semana?")."""
    folded = fold(question)
    days = weekdays_named(_ORDINAL_BEFORE_A_NOUN.sub("", folded), language)
    for said, together, _ in _DAYS_TOGETHER:
        if said.search(folded):
            days |= together
    return days


def _days_together_as_a_time(question: str) -> str:
    """``question`` with the days it names together said as one word naming a time:
    "todos los días" as "dias", "weekdays" as "semana", "fim de semana" as "finde"."""
    for said, _, as_a_time in _DAYS_TOGETHER:
        question = said.sub(as_a_time, question)
    return question


# Days said together: every day, Monday to Friday, the weekend, as a question asks them (a
# passage saying them is searched by weekday_spans' _EVERY_DAY and _WORKING_DAYS). Accents
# as written or not: naming_words keeps a question's words as written.
_DAYS_TOGETHER = (
    (
        re.compile(
            r"\b(?:every\s*day|daily|tod[oa]s\s+(?:los|os|as)\s+d[ií]as|diariamente|a\s+diario)\b",
            re.I,
        ),
        frozenset(range(7)),
        "dias",
    ),
    (
        re.compile(
            r"\b(?:week\s*days?|entre\s+semana|d[ií]as?\s+(?:laborables?|[úu]teis|[úu]til|"
            r"laborais|h[áa]biles))\b",
            re.I,
        ),
        frozenset(range(5)),
        "semana",
    ),
    (
        re.compile(r"\b(?:week\s*ends?|fi(?:n|nes|m|ns)\s+de\s+semana)\b", re.I),
        frozenset({5, 6}),
        "finde",
    ),
)


_ORDINAL_BEFORE_A_NOUN = re.compile(
    r"\b(?:segunda|terca|quarta|quinta|sexta)s?\s+"
    r"(?!(?:e|ou|a|as|ate|de|da|do|pela|pelo|feira|feiras)\b)[^\W\d_]+"
)


def language_of_weekdays(text: str) -> str | None:
    """The language whose names of the days of the week ``text`` says, for a question too
    short to tell its own ("Abre no domingo?"): en, pt or es; "sábado" and "domingo", the
    same in Spanish and Portuguese, read as Spanish (across English the two are one)."""
    names = {_weekday_name(word) for word in _WORD.findall(fold(text))} & _WEEKDAYS.keys()
    if not names:
        return None
    if names & _ENGLISH_WEEKDAYS:
        return "en"
    return "pt" if names & _PORTUGUESE_WEEKDAYS or "feira" in fold(text) else "es"


def _weekday_name(word: str) -> str:
    """A folded word as a day's name is written singular: "sabados" is "sabado"."""
    return word if word in _WEEKDAYS else word.removesuffix("s")


def weekday_names(days: set[int]) -> tuple[str, ...]:
    """Each day's names in the three languages, folded: {5} is ("sabado", "saturday")."""
    return tuple(name for name, day in _WEEKDAYS.items() if day in days)


def weekday_spans(days: set[int]) -> tuple[str, ...]:
    """How a passage may say the days without naming them, folded, in websearch syntax: a
    day before each with a day after it, in one language ({1}, Tuesday: "lunes viernes",
    "segunda sexta", "monday friday"…: "de lunes a viernes", "Monday to Friday"), every
    day ("daily", "todos os dias"), and for Monday to Friday the working days ("weekdays",
    "every school day", "dias úteis")."""
    pairs = (
        f"{week[before]} {week[after]}"
        for day in sorted(days)
        for week in _WEEKS
        for before in range(day)
        for after in range(day + 1, len(week))
    )
    working_days = _WORKING_DAYS if days & set(range(5)) else ()
    return tuple(dict.fromkeys([*pairs, *_EVERY_DAY, *working_days]))


_DAY_TOKEN = re.compile(r"\w+|[-–]")
# What runs one day to another: "lunes a viernes", "Monday to Friday", "segunda até sexta".
_RUNS_TO = frozenset({"a", "al", "to", "ate", "through", "thru", "-", "–"})
# Each language's week, Monday first, folded.
_WEEKS = (
    ("lunes", "martes", "miercoles", "jueves", "viernes", "sabado", "domingo"),
    ("segunda", "terca", "quarta", "quinta", "sexta", "sabado", "domingo"),
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
)
_WEEKDAYS = {name: day for week in _WEEKS for day, name in enumerate(week)}
_ORDINALS = frozenset({"segunda", "quinta", "sexta"})
# Not "todos los días" nor "entre semana": each config drops its stopwords, and the
# Spanish one would read them "días" and "semana", said of anything.
_EVERY_DAY = ("daily", '"every day"', "everyday", "diario", "diariamente")
_WORKING_DAYS = (
    "weekdays", "weekday", '"school day"', '"school days"', '"dias laborables"',
    '"dias uteis"', '"dia util"', '"dias laborais"',
)  # fmt: skip
_ENGLISH_WEEKDAYS = frozenset(_WEEKS[2])
_PORTUGUESE_WEEKDAYS = frozenset(_WEEKS[1][:5])


def without_words(text: str, words: set[str]) -> str:
    """``text`` without the words (as written) ``words``; unchanged when none is in it."""
    if not words:
        return text
    left = _WORD.sub(lambda match: "" if match.group() in words else match.group(), text)
    return " ".join(left.split())


def opens_with_and(question: str) -> bool:
    """The question opens with "and" ("E até que horas pode ser usado?" after the party
    room's price, "¿Y para niños cuánto es?"): it goes on asking of what came before."""
    return bool(_AND.match(fold(question)))


_AND = re.compile(r"^\W*(?:y|e|and)\s+\w")


def asks_what_if(question: str) -> bool:
    """A few words asking "and if…?" of what came before: "E se não encher?", "¿Y si
    llueve?". What they name may be in no page ("encher": the page says "faltar
    combustível"); what it is asked of was named before."""
    folded = fold(question)
    words = len(_WORD.findall(folded)) - 1  # after "and", as _CIRCUMSTANCE_WORDS counts
    return bool(_AND_IF.match(folded)) and words <= _CIRCUMSTANCE_WORDS


def _asks_who_sent_it(question: str) -> bool:
    if not asks_sender(question):
        return False
    asking = _asked_by_phrase(question) | _SENDER_WORDS
    named = {fold(word) for word in naming_words(question)} - asking
    return named <= _A_MESSAGE  # "¿Quién lo envió?", "¿quién envió el correo?"


# Words asking whether something is there at all: "¿hay wifi?", "tem academia?", "is there
# a sauna?", "do you have parking?", "¿tienen gimnasio?". Lowercased, not folded: Spanish
# "ha" ("¿quién ha ganado?") is not Portuguese "há".
_THERE_IS = frozenset({
    "hay", "existe", "existen", "tiene", "tienen", "tenéis",
    "há", "tem", "têm", "existem",
    "there", "have", "has",
})  # fmt: skip


def asks_whether_there_is(question: str) -> bool:
    """Not when a word asks what, how much or where: "Quanto espaço tem meu e-mail?" asks
    for a size, which the page says in figures, not in the question's words."""
    words = _WORD.findall(question.lower())
    return not _THERE_IS.isdisjoint(words) and _ASKING_WORDS.isdisjoint(map(fold, words))


# Asking whether something is allowed, in its opening words: "¿se puede fumar en la
# piscina?", "¿se admiten mascotas?", "posso levar meu cachorro?", "can I smoke by the
# pool?", "is smoking allowed?". Not "¿cuándo se puede usar la piscina?", which asks when,
# nor a bare "¿puede…?" / "pode…?" / "can you…?", as often a request ("¿puede decirme…?").
_ALLOWED = re.compile(
    r"^\W*(?:(?:y|e|and)\s+)?(?:"
    r"se\s+(?:puede|pueden|permite|permiten|admite|admiten)|puedo|podemos|"  # es and pt
    r"esta(?:n)?\s+(?:permitid|prohibid)[oa]s?|"
    r"posso|pode-se|(?:e|sao)\s+(?:permitid|proibid)[oa]s?|"
    r"(?:can|may)\s+(?:i|we|guests|visitors|children|kids|(?:my|our)\s+\w+)|am\s+i\s+allowed|"
    r"(?:is|are)\s+(?:it\s+|\w+\s+){0,2}(?:allowed|permitted|ok|okay|possible)|"
    r"(?:es|e)\s+(?:posible|possivel))\b"
)
# Words that ask it, and verbs of going in or using, which name nothing the pages would:
# "admiten", "permitido", "aceitam" ("Aceitam boleto?" is answered by the payment table's
# "Boleto" row); "¿se puede usar el gimnasio el domingo?" is answered by its hours, which
# never say "usar".
_ALLOWING = frozenset({
    "permite", "permiten", "admite", "admiten", "permitido", "permitida", "permitidos",
    "permitidas", "prohibido", "prohibida", "prohibidos", "prohibidas", "esta", "estan",
    "proibido", "proibida", "proibidos", "proibidas",
    "aceptan", "acepta", "aceptais", "aceitam", "aceita", "accept", "accepts",
    "allowed", "permitted", "okay", "posible", "possivel", "possible",
    "usar", "utilizar", "entrar", "acceder", "ir", "venir", "frecuentar",
    "frequentar", "acessar", "vir",
    "use", "enter", "access", "come", "visit",
})  # fmt: skip


def asks_whether_allowed(question: str) -> bool:
    return bool(_ALLOWED.match(fold(question)))


def asks_allowing(word: str) -> bool:
    """``word`` is one of those asking whether something is allowed ("admiten")."""
    return fold(word) in _ALLOWING


# A question answered yes or no, about what something is or does: "Is the pool heated?",
# "¿La piscina está climatizada?", "A piscina é aquecida?". English says it by its opening
# verb; Spanish and Portuguese by no word asking what, which, when, where, how, how much,
# who or why (a "que" alone may join a clause: "¿es cierto que…?" is left out, as unsure).
_YES_OR_NO_EN = re.compile(r"^\W*(?:(?:and|so)\s+)?(?:is|are|does|do|will|was|were|did)\b")
# The question words less the verbs among them, which a yes-or-no question says too.
_ASKING_WORDS = (QUESTION_WORDS - {"foi", "fue", "was", "son", "sao", "are"}) | {
    "que", "adonde", "aonde", "porque", "whom", "whose", "why",
}  # fmt: skip


# Words that say a noun follows: an article, a possessive, a demonstrative ("¿Dónde está
# la sauna?" names a subject of its own; "Quando cai?" does not).
_DETERMINERS = frozenset({
    "el", "la", "los", "las", "un", "una", "unos", "unas", "mi", "mis", "tu", "tus", "su",
    "sus", "este", "esta", "ese", "esa",
    "o", "a", "os", "as", "um", "uma", "uns", "umas", "meu", "minha", "seu", "sua", "esse",
    "essa", "da", "dos", "das", "na", "nas",  # not "do", "no": "Where do I sign?"
    "the", "an", "my", "your", "our", "their", "this", "that",
})  # fmt: skip


_NO_SUBJECT_WORDS = 4


def asks_with_no_subject(question: str) -> bool:
    """A question word and a verb or two, with no article ("Quando cai?" after the meal
    allowance's amount, "¿Cuándo pagan?"): Spanish and Portuguese leave out the subject
    named before, even after a preposition ("Com quanto tempo?" after how the party room is
    booked). Four words at most, after "and"."""
    words = _WORD.findall(fold(without_courtesy(question)))
    if words[:1] in (["y"], ["e"], ["and"]):
        words = words[1:]
    if len(words) > 1 and words[0] in _BEFORE_ASKING and words[1] in _ASKING_WORDS:
        words = words[1:]  # "Com quanto tempo?", "¿A qué hora?", "For how long?"
    # "E até que horas pode ser usado?": "pode ser" names nothing, as "it can be" would
    if _counts_a_thing(words):
        return False  # "Quantos pets posso levar?" after the rooms names the pets
    said = [word for word in words if word not in LIGHT_VERBS | _BEING]
    return (
        0 < len(said) <= _NO_SUBJECT_WORDS
        and words[0] in _ASKING_WORDS
        and _DETERMINERS.isdisjoint(words)
    )


_BEING = frozenset({"ser", "es", "son", "sera", "seria", "sao", "be", "is", "are"})


def _counts_a_thing(words: list[str]) -> bool:
    """How many of a thing, named after the count word: "Quantos pets…", "how many dogs…".
    Not what a count is said in, a time, people or a sum: "¿Cuántas personas caben?" and
    "Quantos dias?" ask of the subject before."""
    if words[:2] == ["how", "many"]:
        words = words[1:]
    if len(words) < 2 or words[0] not in _COUNT_WORDS:
        return False
    return words[1] not in _CALENDAR | _COUNTED_IN | LIGHT_VERBS | _BEING


_COUNT_WORDS = frozenset({"cuantos", "cuantas", "quantos", "quantas", "many"})
_COUNTED_IN = frozenset({
    "horas", "hours", "minutos", "minutes", "anos", "years", "veces", "vezes", "times",
    "personas", "pessoas", "people", "euros", "reais", "dolares", "dollars", "libras", "pounds",
})  # fmt: skip


_BEFORE_ASKING = frozenset({
    "a", "con", "en", "de", "desde", "hasta", "para", "por", "com", "em", "ate",
    "for", "in", "at", "with", "until", "since", "by",
})  # fmt: skip


def asks_how_long(question: str) -> bool:
    """The question asks how long something lasts or takes: "How long…?", "How much
    time…?", "¿Cuánto tiempo / dura / tarda / demora…?", "Quanto tempo / demora…?", and
    whether it takes long ("¿Tarda mucho?", "Demora muito?", "Does it take long?")."""
    return bool(_ASKS_HOW_LONG.search(fold(question)))


_ASKS_HOW_LONG = re.compile(
    r"\b(?:(?:cuanto|quanto)\s+(?:tiempo|tempo|rato|dura|duran|duram)|how\s+long"
    r"|how\s+much\s+time)\b"
    r"|\bcuanto\s+(?:se\s+)?(?:tarda|tardan|demora|demoran)\b|\bquanto\s+(?:demora|demoram)\b"
    r"|\b(?:tarda|tardan|demora|demoran)\s+mucho\b|\b(?:demora|demoram)\s+muito\b"
    r"|\btakes?\s+long\b"
)


def asks_yes_or_no(question: str) -> bool:
    folded = fold(question)
    if asks_how_long(question):
        return False  # "¿Tarda mucho el blanqueamiento?" is answered by how long it takes
    if not folded.rstrip().endswith("?") or not _ASKING_WORDS.isdisjoint(_WORD.findall(folded)):
        return False
    if _YES_OR_NO_EN.match(folded):
        return True
    return detect_language(question) in (SPANISH, PORTUGUESE)


# Whom to turn to, asked: "com quem falo se o portão quebrar?", "¿a quién aviso si…?", "who
# do I call about…?". The verb says how the asker reaches a person, not what about: the
# page that answers names the person ("avise o zelador", "Maintenance handles…") and seldom
# the asker's verb, which weighed as a rare word turned the answer into "no information".
_WHOM_TO_TURN_TO = re.compile(
    r"\b(?:con quien|a quien|com quem|a quem|para quem|para quien|who|whom)\s+"
    r"(?:(?:do|should|can|must|could) (?:i|we) |to |(?:debo|tengo que|puedo|devo|tenho que|"
    r"posso|preciso) )?(\w+)"
)
_TURNING_TO = frozenset({
    "hablo", "hablar", "llamo", "llamar", "aviso", "avisar", "acudo", "acudir", "recurro",
    "recurrir", "contacto", "contactar", "escribo", "escribir", "pregunto", "preguntar",
    "reclamo", "reclamar", "informo", "informar", "comunico", "comunicar",
    "falo", "falar", "ligo", "ligar", "chamo", "chamar", "procuro", "procurar", "recorro",
    "recorrer", "escrevo", "escrever", "contato", "contatar",
    "talk", "speak", "call", "ring", "phone", "contact", "ask", "tell", "notify", "report",
    "write", "email", "reach", "go", "turn",
})  # fmt: skip


def words_to_hold(query: str) -> str:
    """``words_to_weigh`` without the words asking whether one may, or bring, book or need
    something: what a passage must hold every word of to be an exact hit. "Can I bring my
    dog?" found nothing over allotment rules saying "Dogs must be kept on a lead": the
    vectors put it under the floor, and no passage holds "bring". A time or a price asked
    stays ("What time does the gym open?" is no exact hit of every page saying "gym"); a
    day, month or season goes ("How much is a crown in December?" found nothing over a
    price list). Unchanged inside quotes (a phrase asked for) and when nothing else would
    be left."""
    if '"' in query:
        return words_to_match(query)
    weighed = words_to_weigh(query)
    left_out = ALLOWING_OR_BRINGING | _CALENDAR  # "How much is a crown in December?"
    kept = " ".join(w for w in _WORD.findall(weighed) if fold(w) not in left_out)
    return kept if content_words(kept, None) else weighed


def words_to_weigh(query: str) -> str:
    """``words_to_match`` without the light verbs, for weighing what a question names
    ("¿puedo tener un perro?" names "perro"), nor the verb asking whom to turn to ("com quem
    falo…"), nor the kind of contact asked for; unchanged when nothing else would be left.
    Asked who sent it, "the e-mail" names no word: its sender is the message's first line,
    which no word of the question is in ("¿Quién envió el correo?" was "no information").
    Asked where it is, naming nothing, the verb is not weighed either."""
    matched = words_to_match(query)
    kept = _without_leaning(matched, query)
    if not content_words(kept, None):
        # "¿Dónde estáis?" names no place: weighed, "estáis" quoted "Los libros no están
        # incluidos" before the academy's street address.
        return kept if asks_where_it_is(query) else matched
    if asks_sender(query):
        return " ".join(w for w in _WORD.findall(kept) if fold(w) not in _A_MESSAGE)
    return kept


# What a message is called, naming no one message: "¿quién envió el correo?".
_A_MESSAGE = frozenset({
    "correo", "correos", "electronico", "mail", "email", "mails", "emails", "mensaje",
    "mensajes", "mensagem", "mensagens", "message", "messages",
    # what a message sent to many is called: "Quem enviou o aviso?" over a manager's notice
    "aviso", "avisos", "comunicado", "comunicados", "circular", "circulares", "notice",
    "notices", "announcement", "announcements",
    # and to many who asked for it: "¿Quién envía el boletín?" over a cultural centre's
    "boletin", "boletines", "boletim", "boletins", "newsletter", "newsletters",
})  # fmt: skip


def _without_leaning(matched: str, query: str) -> str:
    """``matched`` (``query``'s words to match) without the words that lean on what is
    named: light verbs, qualifiers, whom to turn to, the kind of contact asked."""
    leaning = LIGHT_VERBS | QUALIFIERS | _turning_to(query) | _contact_asked(query)
    return " ".join(w for w in _WORD.findall(matched) if fold(w) not in leaning)


def asks_a_contact_alone(query: str) -> bool:
    """``query`` asks for a kind of contact and names nothing else: "¿Cuál es el
    teléfono?", "What's the phone number?". A page holding one answers it, though it never
    says "teléfono" (it says "[PHONE]" or the number)."""
    return bool(_contact_asked(query)) and not content_words(
        _without_leaning(words_to_match(query), query), None
    )


# Opening and closing, and the hours: what a first question about a place's hours names
# ("¿A qué hora abren?", "When do you close?"), though the page may say "Atendemos de 9:30
# a 14:00" or "Horario: …" and never the verb asked.
_OPENING_HOURS = _OPENING_AND_CLOSING | frozenset({
    "atienden", "atendeis", "atendem", "funciona", "funcionan", "funcionam",
})  # fmt: skip


def asks_the_hours_alone(query: str) -> bool:
    """``query`` asks when something opens or closes, or its hours, and names nothing else:
    "¿A qué hora abrís?", "¿Cuándo abren?", "What are your hours?". Over a vet clinic's guide
    whose hours say "Atendemos de lunes a viernes…", each was "no information": no page
    holds "abrir". A page saying a time of day answers it."""
    return asks_the_hours(query) and not naming_words(query)


def says_opening_or_closing(text: str) -> bool:
    """``text`` says when something opens, closes or serves: "El gimnasio abre…",
    "Atendemos de terça a sábado", a row's "Opens: 9:00"."""
    return not _SAYS_OPEN.isdisjoint(_WORD.findall(fold(text)))


_SAYS_OPEN = _OPENING_AND_CLOSING | frozenset({
    "atendemos", "atiende", "atienden", "atende", "atendem", "funciona", "funcionamos",
    "funcionan", "funcionam", "abrimos", "horarios", "apertura", "cierre", "abertura",
    "fechamento", "opens", "open",
})  # fmt: skip


def asks_the_hours(query: str) -> bool:
    """``query`` asks when something opens or closes, or its hours, naming anything else or
    not: "Que horas abre o restaurante?"."""
    folded = fold(query)
    if _HOW_MUCH.search(folded):
        return False  # "How many hours?" asks how long
    words = set(_WORD.findall(folded))
    return bool(words & _OPENING_HOURS or _WHAT_TIME.search(folded))


# Where something is, asked: "¿Dónde estáis?", "Onde fica a autoescola?", "Where are you
# located?", or its address: "¿Cuál es la dirección?", "Qual o endereço?". Not where to do
# something ("¿Dónde hago las llamadas?", "Where do I sign?"), nor an e-mail's or a web
# address.
_WHERE_IT_IS = re.compile(
    r"\b(?:(?:donde|onde|where)\s+(?:\w+\s+)?(?:esta|estan|estais|estas|queda|quedan|"
    r"se\s+encuentran?|fica|ficam|is|are)|where's|wheres)\b"
)
# Its address or location, asked for by "which" or "what": "¿En qué dirección…?" is a
# direction, "la dirección de Harvard" its management.
_ADDRESS_ASKED = re.compile(
    r"\b(?:cual|qual|what)(?:'s|s)?\s+(?:\w+\s+){0,3}?(?<!mail )(?<!ip )(?<!web )"
    r"(direccion|endereco|address|ubicacion|localizacao|location)\b"
    r"(?!\s+(?:de\s+|do\s+)?(?:e-?mail|correo|ip|web|site))"
)


def asks_where_it_is(query: str) -> bool:
    """``query`` asks where something is, or its address or location."""
    folded = fold(query)
    return bool(_WHERE_IT_IS.search(folded) or _ADDRESS_ASKED.search(folded))


def asks_the_address(query: str) -> bool:
    """``query`` asks for an address by name: "¿Cuál es la dirección?", "Qual o endereço do
    restaurante?", "What's your address?"."""
    asked = _ADDRESS_ASKED.search(fold(query))
    return asked is not None and asked.group(1) in ("direccion", "endereco", "address")


def _turning_to(query: str) -> frozenset[str]:
    verbs = _WHOM_TO_TURN_TO.findall(fold(query))
    return frozenset(verb for verb in verbs if verb in _TURNING_TO)


# The kind of contact asked for, not what it is of: "¿Cuál es el teléfono de emergencias?"
# names emergencies, and a protocol's "llame al 112" never says "teléfono"; weighed as the
# rarest word, it made the question look unanswered. Only as what is asked ("what is the
# phone of…"): "What is the email size limit?" asks of e-mail. Only the kinds the offline
# answerer tells a sentence holding one by (chat.extractive._ASKS_CONTACT): "la web" and
# "la dirección" are also what a page calls a site or a direction.
_CONTACT_ASKED = re.compile(
    r"\b(?:cual|qual|what)(?:'s|s)?\s+(?:(?:es|e|is|son|sao|are)\s+)?"
    r"(?:(?:el|la|los|las|o|a|os|as|the|your|su|seu|sua)\s+)?"
    # English names whose contact before it: "What's the office phone number?"
    r"(?:[a-z]+(?:'s)?\s+(?=(?:phone|e-?mail|website)\b))?"
    r"((?:numero\s+(?:de\s+)?)?(?:telefono|telefone|phone|e-?mail|correo(?:\s+electronico)?|"
    r"whatsapp|movil|celular|(?:ip\s+)?address|endereco(?:\s+ip)?|website|link|enlace|url|"
    r"(?:pagina|sitio)\s+web)(?:\s+number)?)"
    r"(?=\s+(?:de|do|da|del|dos|das|of|for)\b|\s*[?.!]|\s*$)"
)


def _contact_asked(query: str) -> frozenset[str]:
    phrases = _CONTACT_ASKED.findall(fold(query))
    return frozenset(
        word for phrase in phrases for word in _WORD.findall(phrase) if word != "de"
    )  # not the "de" of "número de teléfono", said of what is asked too


# Who sent, wrote or signed something, asked: "¿quién envió el aviso del agua?", "quem
# mandou…", "who wrote the notice?". A message does not say it was sent: its first line
# does, "From: Ana <[EMAIL]>" (knowledge.extraction.mail). Weighed as a word no chunk holds,
# the verb turned the question into "no information". Only right after "who" (and a
# pronoun): folded, Spanish "mandó" is "mando", a remote control anywhere else.
_WHO_SENT = re.compile(
    r"\b(?:quien(?:es)?|quem|who)\s+(?:(?:me|te|le|les|nos|os|lhe|lhes|vos|has|have|had)\s+)?"
    r"(envio|enviaron|mando|mandaron|escribio|escribieron|firmo|firmaron|enviou|enviaram|"
    r"mandou|mandaram|escreveu|escreveram|assinou|assinaram|sent|wrote|signed|"
    # and who sends it, a newsletter's sender: "¿Quién envía el boletín?"
    r"envia|envian|enviam|escribe|escriben|escreve|escrevem|sends|writes)\b"
)
_SENDER_WORDS = frozenset({"remitente", "remetente", "sender"})
_SENDER = re.compile(rf"\b(?:{'|'.join(sorted(_SENDER_WORDS))})\b")
# A time, asked: "¿a qué hora…?", "até que horas…?", "what time…?". A page that answers says
# "de ocho a veinte", "até as 22 h", seldom "hora": weighed as a word of what is asked, it
# let the front desk's "veinte horas" answer "¿Hasta qué hora se puede hacer ruido?".
# ("q", typed for "que": "ate q horas vcs ficam abertos?")
_WHAT_TIME = re.compile(r"\b(?:que|q|what)\s+(hora|horas|time)\b")
# "How much", "how many": a quantity, asked. Weighed as a word the page should hold, "much"
# made "How much is the meal allowance?" a third unsaid, and "no information".
_HOW_MUCH = re.compile(r"\bhow\s+(much|many)\b")
# "Quanto tempo…?", "¿Cuánto tiempo…?": how long, asked. "Quanto tempo dura a sessão?"
# quoted "Atrasos … reduzem o tempo da sessão", the one sentence saying "tempo", and not
# "As sessões duram 50 minutos".
_HOW_LONG = re.compile(r"\b(?:quanto|cuanto)\s+(tempo|tiempo)\b")
# The cheapest or dearest, asked: "¿cuál es el plato más caro?", "qual a categoria mais
# barata?", "the cheapest plan" (folded). A price list never says "barata": weighed as a
# word the page should hold, it made a rental's tariff sheet "no information".
_CHEAP_OR_DEAR = re.compile(
    r"\b(?:(?:mas|mais)\s+(?:caro|cara|caros|caras)|most\s+expensive|(?:the\s+)?priciest|dearest|"
    r"(?P<least>(?:mas|mais)\s+(?:barato|barata|baratos|baratas)|menos\s+(?:caro|cara|caros|caras)|"
    r"cheapest|least\s+expensive|lowest\s+price|menor\s+precio|menor\s+preco))\b"
)
# Of those phrases, the words saying cheap or dear; "mais", "lowest" or "precio" already
# weigh nothing, or little.
_CHEAP_OR_DEAR_WORDS = re.compile(
    r"\b(?:car|barat)[oa]s?\b|\b(?:expensive|cheapest|priciest|dearest)\b"
)


def asks_cheapest_or_dearest(query: str) -> str | None:
    """ "least" when ``query`` asks for the cheapest, "most" for the dearest, else None."""
    asked = _CHEAP_OR_DEAR.search(fold(query))
    if asked is None:
        return None
    return "least" if asked.group("least") else "most"


def asks_sender(query: str) -> bool:
    """Whether ``query`` asks who sent, wrote or signed something, or for its sender."""
    folded = fold(query)
    return bool(_WHO_SENT.search(folded) or _SENDER.search(folded))


def _asked_by_phrase(query: str) -> frozenset[str]:
    """The words (folded) that ``query`` asks with in a phrase, naming nothing: the verb of
    "who sent…", the "hora" of "¿a qué hora…?"."""
    folded = fold(query)
    return frozenset(
        _WHO_SENT.findall(folded)
        + _WHAT_TIME.findall(folded)
        + _HOW_MUCH.findall(folded)
        + _HOW_LONG.findall(folded)
    ) | _cheap_or_dear_words(query)


def _cheap_or_dear_words(query: str) -> frozenset[str]:
    """The words (folded) saying cheapest or dearest in ``query``: "barata" in "la cuota
    más barata", not in "una cuota barata"."""
    return frozenset(
        word
        for phrase in _CHEAP_OR_DEAR.finditer(fold(query))
        for word in _CHEAP_OR_DEAR_WORDS.findall(phrase.group())
    )


def words_to_match(query: str) -> str:
    """``query`` without its question words and the words that only ask to be told, for
    matching words: "¿Qué dice el anexo firmado?" looks for "anexo firmado", "¿Cuánto
    cuesta la revisión?" for "cuesta la revisión" (PostgreSQL's Spanish stopwords leave out
    "cuál" and "dónde" but keep "cuánto"). Unchanged when nothing else would be left
    ("¿Qué dice?") and inside quotes, where a person asked for a phrase. Greetings, thanks
    and who is asking go first (``without_courtesy``)."""
    query = without_courtesy(query)
    quoted = [match.span() for match in _QUOTED.finditer(query)]
    asking = _ASKING | _asked_by_phrase(query)

    def asks(match: re.Match[str]) -> bool:
        inside = any(start < match.start() < end for start, end in quoted)
        return not inside and fold(match.group()) in asking

    kept, position = [], 0
    for match in _WORD.finditer(query):
        if asks(match):
            kept.append(query[position : match.start()])
            position = match.end()
    kept.append(query[position:])
    rest = " ".join("".join(kept).split())
    return rest if content_words(rest, None) else query
