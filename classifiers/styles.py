"""How students write: question templates and the five message styles (direct, informal, statement, long, vague)."""

from __future__ import annotations

import random
import re

from pipeline.text import fold

STYLES = ("direct", "informal", "statement", "long", "vague")

TOPIC_QUESTIONS = [
    "¿Qué es {t}?", "¿Cuáles son los requisitos de {t}?", "¿Cómo funciona {t}?", "¿Qué dice el reglamento sobre {t}?",
    "¿Dónde puedo consultar lo de {t}?", "¿Cuánto cuesta {t}?", "¿Quién se encarga de {t}?", "¿Qué pasa si no cumplo con {t}?",
    "¿Cuándo corresponde {t}?", "¿Qué necesito para {t}?", "¿Me pueden explicar {t}?", "¿Hay algún plazo para {t}?",
    "¿Qué documentos piden para {t}?", "¿Cómo se tramita {t}?", "¿En qué consiste {t}?", "¿Qué requisitos hay que cumplir para {t}?",
    "¿Es obligatorio {t}?", "¿A quién le pregunto por {t}?", "¿Qué opciones hay con {t}?", "¿Cómo hago con {t}?",
    "¿Qué establece la normativa sobre {t}?", "¿Cuántos días tengo para {t}?", "¿Aplica {t} en mi caso?", "¿Qué significa {t}?",
]
RECORD_GENERIC = [
    "¿Cuál es el {field} de {name}?", "¿Qué {field} tiene {name}?", "¿{field} de {name}?", "¿Qué {field} pide {name}?",
    "¿Me dicen el {field} de {name}?", "{name}: ¿qué {field} tiene?", "¿Qué necesito para llevar {name}?", "¿Qué hay que tener aprobado para {name}?",
    "¿Qué {field} corresponde a {name}?", "¿Hay {field} para {name}?",
]
RECORD_NUMBER = ["¿Cuántos {field} tiene {name}?", "¿Cuántos {field} vale {name}?", "¿Cuántos {field} da {name}?", "{name}, ¿cuántos {field}?", "¿Cuál es el número de {field} de {name}?"]
RECORD_YES_NO = ["¿{name} es {field}?", "¿Es {field} {name}?", "¿El curso {name} es {field}?", "¿{name} es {field} o no?", "¿Tengo que llevar {name} sí o sí?"]

_INFORMAL_OPEN = ["hola", "holaa", "buenas", "che", "una consulta", "disculpen", "hola buen dia", "buenas tardes", "hey", "holis", "perdon la molestia", ""]
_INFORMAL_CLOSE = ["gracias!", "porfa", "xfa", "", "??", "desde ya gracias", "gracias de antemano", "😅", "saludos", "me urge"]
_STATEMENT_OPEN = ["Quisiera saber", "Necesito saber", "Me gustaría saber", "Les escribo para consultar", "Quería consultar", "Tengo una duda sobre", "Les agradecería que me indiquen", "Quiero confirmar"]
_STATEMENT_TOPIC = ["Necesito información sobre {t}.", "Les escribo por el tema de {t}.", "Quisiera que me orienten con {t}.", "Tengo dudas con {t}.", "Solicito información de {t}.", "Me interesa saber más de {t}.", "No me queda claro lo de {t}."]
_SITUATIONS = [
    "Estoy en {n} semestre", "Trabajo de día y estudio de noche", "Vengo de otra carrera", "Me atrasé con algunos cursos este año",
    "Soy estudiante de primer ingreso", "Estoy por cerrar pensum", "Repetí un curso el semestre pasado", "Estoy haciendo las prácticas",
    "Me cambié de plan de estudios", "Estuve fuera del país un semestre", "Soy estudiante de {area}", "Ya casi termino la carrera",
]
_ORDINALS = ["primer", "segundo", "tercer", "cuarto", "quinto", "sexto", "séptimo", "octavo", "noveno", "décimo"]
_LONG_OPEN = ["Buenas tardes.", "Hola, buen día.", "Estimados:", "Buenas noches, disculpen la hora.", "Hola, ¿cómo están?", "Saludos cordiales."]
_LONG_CLOSE = ["Desde ya muchas gracias.", "Quedo atento a su respuesta.", "Muchas gracias por su tiempo.", "Agradezco mucho la ayuda.", "Saludos.", "Gracias, quedo pendiente."]
_LONG_WORRY = ["y no quiero perder el plazo", "y nadie me supo responder", "y en la página no lo encuentro claro", "y necesito resolverlo pronto", "y me preocupa atrasarme", ""]
_VAGUE = ["{t}", "{t}?", "info {t}", "consulta {t}", "duda: {t}", "lo de {t}", "{t} ??", "sobre {t}"]
_INTERROGATIVE = re.compile(r"^(qu[eé]|cu[aá]l(es)?|c[oó]mo|cu[aá]ndo|d[oó]nde|cu[aá]nt[oa]s?|qui[eé]n(es)?|por qu[eé]|a qui[eé]n|en qu[eé]|hasta cu[aá]ndo|de qu[eé])\b", re.IGNORECASE)


