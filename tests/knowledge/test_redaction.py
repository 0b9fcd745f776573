from __future__ import annotations

import pytest

from knowledge.redaction import redact


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Contacto: maria.lopez@empresa.com.br", "EMAIL"),
        ("Llamar al +34 612 345 678", "PHONE"),
        ("Telefone (11) 91234-5678", "PHONE"),
        ("Móvil 612 345 678", "PHONE"),
        ("Tarjeta 4111 1111 1111 1111", "CARD"),
        ("Amex 3782 822463 10005", "CARD"),
        ("IBAN ES91 2100 0418 4502 0005 1332", "IBAN"),
        ("DNI 12345678Z", "DNI"),
        ("NIE X1234567L", "NIE"),
        ("CPF 529.982.247-25", "CPF"),
        ("CPF 52998224725", "CPF"),
        ("CNPJ 11.222.333/0001-81", "CNPJ"),
    ],
)
def test_each_kind_is_replaced_by_its_placeholder(text, label):
    result = redact(text)

    assert f"[{label}]" in result.text
    assert result.counts[label] == 1


@pytest.mark.parametrize(
    "text",
    [
        "CPF 111.222.333-44 (dígitos errados)",
        "Tarjeta 4111 1111 1111 1112",
        "DNI 12345678A",
        "Total: 100 200 300 400 euros en 2024",
        "Artículo 12345678 del reglamento, versión 2.4.1",
        "IBAN ES00 0000 0000 0000 0000 0000",
    ],
)
def test_numbers_with_wrong_check_digits_or_no_pii_survive(text):
    result = redact(text)

    assert result.text == text
    assert not result.counts


def test_counts_per_type():
    result = redact("a@b.com, c@d.org y DNI 12345678Z")

    assert dict(result.counts) == {"EMAIL": 2, "DNI": 1}
