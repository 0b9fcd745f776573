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


# -- the organisation's own contact details, and which kinds ---------------------------------


def test_the_allow_list_keeps_the_organisations_contacts_and_nobody_elses():
    from knowledge.redaction import AllowList

    allow = AllowList(["Soporte@Alamos.example", "@admin.alamos.example", "+34 910 000 000"])
    text = (
        "Escribe a soporte@alamos.example, a cuentas@admin.alamos.example o llama al "
        "910 000 000; la vecina ana.perez@gmail.com y su móvil 612 345 678 no."
    )
    result = redact(text, allow=allow)

    assert "soporte@alamos.example" in result.text
    assert "cuentas@admin.alamos.example" in result.text
    assert "910 000 000" in result.text  # the same number, written without +34
    assert "ana.perez@gmail.com" not in result.text and "612 345 678" not in result.text
    assert result.kept == {"EMAIL": 2, "PHONE": 1}
    assert result.counts == {"EMAIL": 1, "PHONE": 1}


def test_only_the_kinds_asked_for_are_redacted():
    text = "Correo ana@gmail.com, móvil 612 345 678, DNI 12345678Z."
    result = redact(text, kinds=("EMAIL",))
    assert result.text == "Correo [EMAIL], móvil 612 345 678, DNI 12345678Z."


@pytest.mark.parametrize(
    ("entry", "valid"),
    [
        ("soporte@alamos.example", True),
        ("@alamos.example", True),
        ("+34 910 000 000", True),
        ("(11) 3333-4444", True),
        ("alamos.example", False),
        ("12", False),
        ("Calle Mayor 1", False),
    ],
)
def test_allow_list_entries_must_be_contacts(entry, valid):
    from knowledge.redaction import allow_list_invalid

    assert (allow_list_invalid([entry]) == []) is valid
