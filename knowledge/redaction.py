"""Replace personal data with typed placeholders before anything is stored or embedded.

Seeds 000/001: vectors never hold PII in clear text. Identifiers with check digits (cards,
IBAN and the account numbers of Spain, Argentina and Mexico, DNI/NIE, CPF/CNPJ, Spanish and
US social security numbers, and the identity numbers of Chile, Argentina, Mexico, Brazil,
Portugal and the UK) are replaced only when the check digits or the issuing rules hold,
through python-stdnum (the Spanish social security number, Brazil's PIS, Mexico's CLABE
and the UK's National Insurance number, which it lacks, by their own rules), so ordinary
numbers (amounts, article numbers, barcodes) survive; they are found however they are
written (lower case, dots, dashes or spaces between the groups). A number after the name
of an identity document ("pasaporte", "RG", "CNH") is somebody's whatever its digits. Phone
numbers are found by Google's libphonenumber (the ``phonenumbers`` package) for the
deployment's regions (``REDACTION_PHONE_REGIONS``), which knows each country's numbering
plan, plus a few national shapes it does not take as valid (fictional 555, 07700 900 and
01632 960 numbers are still somebody's to a reader). E-mail addresses are found also when
written to dodge a parser: "ana (at) example (dot) com", "ana[at]example.com", "a . b @ c
. com", "ana[@]example[.]com".

What is redacted is the organisation's to choose (knowledge.models.RedactionPolicy, and per
upload): which kinds, and an allow-list of its own contact details — its support e-mail,
its e-mail domain, its switchboard's phone — which stay searchable when an upload asks to
keep them, while anyone else's are still replaced.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace
from functools import cache
from typing import cast

import phonenumbers
from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.ip_public import IPPublicDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from django.conf import settings
from stdnum import iban, luhn
from stdnum.ar import cbu, cuit
from stdnum.br import cnpj, cpf
from stdnum.cl import rut
from stdnum.co import nit as colombian_nit
from stdnum.es import ccc, dni, nie
from stdnum.mx import curp, rfc
from stdnum.pt import cc
from stdnum.pt import nif as portuguese_nif
from stdnum.us import ssn

from text.characters import DASHES, INVISIBLE_CHARS
from text.folding import fold
from text.numbers import spoken_numbers


@dataclass(frozen=True)
class Rule:
    label: str
    pattern: re.Pattern[str]
    is_valid: Callable[[str], bool]


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value)


def _is_card(value: str) -> bool:
    """Luhn's check, at a length cards of that issuer have: thirteen digits only for Visa's
    old cards (4…), fourteen only for Diners' (3…), so a product's EAN-13 barcode or GTIN,
    which pass Luhn's check one time in ten, stays."""
    digits = _digits(value)
    issuer_length = {13: "4", 14: "3"}.get(len(digits), "")
    return 13 <= len(digits) <= 19 and digits.startswith(issuer_length) and luhn.is_valid(digits)


def _is_clabe(value: str) -> bool:
    """A Mexican CLABE: 17 digits weighted 3, 7, 1 and a check digit making the sum of each
    product's last digit a multiple of ten (python-stdnum lacks it)."""
    digits = _digits(value)
    if len(digits) != 18:
        return False
    total = sum(int(d) * (3, 7, 1)[i % 3] % 10 for i, d in enumerate(digits[:17]))
    return (10 - total % 10) % 10 == int(digits[17])


def _is_phone(value: str) -> bool:
    digits = _digits(value)
    # International numbers carry "+"; national ones need 9+ digits and a separator pattern
    # typical of phones, so years, amounts and ids are not taken for phones.
    return 9 <= len(digits) <= 15 and not re.fullmatch(r"(19|20)\d{2}", digits)


def _round_amount(digits: str) -> bool:
    """ "1 160 000 000 millas": a round figure written in thousands, which a numbering plan
    may take for a valid number; the shapes' rules (a switchboard's "910 000 000", a "+"
    number) decide those themselves."""
    return digits.endswith("000000")


def _is_spanish_social_security(value: str) -> bool:
    """A Spanish social security number (número de afiliación): province, number and two
    control digits, the remainder by 97 of the first ten read as the Seguridad Social does
    (a number under 10,000,000 is placed after the province without its leading zero)."""
    digits = _digits(value)
    if len(digits) != 12:
        return False
    province, number, control = int(digits[:2]), int(digits[2:10]), int(digits[10:])
    whole = province * 10_000_000 + number if number < 10_000_000 else int(digits[:10])
    return 1 <= province <= 99 and whole % 97 == control


def _is_pis(value: str) -> bool:
    """A Brazilian PIS/PASEP/NIT number: ten digits and a mod-11 check digit."""
    digits = _digits(value)
    if len(digits) != 11:
        return False
    total = sum(int(d) * w for d, w in zip(digits, (3, 2, 9, 8, 7, 6, 5, 4, 3, 2), strict=False))
    check = 11 - total % 11
    return int(digits[-1]) == (0 if check >= 10 else check)


def _is_mexican_rfc(value: str) -> bool:
    """A person's RFC: thirteen characters (a company's twelve are no one's personal data)."""
    try:
        number = rfc.validate(value.upper(), validate_check_digits=True)
    except ValueError:
        return False
    return len(number) == 13


# A tax number names a company, a public body or a building's community as often as a
# person; only a person's is personal data. Each country says which is which by its first
# digits: Argentina's CUIT of a company starts 30, 33 or 34; Chile gives legal entities RUTs
# from 50 million; Colombia's NIT of a company has nine digits from 800 million; Portugal's
# NIF/NIPC of a company starts 5, a public body's 6, a condominium's or other collective's
# 71, 72, 77, 79 or 9.
def _is_persons_cuit(value: str) -> bool:
    return cuit.is_valid(value) and _digits(value)[:2] in {"20", "23", "24", "27"}


def _is_persons_rut(value: str) -> bool:
    return rut.is_valid(value) and int(_digits(rut.compact(value))[:-1] or 0) < 50_000_000


def _is_persons_colombian_nit(value: str) -> bool:
    """A person's NIT is their cédula and a check digit; a company's, nine digits from 800
    million and a check digit."""
    digits = _digits(value)
    company = len(digits) == 10 and digits[0] in "89"
    return colombian_nit.is_valid(digits) and not company


def _is_persons_portuguese_nif(value: str) -> bool:
    digits = _digits(value)
    collective = digits[:1] in {"5", "6", "9"} or digits[:2] in {"71", "72", "77", "79"}
    return portuguese_nif.is_valid(digits) and not collective


def _always(_: str) -> bool:
    return True


