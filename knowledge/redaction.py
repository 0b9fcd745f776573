"""Replace personal data with typed placeholders before anything is stored or embedded.

Seeds 000/001: vectors never hold PII in clear text. Identifiers with check digits (cards,
IBAN, DNI/NIE, CPF/CNPJ) are replaced only when the check digits hold, through
python-stdnum, so ordinary numbers (amounts, article numbers) survive.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

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


@dataclass
class Redaction:
    text: str
    counts: Counter[str]


def redact(text: str) -> Redaction:
    counts: Counter[str] = Counter()
    for rule in RULES:
        text = rule.pattern.sub(_replacer(rule, counts), text)
    return Redaction(text=text, counts=counts)


def _replacer(rule: Rule, counts: Counter[str]) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        if not rule.is_valid(match.group(0)):
            return match.group(0)
        counts[rule.label] += 1
        return f"[{rule.label}]"

    return replace
