"""What the assistant itself says (not the model): in the user's language, es, pt or en."""

from __future__ import annotations

REMEMBERED = {
    "es": "Entendido, lo recordaré: «{}». Puedes verlo, cambiarlo u olvidarlo en «Mis recuerdos».",
    "pt": "Entendido, vou lembrar: «{}». Você pode ver, mudar ou esquecer em «Minhas memórias».",
    "en": "Understood, I will remember: «{}». You can see, change or forget it in «My memories».",
}
NO_INFORMATION = {
    "es": "No tengo información sobre eso en la base de conocimiento.",
    "pt": "Não tenho informações sobre isso na base de conhecimento.",
    "en": "I have no information about that in the knowledge base.",
}
# The answer to a message of courtesy alone (text.words.courtesy_said); a greeting is
# answered with the assistant's own.
COURTESY_REPLIES = {
    "thanks": {
        "es": "¡De nada! Si tienes otra pregunta, aquí estoy.",
        "pt": "De nada! Se tiver outra pergunta, estou aqui.",
        "en": "You're welcome! If you have another question, I'm here.",
    },
    "farewell": {
        "es": "¡Hasta pronto!",
        "pt": "Até logo!",
        "en": "Goodbye!",
    },
    "ok": {
        "es": "De acuerdo. Si tienes otra pregunta, aquí estoy.",
        "pt": "Combinado. Se tiver outra pergunta, estou aqui.",
        "en": "All right. If you have another question, I'm here.",
    },
}
NEEDS_CONSENT = {
    "es": (
        "Todavía no me has permitido recordar cosas, así que no lo he guardado. Para hacerlo, "
        "abre «Mis recuerdos» y marca «Permitir que el asistente recuerde lo que le pida»; "
        "luego pídemelo otra vez."
    ),
    "pt": (
        "Você ainda não me permitiu lembrar coisas, então não guardei. Para isso, abra "
        "«Minhas memórias» e marque «Permitir que o assistente lembre o que eu pedir»; depois "
        "peça de novo."
    ),
    "en": (
        "You have not allowed me to remember things yet, so I did not keep it. To do so, open "
        "«My memories» and tick «Let the assistant remember what I ask it to»; then ask again."
    ),
}
NOT_HERE = {
    "es": "Los recuerdos son de cada usuario de una licencia; en esta conversación no guardo ninguno.",
    "pt": "As memórias são de cada usuário de uma licença; nesta conversa não guardo nenhuma.",
    "en": "Memories belong to each user of a license; I keep none in this conversation.",
}
# What a session turn becomes when what it said was forgotten (a document, a memory): the
# turn's language is not kept, so the note is in the three.
FORGOTTEN_TURN = "[Olvidado · Esquecido · Forgotten]"
STAFF_KEEP_NONE = {
    "es": (
        "Solo el propio usuario puede pedirme que recuerde algo: hablando como su licencia "
        "desde la consola no guardo nada en sus recuerdos."
    ),
    "pt": (
        "Só o próprio usuário pode me pedir para lembrar algo: falando como a licença dele "
        "pelo console não guardo nada nas memórias dele."
    ),
    "en": (
        "Only the user themselves can ask me to remember something: speaking as their "
        "license from the console, I keep nothing in their memories."
    ),
}
REFUSED = {
    "es": "No lo he guardado: no puedo recordar {}.",
    "pt": "Não guardei: não posso lembrar {}.",
    "en": "I did not keep it: I cannot remember {}.",
}
# What a memory may not hold, by memory.services.REFUSAL_REASONS code.
REFUSAL_CATEGORIES = {
    "personal_data": {
        "es": "datos personales (documentos, direcciones, teléfonos, correos, tarjetas, cuentas o contraseñas)",
        "pt": "dados pessoais (documentos, endereços, telefones, e-mails, cartões, contas ou senhas)",
        "en": "personal data (identity numbers, addresses, phones, e-mails, cards, accounts or passwords)",
    },
    "health": {"es": "datos de salud", "pt": "dados de saúde", "en": "health data"},
    "sensitive": {
        "es": "datos sensibles (orientación sexual, religión, política, afiliación sindical, origen étnico, antecedentes penales o violencia sufrida)",
        "pt": "dados sensíveis (orientação sexual, religião, política, filiação sindical, origem étnica, antecedentes criminais ou violência sofrida)",
        "en": "sensitive data (sexual orientation, religion, politics, union membership, ethnicity, criminal records or violence suffered)",
    },
    "financial": {"es": "datos financieros", "pt": "dados financeiros", "en": "financial data"},
    "other_people": {
        "es": "opiniones sobre otras personas",
        "pt": "opiniões sobre outras pessoas",
        "en": "opinions about other people",
    },
    "scores": {
        "es": "puntuaciones o valoraciones tuyas",
        "pt": "pontuações ou avaliações suas",
        "en": "scores or ratings of you",
    },
    "instructions": {
        "es": "instrucciones sobre cómo debo comportarme",
        "pt": "instruções sobre como devo me comportar",
        "en": "instructions about how I should behave",
    },
    "limit": {
        "es": "más cosas: ya tienes 50 recuerdos (olvida alguno en «Mis recuerdos»)",
        "pt": "mais coisas: você já tem 50 memórias (esqueça alguma em «Minhas memórias»)",
        "en": "more things: you already have 50 memories (forget one in «My memories»)",
    },
    "low_confidence": {
        "es": "algo tan poco claro",
        "pt": "algo tão pouco claro",
        "en": "something this unclear",
    },
}


def refusal(code: str, language: str) -> str:
    if code == "no_consent":
        return NEEDS_CONSENT[language]
    category = REFUSAL_CATEGORIES.get(code, REFUSAL_CATEGORIES["low_confidence"])[language]
    return REFUSED[language].format(category)


# The widget's first words when the console sets no greeting: {name} is the assistant's.
GREETING = {
    "es": "Hola, {user_name}. Soy {name}. ¿En qué puedo ayudarte?",
    "pt": "Olá, {user_name}. Sou {name}. Como posso ajudar?",
    "en": "Hello, {user_name}. I am {name}. How can I help?",
}
HELLO = {
    "es": "Hola. Soy {name}. ¿En qué puedo ayudarte?",
    "pt": "Olá. Sou {name}. Como posso ajudar?",
    "en": "Hello. I am {name}. How can I help?",
}