# Identity and tax numbers of the other countries whose people write Spanish and Portuguese,
# in the shapes they are written in, each with its own check digits.
_IDENTITY_FORMATS: tuple[tuple[re.Pattern[str], Callable[[str], bool]], ...] = (
    # Chile's RUT/RUN: 12.345.678-5, 12345678-K
    (re.compile(r"\b\d{1,2}\.\d{3}\.\d{3}-[\dkK]\b|\b\d{7,8}-[\dkK]\b"), _is_persons_rut),
    # Argentina's CUIT/CUIL: 20-12345678-6
    (re.compile(r"\b(?:20|23|24|27|30|33|34)-\d{8}-\d\b"), _is_persons_cuit),
    # Mexico's CURP (18 characters) and a person's RFC (13)
    (
        re.compile(r"\b[A-Z]{4}\d{6}[HMX][A-Z]{5}[A-Z\d]\d\b", re.IGNORECASE),
        lambda v: curp.is_valid(v.upper()),
    ),
    (re.compile(r"\b[A-ZÑ&]{4}\d{6}[A-Z\d]{3}\b", re.IGNORECASE), _is_mexican_rfc),
    # Brazil's PIS/PASEP/NIT: 123.45678.90-0
    (re.compile(r"\b\d{3}\.\d{5}\.\d{2}-\d\b"), _is_pis),
    # Portugal's Cartão de Cidadão: 12345678 9 ZZ1
    (re.compile(r"\b\d{8}[ -]?\d[ -]?[A-Z]{2}\d\b"), lambda v: cc.is_valid(v.upper())),
)
# The UK's National Insurance number, in capitals: AB 12 34 56 C, with the prefixes HMRC
# issues (no D, F, I, Q, U, V; no O second; not BG, GB, KN, NK, NT, TN, ZZ). Its letters
# are matched before the look behind, which lets the scan skip to them (a pattern of its
# own: in the others' case-blind one it tripled their cost).
_NATIONAL_INSURANCE = re.compile(
    r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z](?<=\b..)(?<!BG|GB|KN|NK|NT|TN|ZZ)"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"
)


def _is_identity_number(value: str) -> bool:
    return any(shape.fullmatch(value) and check(value) for shape, check in _IDENTITY_FORMATS)


# What names an identity document before its number, in the three languages: a number that
# follows one is somebody's, whatever its check digits ("pasaporte PAB123456", "RG
# 12.345.678-9", "DNI 30.123.456" from Argentina, "CNH 12345678900").
_ID_WORDS = (
    r"pass(?:port|aporte)|pasaporte|identidade|carteira de identidade|c[ée]dula"
    r"(?: de (?:identidad|ciudadan[íi]a|identidade))?|documento(?: nacional)? de identidad"
    r"|cart[ãa]o (?:SUS|de cidad[ãa]o|nacional de sa[úu]de)|t[íi]tulo de eleitor"
    r"|driver'?s licen[cs]e(?: number)?|licencia de conducir|carteira de motorista"
    r"|ID number|social security(?: number)?|seguro social|(?:n[úu]mero de )?contribuinte"
    r"|national insurance(?: number)?|NI number"
)
# Written in capitals: in lower case some are words ("run", "nit").
_ID_ACRONYMS = (
    r"RG|R\.G\.|DNI|NIF|NISS|NIS|NIT|RUT|RUN|CURP|RFC|CUIT|CUIL|PIS(?:/PASEP)?|PASEP"
    r"|CNH|CNS|NIPC|NINO"
)
_LABELLED_ID = re.compile(
    rf"(?P<label>(?P<name>(?i:\b(?:{_ID_WORDS}))|\b(?:{_ID_ACRONYMS}))\b[ \t]*"
    r"(?:(?i:n[º°o]\.?|n\.º|núm(?:ero)?\.?|number|nr\.?|es|é|is|:|#)[ \t]*)*)"
    # the number: a prefix of letters ("PAB", "MG-", "QQ "), then groups of digits, a last
    # check letter or group ("-X", "-K", " ZZ0")
    r"(?P<value>(?:[A-Za-z]{1,4}-?|[A-Z]{2} )?\d[\dA-Z]*(?:[ .-]\d[\dA-Z]*)*(?:[ .-](?:[A-Z]{1,2}\d?|k)\b)?)"
)
_DATE_LIKE = re.compile(r"\d{1,4}[.-]\d{1,2}[.-]\d{1,4}|(?:19|20)\d\d-(?:19|20)?\d\d")


def _has_no_letter(value: str) -> bool:
    return not any(c.isalpha() for c in value)


# The names whose numbers have check digits: a number failing them is not one (an example
# in a manual, "CPF 111.222.333-44"), as for the unlabelled kinds. A DNI with a letter is
# Spain's, checked by its own rule; without one it is Argentina's or Peru's, unchecked.
_CHECKED_BY_NAME: dict[str, Callable[[str], bool]] = {
    "RUT": _is_persons_rut,
    "RUN": _is_persons_rut,
    "CUIT": _is_persons_cuit,
    "CUIL": _is_persons_cuit,
    "CURP": lambda v: curp.is_valid(v.upper()),
    "RFC": _is_mexican_rfc,
    "PIS": _is_pis,
    "PIS/PASEP": _is_pis,
    "PASEP": _is_pis,
    "NIT": lambda v: _is_pis(v) or _is_persons_colombian_nit(v),
    "NIF": lambda v: _has_no_letter(v) and _is_persons_portuguese_nif(v),
    "NIPC": _is_persons_portuguese_nif,
    "CONTRIBUINTE": _is_persons_portuguese_nif,
    "DNI": _has_no_letter,
}


def _is_labelled_identifier(text: str) -> bool:
    """A number after the name of an identity document: six digits or more (a law's
    "10.637" or an RFC's "9110" is not a person's), not a date, and its check digits hold
    where the document has them."""
    match = _LABELLED_ID.fullmatch(text)
    if match is None:
        return False
    value = match.group("value")
    if len(_digits(value)) < 6 or _DATE_LIKE.fullmatch(value):
        return False
    check = _CHECKED_BY_NAME.get(match.group("name").upper().split()[-1])
    return check is None or check(value)


