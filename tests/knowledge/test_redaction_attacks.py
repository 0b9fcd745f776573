"""Findings F5 and F6 of the third outside attack run: redaction missed 14 of 27 common
formats and file names were never redacted; a knowledge editor could switch redaction off
for an upload although only owners set the policy."""

from __future__ import annotations

import pytest

from accounts.roles import role_grant
from knowledge.models import Document, Redaction
from knowledge.redaction import redact, redact_said
from tests.factories import make_document
from tests.knowledge.test_views import upload

FORMATS = [
    # phones, Spain
    "Llama al 612-345-678 mañana",
    "Llama al 612 34 56 78 mañana",
    "Llama al 91 123 45 67 mañana",
    "Llama al 612.345.678 mañana",
    # phones, Brazil
    "Ligue (11) 9 1234-5678 amanhã",
    "Ligue 11 91234 5678 amanhã",
    "Ligue (21) 2345-6789 amanhã",
    # phones, UK and North America
    "Ring 07700 900123 tonight",
    "Ring (0113) 496 0000 tonight",
    "Ring 020 7946 0958 tonight",
    "Call (555) 123-4567 today",
    "Call 555.123.4567 today",
    "Call +1 415 555 2671 today",
    # identity numbers
    "DNI 12.345.678-Z del titular",
    "DNI 12345678-z del titular",
    "CPF 123 456 789 09 do titular",
    "NIE x-1234567-l del titular",
    # bank accounts and cards
    "IBAN es91 2100 0418 4502 0005 1332 del titular",
    "IBAN ES91-2100-0418-4502-0005-1332 del titular",
    "Tarjeta 4111.1111.1111.1111 del titular",
    "Tarjeta 5500-0000-0000-0004 del titular",
    # e-mails written to dodge a parser
    "Escribe a maria (at) gmail (dot) com hoy",
    "Escribe a maria[at]gmail.com hoy",
    "Escribe a maria.lopez @ gmail . com hoy",
    "Escreva para joao arroba empresa ponto com hoje",
    "Write to john {at} example {dot} org today",
]
KEPT = [
    "El pedido 123456789 llegó en 2024 por 2.500,00 €.",
    "Horario de 9 a 14, planta 3, sala 12.",
    "Meet me at noon. Then we go.",
    "The price is 1,234,567 units in 2023.",
    "Versión 3.14.159 del manual, artículo 12.345.",
    "La región afectada era de 1 160 000 000 millas cuadradas (3 000 000 km2).",
]


# A record's number or an amount that a numbering plan calls valid somewhere ("2024-000123"
# is a Washington number; "4500012345" a Mexican one): knowledge an organisation needs.
RECORDS_AND_AMOUNTS = [
    "Expediente 2024-000123 resuelto.",
    "Factura nº 2023-456789 pagada.",
    "Ref. 2024/000123 del contrato.",
    "Lote 20240115-01 retirado.",
    "Orden de compra nº 4500012345 aprobada.",
    "Chamado #5512345678 aberto.",
    "Invoice no. 2025551234 is due.",
    "Seguro do condomínio: apólice 1234567890.",
    "Servidor en 127.168.1.100 y 127.0.0.1.",  # dotted groups a plan took for a phone
    "Expediente nº 123/2024-456.",
    "Contrato de manutenção do portão nº 4500012345, firmware 22.04.3.",  # a newcomer's
    "Póliza del seguro de hogar n.º 1234567890.",
    "La póliza del seguro de la comunidad nº 1234567890 cubre los trasteros.",
    "Un presupuesto de 612 345 678 euros en 2023.",
    "Receita de R$ 912 345 678 no ano.",
    "La región tenía 734 000 000 millas cuadradas.",
    "The city had 612 345 678 inhabitants.",
]
# The same words next to a number written as a phone, or a "+" number: still a phone.
PHONES_NEAR_THOSE_WORDS = [
    "Pedido 612 345 678 de Ana",
    "Llama al 612345678 por la factura",
    "Contrato: llame al nº 612345678 para renovar",
    "Contrato de manutenção: ligue para o nº 912345678",
    "Sobre el pedido, mi móvil 4500012345",
    "Call +1 415 555 2671 dollars or not",
    "Factura: llama al 612-345-678",
]


