"""Replace personal data with typed placeholders before anything is stored or embedded.

Seeds 000/001: vectors never hold PII in clear text. Identifiers with check digits (cards,
IBAN, DNI/NIE, CPF/CNPJ) are replaced only when the check digits hold, through
python-stdnum, so ordinary numbers (amounts, article numbers) survive.

What is redacted is the organisation's to choose (knowledge.models.RedactionPolicy, and per
upload): which kinds, and an allow-list of its own contact details — its support e-mail,
its e-mail domain, its switchboard's phone — which stay searchable when an upload asks to
keep them, while anyone else's are still replaced.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from stdnum import iban, luhn
from stdnum.br import cnpj, cpf
from stdnum.es import dni, nie


@dataclass(frozen=True)
class Rule:
    label: str
    pattern: re.Pattern[str]
    is_valid: Callable[[str], bool]


def _digits(value: str) -> str:
    return re.sub(r"\D", "", value)


def _is_card(value: str) -> bool:
    digits = _digits(value)
    return 13 <= len(digits) <= 19 and luhn.is_valid(digits)


def _is_phone(value: str) -> bool:
    digits = _digits(value)
    # International numbers carry "+"; national ones need 9+ digits and a separator pattern
    # typical of phones, so years, amounts and ids are not taken for phones.
    return 9 <= len(digits) <= 15 and not re.fullmatch(r"(19|20)\d{2}", digits)


def _always(_: str) -> bool:
    return True


# Order matters: the more specific identifiers are taken before the generic phone rule.
RULES: tuple[Rule, ...] = (
    Rule("EMAIL", re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE), _always),
    Rule(
        "IBAN",
        re.compile(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b"),
        lambda v: iban.is_valid(v),
    ),
    Rule(
        "CNPJ",
        re.compile(r"\b\d{2}\.?\d{3}\.?\d{3}/?\d{4}-?\d{2}\b"),
        lambda v: cnpj.is_valid(v),
    ),
    Rule("CPF", re.compile(r"\b\d{3}\.?\d{3}\.?\d{3}-?\d{2}\b"), lambda v: cpf.is_valid(v)),
    # Issuer prefixes 2-6 (Mastercard, Amex, Visa, Discover...), written solid or in groups of 4.
    Rule(
        "CARD",
        re.compile(
            r"\b[2-6]\d{12,18}\b|\b3[47]\d{2}[ -]\d{6}[ -]\d{5}\b|\b[2-6]\d{3}(?:[ -]\d{4}){2}[ -]\d{1,7}\b"
        ),
        _is_card,
    ),
    Rule("NIE", re.compile(r"\b[XYZxyz][- ]?\d{7}[- ]?[A-Za-z]\b"), lambda v: nie.is_valid(v)),
    Rule("DNI", re.compile(r"\b\d{8}[- ]?[A-Za-z]\b"), lambda v: dni.is_valid(v)),
    Rule(
        "PHONE",
        re.compile(
            r"(?:(?<![\w+])\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{2,5}(?:[ .-]?\d{2,5}){1,4})"
            r"|(?:\(\d{2,3}\)[ ]?\d{4,5}[ -]?\d{4}\b)"  # Brazil: (11) 91234-5678
            r"|(?:\b\d{2}[ ]9?\d{4}-\d{4}\b)"  # Brazil: 11 91234-5678
            r"|(?:\b[6789]\d{2}(?:[ .]?\d{3}){2}\b)"  # Spain: 612 345 678
            r"|(?:\b[6789]\d(?:[ .]\d{3})(?:[ .]\d{2}){2}\b)"  # Spain: 91 123 45 67
            r"|(?:\b\d{3}-\d{3}-\d{4}\b)"  # North America: 555-123-4567
        ),
        _is_phone,
    ),
)


KINDS: tuple[str, ...] = tuple(rule.label for rule in RULES)
_PHONE_ENTRY = re.compile(r"\+?[\d ().-]{6,24}")
_EMAIL_ENTRY = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)
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


def redact(
    text: str, *, kinds: Collection[str] = KINDS, allow: AllowList | None = None
) -> Redaction:
    """``text`` with the personal data of ``kinds`` replaced by "[KIND]", except what
    ``allow`` names as the organisation's own."""
    counts: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    for rule in RULES:
        if rule.label in kinds:
            text = rule.pattern.sub(_replacer(rule, counts, kept, allow), text)
    return Redaction(text=text, counts=counts, kept=kept)


def _replacer(
    rule: Rule, counts: Counter[str], kept: Counter[str], allow: AllowList | None
) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        if not rule.is_valid(match.group(0)):
            return match.group(0)
        if allow and allow.allows(rule.label, match.group(0)):
            kept[rule.label] += 1
            return match.group(0)
        counts[rule.label] += 1
        return f"[{rule.label}]"

    return replace