# "(at)", "[arroba]", and the security writers' "[@]" and "[.]" that keep a link from working
_AT = r"(?:\s*@+\s*|\s*[(\[{]\s*(?:at|arroba|a|@)\s*[)\]}]\s*|\s+arroba\s+)"
_SAID_DOT = r"(?:\s*[(\[{]\s*(?:dot|punto|ponto|\.)\s*[)\]}]\s*|\s+(?:dot|punto|ponto)\s+)"
_DOT = rf"(?:\.|{_SAID_DOT})"
# an underscore or a dash said aloud inside the name: "ana guion bajo lopez arroba…"
_SAID_JOIN = (
    r"(?:\s+(?:gui[oó]n bajo|underscore|underline|sublinhado|gui[oó]n|h[ií]fen|tra[cç]o|dash"
    r"|hyphen)\s+)"
)
# An address starts where a word does (trying inside every word made the scan 3x slower).
_WORD_START = r"(?<![\w+-])"
_PLAIN_DOT = r"(?:\.|\s\.\s)"
_MAIL_PROVIDERS = (
    r"gmail|googlemail|hotmail|outlook|yahoo|ymail|icloud|aol|protonmail|proton|gmx|"
    r"yandex|uol|bol|terra|globo|zoho|tutanota|fastmail|msn"
)
# English "at" as a word joins a place to a host as often as it spells an "@": "the
# self-service portal at reset.example.org", "open a ticket at help.example.org" were
# redacted whole. It spells one before a host whose last dot is said too ("maria.lopez at
# gmail dot com"), or before a mail provider's ("ana at gmail.com").
_SAID_AT_HOST = (
    rf"\s+at\s+(?:[\w-]+(?:{_DOT}[\w-]+)*{_SAID_DOT}|(?:{_MAIL_PROVIDERS})(?:{_DOT}[\w-]+)*{_DOT})"
)
_EMAIL = re.compile(
    # the plain form, spaces around its "@" and on both sides of its dots ("a . b @ c . com"):
    # a dot with a space after it only ends a sentence ("ana@x.com. Luego…" keeps "Luego")
    rf"{_WORD_START}[\w+-]+(?:{_PLAIN_DOT}[\w+-]+)*\s?@+\s?[\w-]+(?:{_PLAIN_DOT}[\w-]+)*"
    rf"{_PLAIN_DOT}[a-z]{{2,24}}\b"
    # spelled out: "ana (at) example (dot) com", "ana [dot] lopez arroba example punto com"
    rf"|{_WORD_START}[\w+-]+(?:(?:{_DOT}|{_SAID_JOIN})[\w+-]+)*"
    rf"(?:{_AT}[\w-]+(?:{_DOT}[\w-]+)*{_DOT}|{_SAID_AT_HOST})[a-z]{{2,24}}\b",
    re.UNICODE | re.IGNORECASE,
)
# What a person types may cut an address short ("ana.lopez@gmail"): enough to reach them,
# where a document's "name@version" or "user@host" is no one's.
# Said too, with no ending: "ana arroba gmail", "ana (at) empresa", and in English only
# with a mail provider after "at" ("john dot smith at gmail"), since "meet at noon" is no
# one's, nor a building named after one; "una arroba de trigo", a weight, is no one's.
_MAIL_PROVIDER = rf"(?:{_MAIL_PROVIDERS})\b"
_SAID_AT = (
    r"(?:\s*[(\[{]\s*(?:at|arroba)\s*[)\]}]\s*|\s+arroba\s+)"
    r"(?!(?:de|del|da|do|das|dos|y|e|o|a|and|of)\b)[a-z][\w-]{1,62}\b"
    rf"|\s+at\s+{_MAIL_PROVIDER}(?!\s+(?-i:[A-Z]))"  # not "the gym at Outlook Tower"
)
_SAID_EMAIL = re.compile(
    rf"{_EMAIL.pattern}|{_WORD_START}[\w+-]+(?:\.[\w+-]+)*@+\s?[a-z][\w-]{{1,62}}\b"
    # "ana_lopez@ gmail. com": a dot and a space before a common ending
    r"(?:\.\s?(?:com|es|org|net|br|pt|mx|ar|co|uk|io|eu)\b)?"
    rf"|{_WORD_START}[\w+-]+(?:(?:{_DOT}|{_SAID_JOIN})[\w+-]+)*(?:{_SAID_AT})",
    re.UNICODE | re.IGNORECASE,
)
_SEP = r"[ .-]?"  # what people put between the groups of an identifier


def _whole_number(after_first_digit: str) -> re.Pattern[str]:
    """A number of the shapes ``after_first_digit`` continues, matched only as a whole
    number: no digit or group of digits joined on. Its first digit is matched before the
    look behind, which lets the scan skip to digits (three times faster on prose)."""
    return re.compile(rf"\d(?<![\d.-]\d)(?<!\d \d)(?:{after_first_digit})(?![ .-]?\d)(?!\w)")


def _compact(value: str) -> str:
    return re.sub(r"[\s.-]", "", value).upper()