@pytest.mark.parametrize("text", RECORDS_AND_AMOUNTS)
def test_a_record_number_or_an_amount_is_not_a_phone(text):
    assert redact(text).text == text


@pytest.mark.parametrize("text", PHONES_NEAR_THOSE_WORDS)
def test_a_phone_beside_a_record_word_or_a_unit_is_still_a_phone(text):
    assert redact(text).counts == {"PHONE": 1}, redact(text).text


@pytest.mark.parametrize("text", FORMATS)
def test_every_format_is_redacted(text):
    result = redact(text)
    assert result.counts, result.text
    assert not any(ch.isdigit() for ch in result.text) or "[" in result.text
    assert "@" not in result.text and "(at)" not in result.text


@pytest.mark.parametrize("text", KEPT)
def test_ordinary_numbers_and_words_survive(text):
    assert redact(text).text == text


@pytest.mark.django_db
@pytest.mark.usefixtures("media_root", "fake_embedder")
def test_a_file_name_is_redacted_like_its_text():
    document = make_document("Nota interna.", filename="maria.lopez@gmail.com 12345678Z.txt")
    assert document.filename == "[EMAIL] [DNI].txt"
    public = make_document("Otra nota.", filename="handbook.txt", redaction=Redaction.NONE)
    assert public.filename == "handbook.txt"


@pytest.mark.django_db
@pytest.mark.usefixtures("media_root", "fake_embedder")
@pytest.mark.parametrize("choice", [Redaction.NONE, Redaction.KEEP_CONTACTS])
def test_a_knowledge_editor_cannot_redact_less_than_the_policy(client, django_user_model, choice):
    editor = django_user_model.objects.create_user("editor", password="pw", is_staff=True)
    role_grant(username="editor", role="knowledge_editor")
    client.force_login(editor)

    page = client.get("/knowledge/").content.decode()
    assert 'value="none"' not in page and 'value="keep_contacts"' not in page

    response = upload(client, "vecinos.txt", b"DNI 12345678Z, tel 612 345 678.", redaction=choice)
    assert response.status_code == 403
    assert "redaction policy" in response.json()["error"]
    assert not Document.objects.exists()

    allowed = upload(client, "vecinos.txt", b"DNI 12345678Z.", redaction=Redaction.ALL)
    assert allowed.status_code == 201


@pytest.mark.django_db
@pytest.mark.usefixtures("media_root", "fake_embedder")
def test_an_owner_may_and_the_document_says_so(client, django_user_model):
    owner = django_user_model.objects.create_user("owner", password="pw", is_staff=True)
    role_grant(username="owner", role="owner")
    client.force_login(owner)
    response = upload(client, "publico.txt", b"Horario publico.", redaction=Redaction.NONE)
    assert response.status_code == 201
    detail = client.get(f"/knowledge/{response.json()['id']}/").content.decode()
    assert str(Redaction.NONE.label) in detail


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Afiliación: 28/12345678/40", "NSS"),
        ("NSS 281234567840", "NSS"),
        ("SSN 123-45-6789", "SSN"),
        ("Social security 123 45 6789", "SSN"),
        ("DNI 12 345 678 Z", "DNI"),
    ],
)
def test_social_security_numbers_and_a_spaced_dni_are_redacted(text, kind):
    """Found by a fresh batch of formats (2026-12-01): these were kept in clear."""
    assert redact(text).counts == {kind: 1}


