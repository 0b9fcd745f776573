"""Redaction (knowledge.redaction) on personal data written as an outside run would, in
Spanish, Portuguese and English documents and questions: the share of what must go that is
replaced, and the share of what must stay (amounts, laws, references, postcodes) that is
left as written. ``manage.py bench_redaction`` prints them.

How the sets were made (2026-12-02), so that a figure is read for what it is:
- ``REDACT_HELD_OUT`` and ``KEEP_HELD_OUT`` were written after F6's 27 formats had been
  fixed (those are in tests/knowledge/test_redaction_attacks.py), without reading the rules
  again, in the shapes the deployment's seven regions write them; each identifier's check
  digits are valid (made with python-stdnum), since one that is not is nobody's. Run once
  before any change: 0.875 replaced as a document is read (a phone in slashes or digit by
  digit, a UK National Insurance number, a Spanish CCC, an Argentine CBU left), 0.925 as a
  person's words are; an EAN-13 barcode taken for a card. Those misses then made rules.
- ``…_HELD_OUT_2`` were written after that and run once: 0.971 replaced (a UK drama-range
  landline left, then a shape), none of what must stay changed in a document. As a
  person's words are read, "Pedido 4500012345" loses its number on purpose: in what a
  person types, a number that is a valid phone is one whatever word precedes it.
- ``CREDENTIALS_SAID`` and ``NO_CREDENTIALS_SAID``: passwords, PINs, card and one-time
  codes a person writes out in a question, and the same words holding none ("¿el PIN es
  obligatorio?"), written that day and run once: 0.360 replaced, 0.267 of the others
  changed (any word after "la contraseña es" was taken). The value is now taken by its
  looks. ``…_2`` were written after that and run once: 0.900 replaced ("el código que me
  llegó por SMS es 774512", "cvv2 del cartão 844" left), 0.000 changed."""

from __future__ import annotations

import time
from collections.abc import Callable

from knowledge.redaction import Redaction, redact, redact_said

# (sentence, what must not be left in it)
REDACT_HELD_OUT = [
    # phones: Portugal, Mexico, Argentina
    ("Contacto do senhorio: 912 345 678 (Sr. Costa).", "912 345 678"),
    ("Telefone da D. Fernanda: 213 456 789, depois das 18h.", "213 456 789"),
    ("Tel. de la administradora: 55 1234 5678.", "55 1234 5678"),
    ("Marcar al +52 1 55 1234 5678 para reservas.", "1234 5678"),
    ("Cel. del encargado: 11 15-2345-6789.", "2345-6789"),
    ("WhatsApp del portero: +54 9 11 2345-6789.", "2345-6789"),
    # phones: Brazil and Spain written otherwise
    ("Fale com a Joana no +55 (11) 98765-4321.", "98765-4321"),
    ("Ligar para (0xx11) 98765-4321 em caso de vazamento.", "98765-4321"),
    ("WhatsApp da síndica: 11987654321.", "11987654321"),
    ("Llamar a Marta al 0034 612 345 678.", "612 345 678"),
    ("El móvil de Luis es el 612/345/678.", "612/345/678"),
    ("Móvil: 6 1 2 3 4 5 6 7 8 (Pedro).", "6 1 2 3 4 5 6 7 8"),
    ("Escríbele por wa.me/34612345678 si hay avería.", "34612345678"),
    ("Enlace: tel:+34612345678", "34612345678"),
    # phones: UK and US
    ("Call Sarah on +44 (0)20 7946 0958 after six.", "7946 0958"),
    ("Reach the tenant at 415-555-2671 ext. 23.", "555-2671"),
    ("Text Mike at 1 (415) 555-2671.", "555-2671"),
    # identity numbers
    ("NIF do inquilino: 213 456 788.", "213 456 788"),
    ("Titular con DNI 47382915V y domicilio en Toledo.", "47382915V"),
    ("Residente con NIE Y-2837465-S.", "2837465"),
    ("CPF do morador 529.982.247-25, apto 32.", "529.982.247-25"),
    ("RG 12.345.678-9 SSP/SP do locatário.", "12.345.678-9"),
    ("CNH nº 02650306461 do motorista.", "02650306461"),
    ("CURP: GOMA850101HDFRRL06.", "GOMA850101HDFRRL06"),
    ("DNI 23.456.789 del inquilino (Argentina).", "23.456.789"),
    ("RUT del arrendatario: 12.345.678-5.", "12.345.678-5"),
    ("Pasaporte PAA123456 del huésped.", "PAA123456"),
    ("Tenant's SSN: 536-22-1234.", "536-22-1234"),
    ("NHS number 943 476 5919 on the form.", "943 476 5919"),
    ("National Insurance number QQ 12 34 56 C.", "QQ 12 34 56 C"),
    # bank accounts and cards
    ("IBAN do condómino: PT50 0002 0123 1234 5678 9015 4.", "1234 5678 9015"),
    ("Cuenta (CCC) 2100 0418 45 0200051332 para el recibo.", "0200051332"),
    ("CBU del propietario: 2850590940090418135201.", "2850590940090418135201"),
    ("Amex 3782 822463 10005 del huésped.", "822463"),
    ("Tarjeta nº 4532015112830366 (caduca 04/27).", "4532015112830366"),
    # e-mails written otherwise
    ("Correo: maria.lopez at gmail dot com", "maria.lopez"),
    ("Email: maria_lopez(arroba)hotmail.com", "maria_lopez"),
    ("Escreva para joana＠condominio.com.br", "joana"),
    ("Contact: ana AT empresa DOT es", "ana AT empresa"),
    ("<a href='mailto:luis.g@correo.es'>escríbenos</a>", "luis.g"),
]