# Order matters: the more specific identifiers are taken before the generic phone rule.
RULES: tuple[Rule, ...] = (
    # Credentials (seed 004 §2.2: never knowledge), first: a token's digits are no phone, a
    # URL's "pw@host" no e-mail. Found by detect-secrets (_secret_spans); this pattern only
    # tells whether a text may hold one.
    Rule("SECRET", re.compile(r"[A-Za-z0-9_\-]{16}|PRIVATE KEY|://[^\s:@]+:[^\s@]+@"), _always),
    Rule("EMAIL", _EMAIL, _always),
    Rule(
        "IBAN",
        re.compile(
            rf"\b[A-Z]{{2}}\d{{2}}(?:{_SEP}[A-Z0-9]{{4}}){{2,7}}(?:{_SEP}[A-Z0-9]{{1,4}})?\b",
            re.IGNORECASE,
        ),
        lambda v: iban.is_valid(_compact(v)),
    ),
    # A country's own account numbers, with their check digits, under the same name: Spain's
    # CCC (an IBAN's body: 2100 0418 45 0200051332), Argentina's CBU (22 digits), Mexico's
    # CLABE (18); not a part of a longer run of groups (a Brazilian invoice's 44-digit key).
    Rule(
        "IBAN",
        _whole_number(r"\d{3}[ .-]?\d{4}[ .-]?\d{2}[ .-]?\d{10}|\d{3}(?:[ .-]?\d{4}){4}"),
        lambda v: ccc.is_valid(_digits(v)),
    ),
    Rule("IBAN", _whole_number(r"\d{7}[ -]?\d{14}"), lambda v: cbu.is_valid(_digits(v))),
    Rule("IBAN", _whole_number(r"\d{2}[ -]?\d{3}[ -]?\d{11}[ -]?\d"), _is_clabe),
    Rule(
        "CNPJ",
        re.compile(r"\b\d{2}[. ]?\d{3}[. ]?\d{3}[/ ]?\d{4}[- ]?\d{2}\b"),
        lambda v: cnpj.is_valid(_digits(v)),
    ),
    Rule(
        "CPF",
        re.compile(r"\b\d{3}[. -]?\d{3}[. -]?\d{3}[-. /]?\d{2}\b"),
        lambda v: cpf.is_valid(_digits(v)),
    ),
    # Issuer prefixes 2-6 (Mastercard, Amex, Visa, Discover...), solid or in groups of 4.
    Rule(
        "CARD",
        re.compile(
            r"\b[2-6]\d{12,18}\b|\b3[47]\d{2}[ .-]\d{6}[ .-]\d{5}\b"
            r"|\b[2-6]\d{3}(?:[ .-]\d{4}){2}[ .-]\d{1,7}\b"
        ),
        _is_card,
    ),
    Rule(
        "NIE",
        re.compile(r"\b[XYZ][ .-]?\d{7}[ .-]?[A-Z]\b", re.IGNORECASE),
        lambda v: nie.is_valid(_compact(v)),
    ),
    Rule(
        "DNI",
        re.compile(r"\b\d{2}[ .]?\d{3}[ .]?\d{3}[ .-]?[A-Z]\b", re.IGNORECASE),
        lambda v: dni.is_valid(_compact(v)),
    ),
    Rule(
        "NSS",
        re.compile(r"\b\d{2}[ /-]?\d{8}[ /-]?\d{2}\b"),
        _is_spanish_social_security,
    ),
    Rule(
        "SSN",  # the usual written shapes only: nine digits alone are too many other things
        re.compile(r"\b\d{3}([ -])\d{2}\1\d{4}\b"),
        lambda v: ssn.is_valid(_digits(v)),
    ),
    Rule(
        "ID",
        re.compile("|".join(shape.pattern for shape, _ in _IDENTITY_FORMATS), re.IGNORECASE),
        _is_identity_number,
    ),
    Rule("ID", _NATIONAL_INSURANCE, _always),
    Rule("ID", _LABELLED_ID, _is_labelled_identifier),
    Rule(
        "PHONE",
        re.compile(
            r"(?:(?<![\w+])\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,5}(?:[ .-]?\d{1,5}){1,5})"
            r"|(?:\(\d{2,4}\)[ ]?\d[ ]?\d{3,4}[ .-]?\d{4}\b)"  # (11) 9 1234-5678, (0113) 496 0000
            r"|(?:\b\d{2}[ ]9?[ ]?\d{4}[ -]\d{4}\b)"  # Brazil: 11 91234-5678, 11 91234 5678
            r"|(?:\b[6789]\d{2}(?:[ .-]?\d{3}){2}\b)"  # Spain: 612 345 678, 612-345-678
            r"|(?:\b[6789]\d{2}(?:[ .-]\d{2}){3}\b)"  # Spain: 612 34 56 78
            r"|(?:\b[6789]\d(?:[ .-]\d{3})(?:[ .-]\d{2}){2}\b)"  # Spain: 91 123 45 67
            r"|(?:\b07\d{3}[ ]?\d{6}\b)"  # UK mobile: 07700 900123
            r"|(?:\b01\d{3} \d{6}\b)"  # UK landline: 01632 960123
            r"|(?:\(\d{3}\)[ ]?\d{3}[ .-]\d{4}\b)"  # North America: (555) 123-4567
            r"|(?:\b\d{3}([.-])\d{3}\1\d{4}\b)"  # North America: 555-123-4567, 555.123.4567
        ),
        _is_phone,
    ),
)


KINDS: tuple[str, ...] = tuple(dict.fromkeys(rule.label for rule in RULES))
_PLACEHOLDER = re.compile(rf"\[(?:{'|'.join(KINDS)})\]")
_PHONE_ENTRY = re.compile(r"\+?[\d ().-]{6,24}")
# A plain e-mail address (the allow-list's entries; what the console marks as kept).
EMAIL_ADDRESS = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_EMAIL_ENTRY = re.compile(EMAIL_ADDRESS, re.UNICODE)
_DOMAIN_ENTRY = re.compile(r"@[\w-]+(?:\.[\w-]+)+", re.UNICODE)


class AllowList:
    """Contact details that are the organisation's own: e-mail addresses, whole e-mail
    domains ("@alamos.example") and phone numbers (the same number written with or without
    its country code, spaces or dashes)."""

    def __init__(self, entries: list[str] | tuple[str, ...] = ()) -> None:
        self.emails: set[str] = set()
        self.domains: set[str] = set()
        self.phones: set[str] = set()  # their last nine digits
        for entry in (e.strip().lower() for e in entries):
            if _DOMAIN_ENTRY.fullmatch(entry):
                self.domains.add(entry[1:])
            elif _EMAIL_ENTRY.fullmatch(entry):
                self.emails.add(entry)
            elif _PHONE_ENTRY.fullmatch(entry):
                self.phones.add(_digits(entry)[-9:])

    def __bool__(self) -> bool:
        return bool(self.emails or self.domains or self.phones)

    def allows(self, label: str, value: str) -> bool:
        if label == "EMAIL":
            value = value.lower()
            return value in self.emails or value.rsplit("@", 1)[-1] in self.domains
        if label == "PHONE":
            return _digits(value)[-9:] in self.phones
        return False


def allow_list_invalid(entries: list[str]) -> list[str]:
    """The entries that are neither an e-mail address, an @domain nor a phone number."""
    return [
        entry
        for entry in entries
        if not any(
            p.fullmatch(entry.strip().lower()) for p in (_DOMAIN_ENTRY, _EMAIL_ENTRY, _PHONE_ENTRY)
        )
        or (_PHONE_ENTRY.fullmatch(entry.strip()) and len(_digits(entry)) < 6)
    ]


@dataclass
class Redaction:
    text: str
    counts: Counter[str]  # replaced, by kind
    kept: Counter[str] = field(default_factory=Counter)  # left in clear by the allow-list


# How the rules read a text: without the characters that show nothing (a word joiner inside
# an address or a key hides nothing from its reader), every dash a hyphen, and the wide
# forms of ASCII ("ana＠empresa.es", "６１２…") as the ASCII they show, one for one.
_WIDE = "".join(chr(c) for c in range(0xFF01, 0xFF5F)) + "\ufe6b\u3000"
_ASCII_OF_WIDE = "".join(chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)) + "@ "
_DASH_AS_HYPHEN = str.maketrans(
    {**dict.fromkeys(DASHES, "-"), **dict(zip(_WIDE, _ASCII_OF_WIDE, strict=True))}
)
_READ_OTHERWISE = re.compile(f"[{re.escape(DASHES + INVISIBLE_CHARS + _WIDE)}]")
_HAS_INVISIBLE = re.compile(f"[{re.escape(INVISIBLE_CHARS)}]")