@pytest.mark.parametrize(
    "text",
    ["Pedido 28/12345678/41", "Fecha 2026-11-27", "Referencia 666-12-3456", "Lote 000-12-3456"],
)
def test_numbers_that_only_look_like_social_security_numbers_stay(text):
    assert not redact(text).counts.get("NSS") and not redact(text).counts.get("SSN")


IDENTITY_NUMBERS = [
    # with their check digits, wherever they stand
    "Su RUT es 12.345.678-5 y vive en Santiago",
    "RUN 9.876.543-3",
    "CUIT 20-12345678-6 del proveedor",
    "Titular 27-30123456-8",
    "CURP GODE561231HDFNRN05",
    "RFC GODE561231GR8 del empleado",
    "PIS 120.12345.67-2 do funcionário",
    "Cartão de Cidadão 12345678 9 ZZ1",
    "NIT 1.023.456.789-4",
    "NIF 123456789",
    "número de contribuinte 234567899",
    # numbers whose documents have no check digits, after their name
    "RG 12.345.678-9",
    "meu RG é MG-12.345.678",
    "CNH 12345678900",
    "título de eleitor 1234 5678 0191",
    "Cartão SUS 898 0012 3456 7890",
    "pasaporte PAB123456",
    "passport number: 533380006",
    "passaporte nº FT123456",
    "Cédula de ciudadanía No. 1.023.456.789",
    "DNI 30.123.456 (Argentina)",
    "documento de identidad 12345678",
    "driver's license number D1234567",
]


@pytest.mark.parametrize("text", IDENTITY_NUMBERS)
def test_identity_numbers_of_latin_america_brazil_and_portugal_are_redacted(text):
    """Found by a fresh batch of formats (2026-12-01): every one was kept in clear, the
    PIS, the CNH and the NISS taken for phones at best."""
    result = redact(text)
    assert result.counts == {"ID": 1}, result.text
    assert sum(c.isdigit() for c in result.text) == 0, result.text


@pytest.mark.parametrize(
    "text",
    [
        "RUT 12.345.678-4",  # wrong check digit
        "CURP GODE561231HDFNRN09",
        "NIF 501964842",
        "DNI 12345678A",  # Spain's, checked by its own rule
        "Lei do PIS 10.637/2002",  # a law, not a person
        "RFC 9110 section 15",
        "run 100000 iterations",
        "RG emitido em 12.03.2015",
        "Passport 2024-2025 renewals",
        "El nit de la fiesta 123456",
    ],
)
def test_numbers_near_an_identity_name_that_are_no_identity_stay(text):
    assert not redact(text).counts.get("ID"), redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Condomínio do Edifício Sol, NIF 901234567",
        "Empresa Lda., NIPC 501964843",
        "Câmara Municipal, contribuinte 600000052",
        "Proveedor Alamos S.A., CUIT 30-71234567-1",
        "Facturar a 33-12345678-0",
        "Constructora Andes SpA, RUT 76.123.456-0",
        "NIT 900.123.456-8 de la constructora",
        "RFC ABC010101AB1 de la empresa",
    ],
)
def test_a_companys_or_a_communitys_tax_number_is_no_personal_data(text):
    """Found probing as a building's administrator would write (2026-12-01): the
    condominium's own NIF, a supplier's CUIT or RUT were replaced like a person's."""
    assert not redact(text).counts.get("ID"), redact(text).text