# Sentences a document needs as they are: none of it is a person's.
KEEP_HELD_OUT = [
    "ISBN 978-84-376-0494-7, edición de 2019.",
    "Código postal 28013, Madrid.",
    "CEP 01310-100, Avenida Paulista.",
    "La junta es el 12/03/2024 de 10:30 a 14:00.",
    "Versión v2.3.1 del reglamento.",
    "A taxa extra é de R$ 1.234,56 por unidade.",
    "El presupuesto anual es de 1.234.567,89 €.",
    "Según la Ley 3/2018 de protección de datos.",
    "Conforme a Lei nº 13.709/2018 (LGPD).",
    "Decreto nº 10.474/2020, artigo 5º, inciso X.",
    "Factura nº 2024/000123 del ascensor.",
    "Coordenadas: 40.4168, -3.7038.",
    "El servicio escucha en 127.0.0.1, puerto 8000.",
    "Seguimiento del envío: 1Z999AA10123456784.",
    "Emergencias: 112. Bomberos: 080.",
    "Polícia: 190. SAMU: 192.",
    "Atención al cliente: 900 123 456 (gratuito).",
    "Central de atendimento: 0800 123 4567.",
    "Ver páginas 612-678 del manual.",
    "El municipio tiene 1 234 567 habitantes.",
    "España tenía 47.615.034 habitantes en 2021.",
    "Obras entre 1998-2004 y 2010-2012.",
    "Código de barras EAN 5901234123457.",
    "Reunión en la sala 3.14, planta 2.",
    "Referencia del contrato: 2023-0456-B.",
    "Lote 45, quadra 12, matrícula do imóvel 123.456.",
    "The lift holds 630 kg or 8 people.",
    "Open 24/7; call 911 in an emergency.",
    "Temperatura do aquecedor: 55 °C.",
    "Cuota: 85 € al mes, 1.020 € al año.",
]