@dataclass(frozen=True)
class _Reading:
    """A text as the rules read it, and where the characters it left out stood (in its own
    places: the m-th one removed stood before its character ``gaps[m]``), so what they find
    is replaced in the text itself."""

    text: str
    gaps: tuple[int, ...] = ()

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The text's span of the reading's ``start``:``end``."""
        return start + bisect_right(self.gaps, start), end + bisect_right(self.gaps, end - 1)


def _as_read(text: str) -> _Reading:
    if not _READ_OTHERWISE.search(text):  # most texts
        return _Reading(text)
    removed = [match.start() for match in _HAS_INVISIBLE.finditer(text)]
    gaps = tuple(at - m for m, at in enumerate(removed))
    return _Reading(_HAS_INVISIBLE.sub("", text).translate(_DASH_AS_HYPHEN), gaps)


def redact(
    text: str,
    *,
    kinds: Collection[str] = KINDS,
    allow: AllowList | None = None,
    by_context: bool = True,
) -> Redaction:
    """``text`` with the personal data of ``kinds`` replaced by "[KIND]", except what
    ``allow`` names as the organisation's own. ``by_context``: a number a word before or
    after shows to be a record's or an amount is no phone (a document's "pedido
    4500012345"); what a person types is read without it (``redact_said``)."""
    counts: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    reading = _as_read(text)
    for rule in RULES:
        if rule.label not in kinds:
            continue
        if rule.label == "EMAIL" and not by_context:
            rule = replace(rule, pattern=_SAID_EMAIL)
        if rule.label == "PHONE":
            spans = _phone_spans(reading.text, rule, by_context)
            redacted = _redact_phones(text, reading, spans, counts, kept, allow)
        elif rule.label == "SECRET":
            redacted = _redact_secrets(text, reading, rule, counts)
        else:
            span_of = _span_to_replace(rule, counts, kept, allow)
            redacted = _redact_matches(text, reading, rule, span_of)
        if redacted != text:
            text, reading = redacted, _as_read(redacted)
    return Redaction(text=text, counts=counts, kept=kept)


def _redact_matches(
    text: str,
    reading: _Reading,
    rule: Rule,
    span_of: Callable[[re.Match[str]], tuple[int, int] | None],
) -> str:
    """``text`` with what ``rule`` finds in its ``reading`` replaced by its placeholder."""
    pieces: list[str] = []
    last = 0
    for match in rule.pattern.finditer(reading.text):
        span = span_of(match)
        if span is not None:
            start, end = reading.original(*span)
            pieces += [text[last:start], f"[{rule.label}]"]
            last = end
    return "".join([*pieces, text[last:]])


# A credential a person writes out ("mi contraseña es hunter2", "o PIN é 1234", "CVV 123",
# "senha: Mudar@123", "the code on the back is 912"): in what people type (questions,
# comments), never in knowledge, where "la contraseña del wifi es…" is the building's, said
# on purpose. The name, up to five words that say whose or of what ("del wifi", "de la
# tarjeta") and a verb or a colon, or the value right after the name; the value is taken
# only when it looks like one (_looks_like_a_credential), so "la contraseña es muy larga"
# and "¿el PIN es obligatorio?" keep their words.
_CREDENTIAL_NAME = (
    r"contrase[ñn]as?|passwords?|passcodes?|passphrases?|pass|pwd|senhas?|claves?"
    r"|api\s?key|tokens?(?:\sde\sacce?sso?)?"
    r"|(?:c[óo]digos?|codes?)\s(?:(?:de|del|do|da|de\sla)\s)?(?:acceso|acesso|access|seguridad"
    r"|seguran[çc]a|security|verificaci[óo]n|verifica[çc][ãa]o|verification|desbloqueo"
    r"|desbloqueio|unlock|confirmaci[óo]n|confirma[çc][ãa]o|confirmation|puerta|porta|door"
    r"|portal|alarma|alarme|alarm|sms|cvv|on\sthe\sback)"
    r"|(?:access|door|security|alarm|unlock|verification|sms)\scodes?"
)
# A card's or a phone's short code: its digits may follow what it is of ("CVV del cartão
# 844", "PIN de la tarjeta 1234") with no verb.
_SHORT_CODE_NAME = r"pin(?:\s(?:code|number))?|cvv2?|cvc2?|csc|otp"
# A code of nothing named ("el código que me llegó por SMS es 774512"): only digits, after a
# verb, and not a postcode's or a barcode's.
_BARE_CODE = r"(?:c[óo]digos?|codes?)(?!\s+(?:postal|zip|de\s+barras|bar))"
_SAID_CREDENTIAL = re.compile(
    rf"\b(?:{_CREDENTIAL_NAME}|(?P<short>{_SHORT_CODE_NAME})|(?P<bare>{_BARE_CODE}))\b"
    r"(?:(?:\s+[\w-]+){0,5}?\s*(?P<verb>\b(?:es|is|[ée]|son|s[ãa]o|are|was|era)\b|'s\b|:|=)"
    r"\s*:?|(?(short)\s+(?P<of>(?:de|del|do|da|of|on)\s+(?:(?:la|el|mi|my|the|o|a|meu|minha)\s+)?"
    r"[\w-]+)|(?!))|\s*[:=]?)\s*(?:(?:el|la|o|a|the)\s+)?"
    r"(?P<value>[\"'«“‘][^\"'»”’\n]{1,40}[\"'»”’]|[^\s,;]+?)(?=[.,;!?)]*(?:\s|$))",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?:19|20)\d\d")
# One's own password said as a plain word, ending the clause ("mi contraseña es perro"):
# taken unless the word says what the password is like ("es incorrecta", "is expired").
_OWN_PASSWORD_WORD = re.compile(
    r"\b(?:mi|my|minha|meu|tu|your|su)\s+(?:contrase[ñn]a|password|passcode|senha|clave|pin)\b"
    r"(?:\s+(?:del?|do|da|of|for)\s+[\w-]+){0,2}\s+(?:es|is|[ée]|era|was)\s+"
    r"(?P<value>[^\W\d_]{3,30})(?=\s*(?:[.,;!?)]|$))",
    re.IGNORECASE,
)
_PASSWORD_IS_LIKE_WORDS = """
    incorrecta incorrecto correcta correcto larga largo corta corto segura seguro insegura
    inseguro debil fuerte nueva nuevo vieja viejo antigua antiguo mala malo buena bueno igual
    distinta distinto diferente valida valido invalida invalido erronea erroneo obligatoria
    obligatorio personal secreta secreto temporal provisional caducada caducado facil dificil
    complicada complicado sencilla sencillo simple rara raro importante necesaria necesario
    otra otro esta este esa ese bloqueada bloqueado incorreta incorreto correta correto longa
    longo curta curto fraca fraco forte nova novo velha velho errada errado obrigatoria
    obrigatorio pessoal temporaria temporario provisoria provisorio expirada expirado vencida
    vencido outra outro essa esse necessario wrong right correct incorrect long short weak
    strong new old expired invalid valid secure insecure same different temporary easy hard
    difficult fine okay good bad blocked locked required mandatory needed this that too not
    case sensitive changed set reset updated saved stored cambiada cambiado actualizada
    actualizado restablecida restablecido guardada guardado alterada alterado mudada mudado
    atualizada atualizado redefinida redefinido salva salvo
"""
_WHAT_A_PASSWORD_IS_LIKE = frozenset(_PASSWORD_IS_LIKE_WORDS.split())