def test_the_name_of_the_document_stays_beside_its_placeholder():
    assert redact("Su pasaporte es PAB123456.").text == "Su pasaporte es [ID]."


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Escribe a ana.lopez\u2060@gmail.com", "EMAIL"),
        ("Escribe a ana\u200c.lopez@gmail.com", "EMAIL"),
        ("Escribe a ana.lopez\ufeff@gmail.com", "EMAIL"),
        ("Escribe a ana [dot] lopez [at] gmail [dot] com", "EMAIL"),
        ("Escribe a ana.lo\u200bpez@gmail.com", "EMAIL"),
        ("Mi clave AKIA\u200bIOSFODNN7EXAMPLE", "SECRET"),
        ("Llama al 612\u200d345\u200d678", "PHONE"),
        ("Llama al 612\u202e345 678", "PHONE"),
        ("Llama al 612\u2013345\u2013678", "PHONE"),
        ("Mi tarjeta 4111\u20131111\u20131111\u20131111", "CARD"),
        ("Mi tarjeta 4111\u22121111\u22121111\u22121111", "CARD"),
        ("Su DNI 12345678\u2011Z", "DNI"),
        ("Seu CPF 529\u200b982\u200b247\u201425", "CPF"),
    ],
)
def test_invisible_characters_and_dashes_inside_personal_data_hide_nothing(text, kind):
    """Found by a fresh batch (2026-12-01): a word joiner, a zero-width joiner or an en
    dash inside an address, a phone or a card kept it in clear (and a spelled-out dot in
    the local part kept its first half). The text around keeps its own characters."""
    result = redact(text)
    assert result.counts == {kind: 1}, result.text
    assert result.text == " ".join(text.split(" ")[:2]) + f" [{kind}]"


def test_what_redaction_leaves_keeps_its_own_dashes():
    text = "Del 1990\u20132000, llama al 612\u2013345\u2013678 \u2014 o no."
    assert redact(text).text == "Del 1990\u20132000, llama al [PHONE] \u2014 o no."


PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA75ZbjO3zFQKnEfXzkJ7kFSAPHcyXN\n"
    "q0PvgTsTnNJmpkAzVAaE1CXHq0PvgTsTnNJmpkAz\n-----END RSA PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "left"),
    [
        (
            "La clave de AWS es AKIAIOSFODNN7EXAMPLE y sigue.",
            "La clave de AWS es [SECRET] y sigue.",
        ),
        ("token: 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 fin", "token: [SECRET] fin"),
        ("Stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc fin", "Stripe [SECRET] fin"),
        (
            "JWT eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c.",
            "JWT [SECRET].",
        ),
        (
            "Base: postgres://admin:S3cr3tP4ss@db.example.com:5432/prod",
            "Base: postgres://admin:[SECRET]@db.example.com:5432/prod",
        ),
        (
            "Slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx fin",
            "Slack [SECRET] fin",
        ),
        (f"Clave:\n{PRIVATE_KEY}\nEl resto sigue.", "Clave:\n[SECRET]\nEl resto sigue."),
        (f"Cortada:\n{PRIVATE_KEY[:-31]}\n\nEl resto.", "Cortada:\n[SECRET]\n\nEl resto."),
    ],
)
def test_credentials_are_never_knowledge(text, left):
    """Seed 004 §2.2: credentials or tokens are a forbidden source. An uploaded page with
    an API key or a private key kept them searchable, quotable and in memories (found
    2026-12-01); Yelp's detect-secrets knows their shapes."""
    result = redact(text)
    assert (result.text, dict(result.counts)) == (left, {"SECRET": 1})


@pytest.mark.parametrize(
    "text",
    [
        "La contraseña del wifi es Piscina2024",  # the building's, knowledge on purpose
        "Visita https://www.example.com/ruta/larga/del/manual_de_uso_completo.html hoy",
        "Identificador 3f2a9c1b7d8e4f60a1b2c3d4e5f60718293a4b5c del commit",
        "Ver http://docs.example.com:8080/guia y seguir",
    ],
)
def test_what_only_looks_like_a_credential_stays(text):
    assert redact(text).text == text


def test_what_is_found_across_invisible_characters_is_replaced_where_it_stands():
    """The rules read the text without them; the replacement lands on the text's own
    characters, the invisible ones around it left where they were."""
    text = "\u200b\u200bTel: 6\u200b1\u200b\u200b2 345 678 y\u2060 ana@x.com\u200b. Fin\u200b"
    assert redact(text).text == "\u200b\u200bTel: [PHONE] y\u2060 [EMAIL]\u200b. Fin\u200b"