# Written after the first batch's misses were fixed, and run once.
REDACT_HELD_OUT_2 = [
    ("Tel.: +351 912 345 678 (administração).", "912 345 678"),
    ("Móvil de guardia (+34) 612 34 56 78.", "612 34 56 78"),
    ("Telf. 91.123.45.67, de 9 a 14.", "91.123.45.67"),
    ("Fijo del portero: 981 12 34 56.", "981 12 34 56"),
    ("Celular da Ana (21) 99876-5432.", "99876-5432"),
    ("Fone: 21 3456-7890 (portaria).", "3456-7890"),
    ("Contato: +55 21 3456 7890.", "3456 7890"),
    ("móvil +34-612-345-678 del conserje", "612-345-678"),
    ("Mob: 07911 123456 (Tom).", "07911 123456"),
    ("Tel 01632 960123, the warden.", "960123"),
    ("Landlord: (212) 555-0198.", "555-0198"),
    ("Ph: 212 555 0198 (evenings).", "555 0198"),
    ("Cel.: 044 55 1234 5678 (Lupita).", "1234 5678"),
    ("Tel. +52 (55) 1234-5678 de la casera.", "1234-5678"),
    ("Tel. (011) 4321-5678, Sr. Gómez.", "4321-5678"),
    ("DNI: 47.382.915-V, vecino del 2ºA.", "47.382.915"),
    ("NIE X1234567L, inquilina del ático.", "X1234567L"),
    ("CPF: 52998224725 (morador da 41).", "52998224725"),
    ("CUIT 20-12345678-6 del locatario.", "12345678"),
    ("CUIL: 27-23456789-1.", "23456789"),
    ("RFC GODE561231GR8 del arrendatario.", "GODE561231GR8"),
    ("Cédula de ciudadanía 1.020.304.050 del portero.", "1.020.304.050"),
    ("SSN 536 22 1234 on file.", "536 22 1234"),
    ("Tenant ITIN 912-70-1234.", "912-70-1234"),
    ("Passport no. 123456789 (US).", "123456789"),
    ("Driver's license D1234567, California.", "D1234567"),
    ("NISS 12345678901 do trabalhador.", "12345678901"),
    ("IBAN: BR15 0000 0000 0000 1093 2840 814P 2.", "1093 2840"),
    ("Pay to IBAN GB33BUKB20201555555555.", "20201555555555"),
    ("Cartão 5500 0000 0000 0004 (Mastercard).", "5500 0000 0000 0004"),
    ("Visa 4111 1111 1111 1111, exp. 09/28.", "4111 1111 1111 1111"),
    ("e-mail: joao.silva[arroba]gmail[ponto]com", "joao.silva"),
    ("Escribe a maria dot lopez at outlook dot es", "lopez"),
    ("Contacto: ana.lopez(at)empresa(dot)es", "ana.lopez"),
    ("correo ana @ gmail . com", "ana @ gmail"),
]
KEEP_HELD_OUT_2 = [
    "Artículo 18.4 de la Constitución.",
    "Real Decreto 1720/2007, de 21 de diciembre.",
    "Processo nº 0001234-56.2023.8.26.0100 em andamento.",
    "NIF de la comunidad: H12345678.",
    "Horário: 08:00-12:00 e 13:00-17:00.",
    "Emergencias: llamar al 112.",
    "Presupuesto 2024: 123.456,78 €.",
    "Pedido 4500012345 entregado.",
    "Matrícula do imóvel nº 45.678.",
    "Código IBGE 3550308 (São Paulo).",
    "Referencia catastral 9872023VH5797S0001WX.",
    "Coordenadas -23.5505, -46.6333.",
    "Versión 22.04.3 del sistema del portal.",
    "Resolución 1920x1080 en la pantalla del portal.",
    "Apartado de correos 1234, 28080 Madrid.",
    "ISSN 0213-8646.",
    "DOI 10.1000/182.",
    "SKU 4006381333931.",
    "Voo IB 6827 às 23:55.",
    "Linha 2 do metrô, estação 12.",
    "Temperatura 21,5 °C.",
    "Portaria: ramal 2345.",
    "Población: 1.500.000 habitantes.",
    "Lei Complementar nº 123/2006.",
    "CEP 22041-001, Copacabana.",
    "Código postal 1000-001 Lisboa.",
    "Línea gratuita 900 900 900.",
    "The building dates from 1887-1891.",
    "Route 66, exit 123.",
    "Cuota de 2.345.678 pesos al año.",
]