def _is_said_credential(match: re.Match[str]) -> bool:
    """What ``_SAID_CREDENTIAL`` found is a credential: a bare code's or one named by what
    it is of is only digits (after a verb, for a bare code); any other, by its looks."""
    value, after_a_verb = match.group("value"), bool(match.group("verb"))
    if match.group("bare") or match.group("of"):
        digits = value.strip("#*")
        return (
            digits.isdigit() and 3 <= len(digits) <= 8 and (after_a_verb or bool(match.group("of")))
        )
    return _looks_like_a_credential(value, after_a_verb)


def _looks_like_a_credential(value: str, after_a_verb: bool) -> bool:
    """A quoted phrase; three digits or more (a PIN, a CVV, a one-time code; a year only
    after a verb: "contraseñas 2024" is a policy's); letters with digits ("hunter2"); a
    symbol or a capital inside a word ("P@ss", "PerroGato"); three words joined by hyphens
    ("correct-horse-battery"). Not a word alone: "es muy larga", "is not working"."""
    if value.startswith("["):  # already a placeholder
        return False
    if value[0] in "\"'«“‘":
        return True
    digits = value.strip("#*")  # a keypad's keys: "4590#"
    if digits.isdigit():
        return len(digits) >= 3 and (after_a_verb or not _YEAR.fullmatch(digits))
    has_letter = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    symbol_inside = bool(re.search(r"\w[^\w\s-]+\w", value))
    capital_inside = bool(re.search(r"[a-zà-ÿ][A-ZÀ-Þ]", value))
    hyphened_words = bool(re.fullmatch(r"\w+(?:-\w+){2,}", value))
    return (has_letter and has_digit) or symbol_inside or capital_inside or hyphened_words


# An address typed a letter at a time: "a n a @ g m a i l . c o m".
_SPACED_LETTERS = re.compile(r"(?<!\S)(?:\S ){5,}\S(?!\S)")


def _is_spoken_phone(digits: str) -> bool:
    """Digits a person spelt in words make a phone: valid in a region, or in a national
    shape the numbering plans miss (the PHONE rule's: "oh seven seven oh oh nine…")."""
    phone = next(rule for rule in RULES if rule.label == "PHONE")
    return 9 <= len(digits) <= 15 and (
        any(_is_personal_phone(digits, region) for region in phone_regions())
        or bool(phone.pattern.fullmatch(digits))
    )


def redact_said(text: str) -> Redaction:
    """What a person typed (a question, a comment), redacted: ``redact``, a password, PIN
    or access code they wrote out, which the shapes detect-secrets knows do not find, and a
    phone they spelt in words ("seis uno dos…", "6 uno 2 tres…"). A number is a phone
    whatever words stand around it: "mi pedido 612345678" may be one."""
    result = redact(text, by_context=False)
    found = [
        match for match in _SAID_CREDENTIAL.finditer(result.text) if _is_said_credential(match)
    ]
    found += [
        match
        for match in _OWN_PASSWORD_WORD.finditer(result.text)
        if fold(match.group("value")) not in _WHAT_A_PASSWORD_IS_LIKE
        and not any(_overlap(match.span("value"), other.span("value")) for other in found)
    ]
    redacted = result.text
    for match in sorted(found, key=lambda m: m.start("value"), reverse=True):
        redacted = redacted[: match.start("value")] + "[SECRET]" + redacted[match.end("value") :]
        result.counts["SECRET"] += 1
    for run in reversed(list(_SPACED_LETTERS.finditer(redacted))):
        if _EMAIL.fullmatch(run.group(0).replace(" ", "")):
            redacted = redacted[: run.start()] + "[EMAIL]" + redacted[run.end() :]
            result.counts["EMAIL"] += 1
    for number in reversed(list(spoken_numbers(redacted))):
        if _is_spoken_phone(number.digits):
            redacted = redacted[: number.start] + "[PHONE]" + redacted[number.end :]
            result.counts["PHONE"] += 1
    return Redaction(text=redacted, counts=result.counts, kept=result.kept)


def placeholders_in(text: str) -> list[str]:
    """The placeholders redaction left in ``text`` ("[EMAIL]"), each once, in order."""
    return list(dict.fromkeys(_PLACEHOLDER.findall(text)))


def without_personal_data(text: str) -> str:
    """``text`` with the personal data it holds left out, not replaced (what a search
    embeds and weighs of a question: see knowledge.search.asked)."""
    redacted = redact_said(text).text
    if redacted == text:
        return text
    return " ".join(_PLACEHOLDER.sub(" ", redacted).split())


def redact_filename(
    filename: str, *, kinds: Collection[str] = KINDS, allow: AllowList | None = None
) -> str:
    """A file name with its personal data redacted ("maria.lopez@… 12345678Z.pdf"), its
    extension kept: it says the format (a URL is redacted whole)."""
    if filename.startswith(("http://", "https://")):
        return redact(filename, kinds=kinds, allow=allow).text
    stem, dot, extension = filename.rpartition(".")
    if not dot or not stem or len(extension) > 5 or not extension.isalnum():
        return redact(filename, kinds=kinds, allow=allow).text
    return f"{redact(stem, kinds=kinds, allow=allow).text}.{extension}"


@cache
def _secret_detectors() -> tuple[tuple[re.Pattern[str], bool], ...]:
    """Yelp's detect-secrets' patterns of credentials with a known shape (cloud and API keys,
    tokens, private keys, passwords in URLs), each with whether it marks a private key's
    first line: every regex-based detector but public IP addresses, which are no secret."""
    found: list[tuple[re.Pattern[str], bool]] = []
    detectors: list[type] = list(get_mapping_from_secret_type_to_class().values())
    for detector in detectors:
        if issubclass(detector, RegexBasedDetector) and detector is not IPPublicDetector:
            # a class attribute of each detector, typed as the base's abstract property
            patterns = cast(Iterable[re.Pattern[str]], detector.denylist)
            found += [(pattern, detector is PrivateKeyDetector) for pattern in patterns]
    return tuple(found)


_KEY_END = re.compile(r"-----END [A-Z0-9 ]*-----")
# A private key's lines after its first: base64, PEM's own headers, a blank line between.
_KEY_BODY = re.compile(r"(?:\n(?:[A-Za-z0-9+/=]{16,}|Proc-Type:[^\n]*|DEK-Info:[^\n]*|))*")