def test_an_address_that_ends_a_sentence_leaves_the_next_word_alone():
    """Found 2026-12-01: "a . b @ c . com" let a dot take the space after it, so an
    address ending a sentence took the next word with it ("[EMAIL] horario…"), and an
    allow-listed one followed by a capital was no longer the allow-list's."""
    from knowledge.redaction import AllowList

    assert redact("Escribe a ana@x.com. Luego llama.").text == "Escribe a [EMAIL]. Luego llama."
    kept = redact(
        "Contacto: soporte@alamos.example. El horario es de 9 a 14.",
        allow=AllowList(["soporte@alamos.example"]),
    )
    assert kept.text == "Contacto: soporte@alamos.example. El horario es de 9 a 14."
    assert kept.kept == {"EMAIL": 1}


@pytest.mark.parametrize(
    "number",
    ["900 123 456", "902 202 202", "+34 900 123 456", "0800 123 4567", "+1 800 555 0199"],
)
def test_a_business_s_service_number_is_no_one_s_personal_data(number):
    """Freephone, shared-cost and premium-rate numbers (as libphonenumber's plans know
    them) are a business's: a handbook's "Llame al 900 123 456" stays quotable, while a
    mobile beside it is still replaced."""
    result = redact(f"Llame al {number} o a Ana al 612 345 678.")
    assert result.text == f"Llame al {number} o a Ana al [PHONE]."


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        (
            "Mi contraseña es hunter2, ¿cómo la cambio?",
            "Mi contraseña es [SECRET], ¿cómo la cambio?",
        ),
        ("O PIN é 1234.", "O PIN é [SECRET]."),
        ("The door code is 4590", "The door code is [SECRET]"),
        ("Mi password: Tr0ub4dor&3", "Mi password: [SECRET]"),
        ("La clave del éxito es la constancia", "La clave del éxito es la constancia"),
        ("¿Cuál es la contraseña del wifi?", "¿Cuál es la contraseña del wifi?"),
        ("Olvidé mi contraseña, ¿qué hago?", "Olvidé mi contraseña, ¿qué hago?"),
    ],
)
def test_a_password_a_person_writes_out_is_redacted_from_what_they_said(said, kept):
    """What people type (questions, comments) loses the credentials they write out; in
    knowledge, "la contraseña del wifi es Piscina2024" is the building's (redact alone)."""
    from knowledge.redaction import redact_said

    assert redact_said(said).text == kept
    assert redact("La contraseña del wifi es Piscina2024").text.endswith("Piscina2024")


@pytest.mark.parametrize(
    "said", ["Mi pedido 612345678, llámame", "Chamado #5512345678", "son 612 345 678 euros"]
)
def test_what_a_person_types_keeps_no_phone_whatever_word_stands_beside_it(said):
    assert redact(said).text == said  # in a document, a record's number or an amount
    assert redact_said(said).counts == {"PHONE": 1}


@pytest.mark.parametrize(
    "text",
    [
        "Llámame al 6 1 2 3 4 5 6 7 8",
        "mi móvil: 6-1-2-3-4-5-6-7-8",
        "meu celular é 1 1 9 8 7 6 5 4 3 2 1",
        "call me on +4 4 7 9 1 1 1 2 3 4 5 6",
        "tlf 612/345/678",
    ],
)
def test_a_phone_a_person_types_digit_by_digit_is_redacted(text):
    """Written to dodge a parser, in a chat question or a comment: the digits make a number
    valid in a region. Found trying more of finding F6's kinds (2026-12-02)."""
    assert redact_said(text).counts["PHONE"] == 1, redact_said(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Pasos: 1 2 3 4 5 6 7 8 9",
        "la versión 1.2.3.4.5.6.7.8.9",
        "puntúa de 1 2 3 4 5 6 7 8 9 10",
        "la cita es el 12/03/2025 a las 9",
        "IP 192.0.2.123",
        "medidas 120 x 80 x 45 cm",
    ],
)
def test_digits_that_make_no_phone_are_kept_when_typed(text):
    assert redact_said(text).text == text