# Credentials a person writes out in a question or a comment (read as said only), and the
# same words with none: first written and run once, then a second batch after its fixes.
CREDENTIALS_SAID = [
    ("mi clave del wifi es Perro2024", "Perro2024"),
    ("la contraseña: gatito99", "gatito99"),
    ("mi pin es el 4321", "4321"),
    ("my pin's 4321", "4321"),
    ("senha do banco: abc123", "abc123"),
    ("o código de segurança do cartão é 737", "737"),
    ("el CVV es 123", "123"),
    ("CVC 456 de mi tarjeta", "456"),
    ("the code on the back is 912", "912"),
    ("password = hunter2", "hunter2"),
    ("my password is correct-horse-battery", "correct-horse-battery"),
    ("usuario ana.lopez y contraseña Secreta#1", "Secreta#1"),
    ("login: ana / senha: Mudar@123", "Mudar@123"),
    ("pass: qwerty123", "qwerty123"),
    ("pwd Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("el código del portal es 4590#", "4590"),
    ("a senha do wi-fi é casa1234", "casa1234"),
    ("my passcode's 0000", "0000"),
    ("mi clave de la tarjeta es 1234", "1234"),
    ("o PIN do cartão: 9876", "9876"),
    ("código de verificación 482913 que me llegó por SMS", "482913"),
    ("the OTP is 551234", "551234"),
    ("mi contraseña es 'luna llena'", "luna llena"),
    ("mi usuario es ana y mi clave ana1990", "ana1990"),
    ("la clave es: Madrid.2023", "Madrid.2023"),
]
NO_CREDENTIALS_SAID = [
    "¿cómo cambio mi contraseña?",
    "olvidé la contraseña del portal",
    "what is the wifi password policy?",
    "¿cuál es la clave del wifi del gimnasio?",
    "a senha precisa ter 8 caracteres",
    "el código postal es 28013",
    "password reset doesn't work",
    "¿el PIN es obligatorio?",
    "my pin is not working",
    "la clave es importante para entrar",
    "o código da porta é o mesmo de sempre?",
    "the code is in the handbook",
    "¿Dónde está el CVV en la tarjeta?",
    "mi clave no funciona desde ayer",
    "la contraseña es muy larga",
]

CREDENTIALS_SAID_2 = [
    ("te paso mi contraseña: Barcelona_1992", "Barcelona_1992"),
    ("minha senha é flamengo2019", "flamengo2019"),
    ("my password's Summer2024!", "Summer2024!"),
    ("mi pin del móvil es 0852", "0852"),
    ("o código de acesso do prédio é 2580", "2580"),
    ("alarm code 7391, don't share", "7391"),
    ("el código que me llegó por SMS es 774512", "774512"),
    ("verification code: 330219", "330219"),
    ("cvv2 del cartão 844", "844"),
    ("la clave de mi banca online es Luna#2020", "Luna#2020"),
    ("senha do app: ZxCv9876", "ZxCv9876"),
    ("mi token de acceso es ghp_abcDEF123", "ghp_abcDEF123"),
    ('the wifi password is "blue sky 22"', "blue sky 22"),
    ("contraseña del correo: ana_lopez_77", "ana_lopez_77"),
    ("PIN 2468 para la caja fuerte", "2468"),
    ("código da porta 1357*", "1357"),
    ("mi clave es Gatito-Negro-5", "Gatito-Negro-5"),
    ("pass do wifi: internet@casa", "internet@casa"),
    ("OTP: 918273", "918273"),
    ("the security code is 4821 for the gate", "4821"),
]
NO_CREDENTIALS_SAID_2 = [
    "¿puedo cambiar el PIN de la tarjeta?",
    "la contraseña del wifi no aparece en el manual",
    "mi clave caducó",
    "a senha do condomínio mudou?",
    "the door code changed last week",
    "¿cuántos dígitos tiene el PIN?",
    "el código de acceso es personal",
    "password must have 12 characters",
    "o código de segurança fica atrás do cartão",
    "la clave de la cuestión es el horario",
    "¿el código del portal es el mismo para todos?",
    "my password expired yesterday",
    "the OTP never arrives",
    "la contraseña es la misma de siempre",
    "the PIN is 4 digits long",
    "a senha é pessoal e intransferível",
    "el pin es de 4 cifras",
    "passwords are stored encrypted",
    "¿Se puede usar la clave 2 veces?",
    "mi contraseña es demasiado corta",
]


def _leaked(pairs: list[tuple[str, str]], read: Callable[[str], Redaction]) -> list[str]:
    return [text for text, secret in pairs if secret in read(text).text]


def _changed(texts: list[str], read: Callable[[str], Redaction]) -> list[str]:
    return [text for text in texts if read(text).text != text]


def evaluate() -> list[dict]:
    """The replaced share of what must go and the changed share of what must stay, as a
    document is read (``redact``) and as a person's words are (``redact_said``)."""
    rows = []
    sets = (
        ("held out", REDACT_HELD_OUT, KEEP_HELD_OUT, ("document", "said")),
        ("held out 2", REDACT_HELD_OUT_2, KEEP_HELD_OUT_2, ("document", "said")),
        ("credentials", CREDENTIALS_SAID, NO_CREDENTIALS_SAID, ("said",)),
        ("credentials 2", CREDENTIALS_SAID_2, NO_CREDENTIALS_SAID_2, ("said",)),
    )
    readers = {"document": redact, "said": redact_said}
    for name, personal, ordinary, readings in sets:
        for reading in readings:
            read = readers[reading]
            started = time.perf_counter()
            leaked = _leaked(personal, read)
            changed = _changed(ordinary, read)
            elapsed = time.perf_counter() - started
            rows.append(
                {
                    "set": name,
                    "reading": reading,
                    "redacted": round(1 - len(leaked) / len(personal), 3),
                    "n_redact": len(personal),
                    "kept_changed": round(len(changed) / len(ordinary), 3),
                    "n_keep": len(ordinary),
                    "leaked": leaked,
                    "changed": changed,
                    "ms_per_text": round(elapsed * 1000 / (len(personal) + len(ordinary)), 2),
                }
            )
    return rows