def _redact_secrets(text: str, reading: _Reading, rule: Rule, counts: Counter[str]) -> str:
    if not rule.pattern.search(reading.text):
        return text
    spans = _secret_spans(reading.text)
    for span in reversed(spans):
        start, end = reading.original(*span)
        text = text[:start] + "[SECRET]" + text[end:]
    if spans:
        counts["SECRET"] += len(spans)
    return text


def _secret_spans(text: str) -> list[tuple[int, int]]:
    """Where the credentials are, none overlapping another: the secret itself where the
    pattern names it (the password of "postgres://ana:pw@db"), a private key from its
    first line to its last."""
    found: list[tuple[int, int]] = []
    for pattern, private_key in _secret_detectors():
        for match in pattern.finditer(text):
            if private_key:
                found.append((_line_start(text, match.start()), _key_end(text, match.end())))
            else:
                found.append(_secret_span(match))
    spans: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if spans and start < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


# What continues a token past a pattern that stops short (a JWT's signature after its
# second dot, a longer key): its characters, a dot only inside it.
_TOKEN_REST = re.compile(r"(?:[A-Za-z0-9_\-+/=]|\.(?=[A-Za-z0-9_\-]))*")


def _secret_span(match: re.Match[str]) -> tuple[int, int]:
    """The secret a detector's match holds: the group that is one (a URL's password, kept
    between its "user:" and "@host"), else the whole match and the rest of its token (a
    group that short is a prefix the detector reports, "ghp")."""
    groups = [i for i in range(1, (match.re.groups or 0) + 1) if match.group(i)]
    longest = max(groups, key=lambda i: len(match.group(i)), default=None)
    if longest is not None and len(match.group(longest)) >= 8:
        return match.span(longest)
    rest = _TOKEN_REST.match(match.string, match.end())
    return match.start(), rest.end() if rest else match.end()


def _line_start(text: str, at: int) -> int:
    """The "-----" a private key's first line opens with."""
    dashes = text.rfind("-----", max(0, at - 16), at)
    return dashes if dashes >= 0 else at


def _key_end(text: str, at: int) -> int:
    """A private key ends at its "-----END … -----" line, or, cut short, with its body."""
    end = _KEY_END.search(text, at, at + 20_000)
    if end is not None:
        return end.end()
    line_end = text.find("\n", at)
    if line_end < 0:
        return len(text)
    body = _KEY_BODY.match(text, line_end)
    return line_end + len(body.group(0).rstrip()) if body else line_end


@cache
def phone_regions() -> tuple[str, ...]:
    regions = tuple(r.strip().upper() for r in settings.REDACTION_PHONE_REGIONS if r.strip())
    return regions or ("ES",)


def _redact_phones(
    text: str,
    reading: _Reading,
    spans: list[tuple[int, int]],
    counts: Counter[str],
    kept: Counter[str],
    allow: AllowList | None,
) -> str:
    """``text`` with the phone numbers at ``spans`` of its ``reading`` (``_phone_spans``)
    replaced, unless the allow-list keeps them."""
    for span in reversed(spans):
        if allow and allow.allows("PHONE", reading.text[span[0] : span[1]]):
            kept["PHONE"] += 1
        else:
            counts["PHONE"] += 1
            start, end = reading.original(*span)
            text = text[:start] + "[PHONE]" + text[end:]
    return text


# Numbers that are never a person's: freephone, premium-rate, shared-cost and a company's
# single number (Spain's 900 and 902, Brazil's 0800, the UK's 0800 and 0845…).
_SERVICE_NUMBERS = frozenset(
    {
        phonenumbers.PhoneNumberType.TOLL_FREE,
        phonenumbers.PhoneNumberType.PREMIUM_RATE,
        phonenumbers.PhoneNumberType.SHARED_COST,
        phonenumbers.PhoneNumberType.UAN,
    }
)


# What names a record's number rather than a person's line, in the three languages: an
# unbroken run of digits right after one ("pedido 4500012345", "factura nº 2023456789") is
# that record's, though a numbering plan may call it valid. A number written in a phone's
# groups stays a phone whatever precedes it; memory screening checks bare digit runs anyway.
_RECORD_WORDS = (
    r"expediente|factura|fatura|nota fiscal|invoice|pedido|orden|ordem|encomenda|order"
    r"|referencia|referência|ref|reference|lote|batch|serie|série|serial|ticket|incidencia"
    r"|incidência|chamado|caso|case|albar[áa]n|contrato|contract|proceso|processo|protocolo"
    r"|protocol|versi[óo]n|versão|version|modelo|model|art[íi]culo|artigo|article|c[óo]digo|code"
    r"|ap[óo]lice|p[óo]liza|policy|alvar[áa]|matr[íi]cula|inscri[çc][ãa]o|boleto"
)
_NUMBER_SIGN = r"n[º°o]\.?|n\.º|núm(?:ero)?\.?|number|nr\.?"
_AFTER_RECORD_WORD = re.compile(
    rf"(?i:\b(?:{_RECORD_WORDS})\b\.?[ \t]*(?:(?:{_NUMBER_SIGN}"
    r"|de (?:compra|serie|série|pedido)|:|#)[ \t]*)*)$"
)
# The record's name a few words before its number sign: "contrato de manutenção do portão
# nº 4500012345", "la póliza del seguro de la comunidad n.º 1234567890" (not when those
# words name a phone: "contrato: llame al nº 612345678").
_AFTER_NAMED_RECORD = re.compile(
    rf"(?i:\b(?:{_RECORD_WORDS})\b(?:[ \t]+[\w-]+){{1,6}}?[ \t]+(?:{_NUMBER_SIGN}|#)[ \t]*)$"
)


# What a quantity is counted in, in the three languages: a number followed by one, or after
# a currency's sign, is an amount ("734 000 000 millas cuadradas", "R$ 912 345 678"), though
# its groups may be a phone's.
_UNITS = (
    r"[kcm]m[²2³3]?|m[²2³3]|millas?|miles?|kil[óo]metros?|quil[ôo]metros?|kilometres?|kilometers?"
    r"|metros?|metres?|meters?|hect[áa]reas?|hectares?|acres?|toneladas?|tons?|tonnes?|litros?"
    r"|litres?|liters?|kg|kilos?|gramos?|gramas?|habitantes?|inhabitants?|personas?|pessoas?"
    r"|people|residents?|votos?|votes?|euros?|eur|d[óo]lares?|dollars?|usd|reais|brl"
    r"|pesos?|libras?|pounds?|gbp|yenes|ienes|yen|a[ñn]os?|years?|d[íi]as?|days?"
    r"|barriles|barris|barrels?|unidades?|units?|ejemplares|exemplares|copies|copias|c[óo]pias"
    r"|visitantes?|visitors?|usuarios?|usu[áa]rios?|users?|millones|milh[õo]es|millions?"
)
_BEFORE_UNIT = re.compile(rf"(?i:[ \t]*(?:{_UNITS})\b)")
_AFTER_CURRENCY = re.compile(r"(?i:(?:[€$£¥]|R\$|US\$|EUR|USD|BRL)[ \t]*)$")