def test_a_documents_table_of_single_digits_is_no_phone():
    """A document's row of a table ("9 8 7 6 5 4 3 2 1" is a valid landline in León) is read
    with its context, where digit by digit is no way to write a phone."""
    assert redact("Puntuación: 9 8 7 6 5 4 3 2 1").text == "Puntuación: 9 8 7 6 5 4 3 2 1"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("correo: ana＠empresa.es", "EMAIL"),
        ("ａｎａ．ｌｏｐｅｚ＠ｅｍｐｒｅｓａ．ｅｓ", "EMAIL"),
        ("móvil ６１２ ３４５ ６７８", "PHONE"),
        ("CPF 529-982-247-25", "CPF"),
        ("CPF 529.982.247/25", "CPF"),
    ],
)
def test_wide_characters_and_other_separators_hide_nothing(text, kind):
    """The wide forms of ASCII read as what they show; a CPF's groups joined by any
    separator (found trying more of finding F6's kinds, 2026-12-02)."""
    result = redact(text)
    assert result.counts[kind] == 1, result.text
    assert "＠" not in result.text and "６" not in result.text


@pytest.mark.parametrize(
    "text", ["mail: ana.lopez@gmail", "ana.lopez(a)gmail.com", "ana.lopez@@gmail.com"]
)
def test_an_address_a_person_cuts_short_or_doubles_is_redacted(text):
    """Enough to reach them (found trying more of finding F6's kinds, 2026-12-02)."""
    assert redact_said(text).counts["EMAIL"] == 1, redact_said(text).text


@pytest.mark.parametrize("text", ["pregunta a @soporte", "instala react@18 y django@5.2"])
def test_a_mention_or_a_package_version_is_no_address(text):
    assert redact_said(text).text == text


def test_a_documents_name_at_host_is_read_whole():
    """In a document, "deploy@servidor" names an account of a machine, not a person."""
    assert redact("Entra como deploy@servidor").text == "Entra como deploy@servidor"


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("mi correo es ana arroba gmail", "mi correo es [EMAIL]"),
        ("meu email é joao.silva arroba hotmail", "meu email é [EMAIL]"),
        ("escríbeme a ana (arroba) empresa", "escríbeme a [EMAIL]"),
        ("my email is john dot smith at gmail", "my email is [EMAIL]"),
        ("write to ana at yahoo please", "write to [EMAIL] please"),
    ],
)
def test_an_address_said_aloud_and_cut_short_is_redacted(text, left):
    """What a person says in a chat, with no ending: enough to reach them (left by the
    previous session's note)."""
    assert redact_said(text).text == left


@pytest.mark.parametrize(
    "text",
    [
        "compré una arroba de trigo",
        "pesa una arroba y media",
        "meet at noon",
        "look at me",
        "Is the gym at Outlook Tower open?",
        "I bought it at the Vodafone shop",
    ],
)
def test_a_weight_a_time_or_a_building_is_no_address(text):
    assert redact_said(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "Go to the self-service portal at reset.example.org.",
        "Open a ticket at help.example.org or call extension 4400.",
        "Find the timetable at www.example.com/horarios today.",
    ],
)
def test_a_place_at_a_host_is_no_address(text):
    """An IT helpdesk's guide, toured: "the self-service portal at reset.example.org"
    was stored as "the self-service [EMAIL]", English "at" read as an "@", and the answer
    to "How do I reset my password?" lost the portal."""
    assert redact(text).text == text
    assert redact_said(text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "Write to ana at gmail.com today",
        "Write to maria.lopez at example dot com today",
        "Write to maria (at) example.com today",
    ],
)
def test_at_spells_an_address_before_a_mail_provider_or_a_said_dot(text):
    assert redact(text).text == "Write to [EMAIL] today"