def bare(question: str) -> str:
    return question.strip().strip("¿?¡! ").strip()


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() or len(text) < 2 else text


def yes_no_from_statement(rng: random.Random, sentence: str) -> str:
    """Turn a declarative sentence from the documents into the kind of question a student would ask about it."""
    words = sentence.strip().rstrip(".;:").split()
    cut = len(words)
    for i, w in enumerate(words):
        if i >= 6 and w.endswith(","):
            cut = i + 1
            break
    cut = min(cut, rng.randint(8, 18))
    s = " ".join(words[:cut]).rstrip(",;:")
    forms = ["¿Es cierto que {s}?", "¿{S}?", "Leí que {s}, ¿es así?", "¿Qué significa que {s}?", "¿Entonces {s}?", "¿Me confirman si {s}?"]
    form = rng.choice(forms)
    return form.format(s=_lower_first(s), S=s[:1].upper() + s[1:])


def _informal(rng: random.Random, question: str) -> str:
    body = bare(question).lower()
    if rng.random() < 0.5:
        body = fold(body)
    if rng.random() < 0.3:
        body = body.replace("que ", "q ").replace("por favor", "porfa").replace("para ", "pa ")
    opener, closer = rng.choice(_INFORMAL_OPEN), rng.choice(_INFORMAL_CLOSE)
    mark = rng.choice(["?", "??", "", "?!"])
    sep = rng.choice([", ", "! ", " ", ". "])
    return " ".join(p for p in (f"{opener}{sep}".strip() if opener else "", f"{body}{mark}", closer) if p).strip()


def _statement(rng: random.Random, question: str, topic: str) -> str:
    if rng.random() < 0.35 and not topic.rstrip().endswith("?"):
        return rng.choice(_STATEMENT_TOPIC).format(t=_lower_first(topic))
    body = _lower_first(bare(question))
    opener = rng.choice(_STATEMENT_OPEN)
    if opener.startswith(("Tengo una duda", "Les escribo")):
        return f"{opener}: {body}."
    return f"{opener} {body if _INTERROGATIVE.match(body) else 'si ' + body}."


def _long(rng: random.Random, question: str, context: str | None, area: str) -> str:
    situation = rng.choice(_SITUATIONS).format(n=rng.choice(_ORDINALS), area=area)
    parts = [rng.choice(_LONG_OPEN), f"{situation} {rng.choice(_LONG_WORRY)}".strip() + "."]
    if context and rng.random() < 0.6:
        ctx = " ".join(context.split()[: rng.randint(10, 22)]).rstrip(",;:.")
        parts.append(rng.choice(["Leí que", "Me comentaron que", "Vi en el reglamento que", "Entiendo que"]) + " " + _lower_first(ctx) + ".")
    q = question.strip()
    parts.append(q if q.endswith("?") else q + ".")
    parts.append(rng.choice(_LONG_CLOSE))
    return " ".join(parts)


def _vague(rng: random.Random, topic: str) -> str:
    words = [w for w in bare(topic).split() if not _INTERROGATIVE.match(w)] or bare(topic).split()
    short = " ".join(words[: rng.randint(1, min(4, max(1, len(words))))])
    text = rng.choice(_VAGUE).format(t=short.lower() if rng.random() < 0.6 else short)
    return text