def _is_amount(text: str, span: tuple[int, int]) -> bool:
    start, end = span
    if text[start] == "+":  # an international number is always a phone
        return False
    return bool(
        _BEFORE_UNIT.match(text, end) or _AFTER_CURRENCY.search(text, max(0, start - 5), start)
    )


def _is_record_number(text: str, span: tuple[int, int]) -> bool:
    start, end = span
    if not text[start:end].isdigit():
        return False
    if _AFTER_RECORD_WORD.search(text, max(0, start - 40), start):
        return True
    named = _AFTER_NAMED_RECORD.search(text, max(0, start - 70), start)
    return named is not None and not _PHONE_WORDS.search(named.group(0))


def _phone_spans(text: str, rule: Rule, by_context: bool) -> list[tuple[int, int]]:
    """Where the phone numbers are, in order, none overlapping another: numbers valid in
    one of the deployment's regions (or anywhere, with a "+"), grouped as that region
    writes its numbers ("2024-000123" is a file's, though valid in the US), and the national
    shapes the numbering plans miss (``rule``). A business's service number, as every
    region that knows it says, is left out; ``by_context``, so are a record's number (after
    ``_RECORD_WORDS``) and an amount (``_UNITS``), and a number written digit by digit is
    taken only after a phone's name; without it, wherever it stands."""
    if sum(c.isdigit() for c in text) < 7:
        return []
    kinds: dict[tuple[int, int], set[int]] = {}
    for region in phone_regions():
        for match in phonenumbers.PhoneNumberMatcher(
            text, region, phonenumbers.Leniency.STRICT_GROUPING
        ):
            if not _round_amount(_digits(match.raw_string)):
                kinds.setdefault((match.start, match.end), set()).add(
                    phonenumbers.number_type(match.number)
                )
    service = [span for span, types in kinds.items() if types <= _SERVICE_NUMBERS]
    found = [span for span in kinds if span not in service]
    # What a person types; in a document, only after a phone's name ("Móvil: 6 1 2 3 4 5 6 7
    # 8"), since a table's digits or a page range are no phone.
    found += _digit_by_digit_spans(text, after_phone_word=by_context)
    found += [
        m.span()
        for m in rule.pattern.finditer(text)
        if rule.is_valid(m.group(0)) and not any(_overlap(m.span(), s) for s in service)
    ]
    if by_context:
        found = [s for s in found if not (_is_record_number(text, s) or _is_amount(text, s))]
    spans: list[tuple[int, int]] = []
    for start, end in sorted(found, key=lambda span: (span[0], -span[1])):
        if not spans or start >= spans[-1][1]:
            spans.append((start, end))
    return spans


# A number written digit by digit ("6 1 2 3 4 5 6 7 8") or in groups no region writes
# ("612/345/678"), which the matcher does not take as a number: a phone when its digits make
# one valid in a region.
_DIGIT_BY_DIGIT = re.compile(
    r"(?<![\w+/])\+?(?:\d(?:[ .-]\d){8,14}|\d{2,4}(?:/\d{2,4}){2,5})(?![\w/])"
)


# What names a phone line before its number, in the three languages.
_PHONE_WORDS = re.compile(
    r"(?i:\b(?:tel[ée]fonos?|telefones?|tel|tlf|tfno|m[óo]vil(?:es)?|celular(?:es)?|cel"
    r"|whats ?app|phone|mobile|cell|ring|call|text|fax|contacto|contato|contact|llamar?"
    r"|llame|llamen|ligar?|liga|ligue|liguem|marque|disque|dial)\b)"
)


def _digit_by_digit_spans(text: str, *, after_phone_word: bool) -> list[tuple[int, int]]:
    """Numbers written digit by digit or in slashed groups that make a valid personal phone;
    ``after_phone_word``, only those with a phone's name in the 30 characters before."""
    spans = []
    for match in _DIGIT_BY_DIGIT.finditer(text):
        if after_phone_word and not _PHONE_WORDS.search(
            text, max(0, match.start() - 30), match.start()
        ):
            continue
        number = ("+" if match.group(0).startswith("+") else "") + _digits(match.group(0))
        if 9 <= len(number.lstrip("+")) <= 15 and any(
            _is_personal_phone(number, region) for region in phone_regions()
        ):
            spans.append(match.span())
    return spans


def _is_personal_phone(number: str, region: str) -> bool:
    try:
        parsed = phonenumbers.parse(number, region)
    except phonenumbers.NumberParseException:
        return False
    return phonenumbers.is_valid_number(parsed) and (
        phonenumbers.number_type(parsed) not in _SERVICE_NUMBERS
    )


def _overlap(one: tuple[int, int], other: tuple[int, int]) -> bool:
    return one[0] < other[1] and other[0] < one[1]


def _span_to_replace(
    rule: Rule, counts: Counter[str], kept: Counter[str], allow: AllowList | None
) -> Callable[[re.Match[str]], tuple[int, int] | None]:
    def span(match: re.Match[str]) -> tuple[int, int] | None:
        """Where the personal data ``match`` holds stands, or None when it holds none to
        replace. A pattern with a "label" group names what it found before it ("RG
        12.345.678-9"): the name stays, as the reader needs it; so does what followed an
        IBAN in its match."""
        value, rest = _valid_part(rule, match.group(0))
        if not value:
            return None
        if allow and allow.allows(rule.label, value):
            kept[rule.label] += 1
            return None
        counts[rule.label] += 1
        head = len(match.group("label")) if "label" in rule.pattern.groupindex else 0
        return match.start() + head, match.end() - len(rest)

    return span


def _valid_part(rule: Rule, value: str) -> tuple[str, str]:
    """The identifier the match holds, and what followed it: an IBAN's pattern may take the
    next short word for its last group ("es91 … 1332 or"), so its groups are dropped from
    the end until the check digits hold."""
    if rule.is_valid(value):
        return value, ""
    if rule.label == "IBAN":
        cuts = [m.start() for m in re.finditer(r"[ .-]", value)]
        for cut in reversed(cuts):
            if rule.is_valid(value[:cut]):
                return value[:cut], value[cut:]
    return "", value