# A held-out batch written as an outside run would (tests/bench/redaction.py) missed these
# kinds in documents at its first run (0.875 replaced, and a barcode taken for a card); the
# same kinds in other words and numbers.
@pytest.mark.parametrize(
    "text",
    [
        "Teléfono de Ana: 6-1-2-3-4-5-6-7-8.",
        "WhatsApp do zelador 1 1 9 8 7 6 5 4 3 2 1",
        "Móvil 612/34/56/78 (turno de noche)",
    ],
)
def test_a_phone_written_digit_by_digit_after_a_phones_name_is_redacted_in_a_document(text):
    assert redact(text).counts["PHONE"] == 1, redact(text).text


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Domiciliación en la cuenta 2100-0418-45-0200051332.", "0200051332"),
        ("Cuenta 2100 0418 4502 0005 1332 (CCC).", "0005 1332"),
        ("CBU 28505909 40090418135201 del inquilino.", "40090418135201"),
        ("Depositar en la CLABE 002 010 07777777777 1.", "07777777777"),
        ("CLABE interbancaria: 032180000118359719", "032180000118359719"),
    ],
)
def test_a_countrys_own_bank_account_number_is_redacted(text, left):
    result = redact(text)
    assert left not in result.text and result.counts["IBAN"] == 1, result.text


@pytest.mark.parametrize(
    "text",
    [
        "Employee JG 10 37 59 A starts on Monday.",
        "Her NI number is AB123456C.",
        "National Insurance number: QQ 12 34 56 C",  # HMRC's example prefix, named
    ],
)
def test_a_uk_national_insurance_number_is_redacted(text):
    assert redact(text).counts["ID"] == 1, redact(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Código de barras 8412341000007 (EAN-13).",  # passes Luhn's check too
        "GTIN 10841234500044 de la caja.",  # so does this one
        "Chave de acesso: 3523 0412 3456 7800 0190 5500 1000 0000 0110 0000 0010",
        "Prefijo GB 12 34 56 A no asignado.",  # a prefix HMRC never issues
        "Secuencia de la prueba: 6 1 2 3 4 5 6 7 8.",  # no phone's name before it
        "Referencia 2100 0418 45 0200051333.",  # a CCC whose check digits fail
    ],
)
def test_a_barcode_an_invoice_key_or_a_sequence_is_no_personal_data(text):
    assert redact(text).text == text


@pytest.mark.parametrize(
    ("said", "left"),
    [
        ("a minha senha é Corinthians77", "Corinthians77"),
        ("PIN del cajero: 5813", "5813"),
        ("the CVC on my card is 602", "602"),
        ("código de desbloqueo 0931 del móvil", "0931"),
        ("OTP 640031, ¿lo pongo aquí?", "640031"),
        ("mi clave es 'sol y mar'", "sol y mar"),
        ("pwd: Tortuga$Lenta", "Tortuga$Lenta"),
        ("my password is purple-monkey-dishwasher", "purple-monkey-dishwasher"),
        ("el código que me mandaron es 55120", "55120"),
        ("o código do portão é 2020#", "2020"),
    ],
)
def test_a_credential_a_person_writes_out_is_redacted_however_it_is_put(said, left):
    """Found by a held-out batch (tests/bench/redaction.py: 0.360 replaced at its first
    run): only "…es/is/é/:" then anything was taken, and not a card's code, a one-time code,
    a value right after the name or a quoted phrase."""
    result = redact_said(said)
    assert left not in result.text and result.counts["SECRET"] == 1, result.text