def render(rng: random.Random, style: str, *, question: str, topic: str, context: str | None = None, area: str = "ingeniería") -> str:
    """The message a student would send, in one of the five styles."""
    if style == "direct":
        q = question.strip()
        return q if q.endswith("?") or not _INTERROGATIVE.match(bare(q)) else f"¿{bare(q)}?"
    if style == "informal":
        return _informal(rng, question)
    if style == "statement":
        return _statement(rng, question, topic)
    if style == "long":
        return _long(rng, question, context, area)
    if style == "vague":
        return _vague(rng, topic)
    raise ValueError(f"unknown style {style!r}")


# ---------------------------------------------------------------- how students really type
_GREETINGS = ["hola", "hola buenas", "buenas tardes", "buen dia", "holaa", "que tal", "hola, disculpen", "buenas noches", "saludos"]
_CONTEXT = [
    "estoy en {n} semestre", "trabajo de dia", "soy de primer ingreso", "ya cerre pensum", "me atrase un semestre",
    "estoy haciendo las practicas", "soy de la jornada nocturna", "vengo de otra carrera", "estoy por graduarme",
]
_SHORTHAND = {"que ": "q ", "porque": "xq", "por favor": "porfa", "para ": "pa ", "también": "tmb", "qué ": "q ", "cuando": "cuando", "de ": "d "}


def typo(rng: random.Random, text: str) -> str:
    """One keyboard slip: a dropped, doubled or swapped letter in a longer word."""
    words = text.split()
    long_words = [i for i, w in enumerate(words) if len(w) > 4 and w.isalpha()]
    if not long_words:
        return text
    i = rng.choice(long_words)
    w, j = words[i], rng.randrange(1, len(words[i]) - 2)
    kind = rng.choice(("drop", "double", "swap"))
    words[i] = w[:j] + w[j + 1 :] if kind == "drop" else w[: j + 1] + w[j:] if kind == "double" else w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    return " ".join(words)


def student_like(rng: random.Random, question: str) -> str:
    """How a student types a question: lower case, often no accents or opening marks, slips, a greeting or a line of context."""
    body = bare(question)
    body = body[:1].lower() + body[1:]
    if rng.random() < 0.7:
        body = fold(body)
    if rng.random() < 0.35:
        for long, short in _SHORTHAND.items():
            if rng.random() < 0.5:
                body = body.replace(long, short)
    for _ in range(rng.choice((0, 0, 0, 1))):  # a slip now and then: unknown words must not become a sign of the domain
        body = typo(rng, body)
    body += rng.choice(["?", "", "??", " ?", "?"])
    parts = []
    if rng.random() < 0.55:
        parts.append(rng.choice(_GREETINGS) + rng.choice([", ", " ", "! ", ". "]))
    if rng.random() < 0.3:
        parts.append(rng.choice(_CONTEXT).format(n=rng.choice(_ORDINALS)) + rng.choice([" y ", ", ", ". "]))
    return ("".join(parts) + body).strip()


# ---------------------------------------------------------------- messages that say nothing
# A generated message cut in the middle of a phrase ("sobre la", "consulta De la", "generar el") asks about nothing: as an
# in-domain example it is label noise, and the gate's threshold (chosen to keep in-domain recall) sinks to fit it.
_FUNCTION_WORDS = frozenset(
    "a al de del la las el los lo le les un una unos unas y e o u en con por para sin sobre que q se su sus mi mis me te tu "
    "es son ser no si ya mas muy como cual cuales entre ante desde hasta segun han ha".split()
)
_FILLER_WORDS = frozenset(
    {w for g in _GREETINGS + _INFORMAL_OPEN + _INFORMAL_CLOSE for w in fold(g).split()}
    | {w for v in _VAGUE for w in fold(v.replace("{t}", "")).split()}
    | {"gracias", "porfa", "xfa", "saludos", "urge", "favor"}
)


def says_something(text: str) -> bool:
    """False for a message cut in the middle of a phrase or made of greetings and function words only."""
    words = re.findall(r"[a-z0-9ñ]+", fold(text))
    content = [w for w in words if w not in _FUNCTION_WORDS and w not in _FILLER_WORDS]
    return bool(words) and words[-1] not in _FUNCTION_WORDS and any(len(w) >= 3 for w in content)