@pytest.mark.parametrize(
    "said",
    [
        "la contraseña es muy larga",
        "¿el PIN es obligatorio?",
        "my password is not working",
        "o código da porta é o mesmo de sempre?",
        "el código postal es 28013",
        "¿cambió la política de contraseñas 2024?",
        "la clave del éxito es la constancia",
        "the PIN is 4 digits long",
        "restore with pass --force",
    ],
)
def test_what_only_names_a_credential_keeps_its_words(said):
    """The same batch's other half: the old rule took whatever word followed (0.267 of
    these were changed), and a memory holding one was refused for it."""
    assert redact_said(said).text == said


@pytest.mark.parametrize(
    "said",
    [
        "mi móvil es seis uno dos tres cuatro cinco seis siete ocho",
        "meu celular é um um nove oito sete meia cinco quatro três dois um",
        "call me on oh seven seven oh oh nine oh oh one two three",
        "llámame al 6 uno 2 tres 4 cinco 6 siete 8",
        "my number is six-one-two, three-four-five, six-seven-eight",
    ],
)
def test_a_phone_a_person_spells_in_words_is_redacted_from_what_they_said(said):
    """Memory screening read these as numbers; the question stored with the conversation
    kept them as typed (found trying F6's kinds said aloud, 2026-12-02)."""
    result = redact_said(said)
    assert result.counts["PHONE"] == 1 and "[PHONE]" in result.text, result.text


@pytest.mark.parametrize(
    "said",
    [
        "uno, dos, tres, cuatro, cinco, seis, siete, ocho, nueve: ¡a jugar!",
        "el 2 de mayo de 2024 a las 3",
        "cuenta uno dos tres cuatro cinco y sigue",
        "the one to two, three to four and five to six slots",
    ],
)
def test_counting_aloud_is_no_phone(said):
    assert redact_said(said).text == said


@pytest.mark.parametrize(
    ("said", "left"),
    [
        ("mi correo es ana guion bajo lopez arroba gmail punto com", "ana"),
        ("write to ana underscore lopez at gmail dot com", "ana"),
        ("escríbeme a ana_lopez@ gmail. com", "ana_lopez"),
        ("meu email: j o a o @ u o l . c o m . b r", "j o a o"),
        ("contacto: ana.lopez[@]gmail[.]com", "ana.lopez"),
        ("report to abuse[@]example[.]org", "abuse"),
    ],
)
def test_an_address_said_with_its_underscore_spaced_or_defanged_is_redacted(said, left):
    """Found trying more of the same kinds in what a person types (2026-12-02): the name
    before a spoken "guion bajo" was left, and an address typed a letter at a time or with
    "[@]" and "[.]" was stored whole."""
    result = redact_said(said)
    assert left not in result.text and result.counts["EMAIL"] == 1, result.text


@pytest.mark.parametrize(
    "said", ["Pasos: a b c d e f g", "el guion bajo de la tabla", "a la una, a las dos. Com"]
)
def test_letters_one_at_a_time_or_the_word_underscore_are_no_address(said):
    assert redact_said(said).text == said


@pytest.mark.parametrize(
    ("said", "left"),
    [
        ("mi contraseña es perro, ¿cómo la cambio?", "perro"),
        ("a minha senha é flamengo", "flamengo"),
        ("my password is sunshine.", "sunshine"),
        ("mi clave del banco es tortuga", "tortuga"),
    ],
)
def test_ones_own_password_said_as_a_plain_word_is_redacted(said, left):
    """Left by the credentials batch's fix (a value taken by its looks): one plain word
    ending the clause after "mi contraseña es" is taken, unless it says what the password
    is like."""
    result = redact_said(said)
    assert left not in result.text and result.counts["SECRET"] == 1, result.text


@pytest.mark.parametrize(
    "said",
    [
        "mi contraseña es incorrecta",
        "¿mi contraseña es segura?",
        "my password is expired",
        "Your password is changed",
        "a minha senha é fraca",
        "mi clave es importante",
        "la contraseña es perro",  # nobody's own: a riddle, a rule, an example
    ],
)
def test_what_ones_password_is_like_is_kept(said):
    assert redact_said(said).text == said
