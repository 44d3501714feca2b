"""Offline synthetic in-domain questions: headings, FAQ items, records and key phrases turned into messages in five styles."""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from classifiers import styles
from classifiers.intent import _ADMIN
from pipeline.chunking import Chunk
from pipeline.text import fold

STYLES = styles.STYLES
NO_INFO_SOURCES = frozenset({"offline-campus", "feedback-no-info", "offline-transfer"})  # in domain, but the documents do not answer them


@dataclass(slots=True)
class Example:
    """One training question with its provenance."""

    text: str
    label: int  # 1 in domain, 0 out of domain
    style: str
    source: str  # "offline-template", "llm", "ood-bank", "ood-template", "feedback"
    chunk_ids: tuple[str, ...] = ()
    prompt_hash: str | None = None
    topic: str | None = None

    @property
    def group(self) -> str:
        """What must stay on one side of a held-out split: the chunks (in domain) or the topic (out of domain)."""
        if self.chunk_ids:
            return self.chunk_ids[0].split("#")[0]
        return f"{self.source}:{self.topic or self.text[:20]}"

    def as_dict(self) -> dict:
        d = asdict(self)
        d["chunk_ids"] = list(self.chunk_ids)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Example":
        return cls(
            text=d["text"], label=int(d["label"]), style=d.get("style", "unknown"), source=d.get("source", "file"),
            chunk_ids=tuple(d.get("chunk_ids") or ()), prompt_hash=d.get("prompt_hash"), topic=d.get("topic"),
        )


def dataset_hash(examples: Sequence[Example]) -> str:
    """A short fingerprint of a dataset's texts and labels."""
    h = hashlib.sha256()
    for e in examples:
        h.update(f"{e.label}\t{e.text}\n".encode())
    return h.hexdigest()[:16]


def save_dataset(examples: Sequence[Example], path: Path) -> Path:
    """Write a reviewable, editable JSONL file, one example a line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for e in examples:
            fh.write(json.dumps(e.as_dict(), ensure_ascii=False) + "\n")
    return path


def load_dataset(path: Path) -> list[Example]:
    with path.open(encoding="utf-8") as fh:
        return [Example.from_dict(json.loads(line)) for line in fh if line.strip()]


# ---------------------------------------------------------------- reading the chunks
_LIST_START = re.compile(r"^\s*(?:[a-zA-Z]\)|\d+[.)]|[IVX]+\.|[-•*]|ART[IÍ]CULO|CAP[IÍ]TULO|SEMESTRE|codigo:|---)", re.IGNORECASE)
_FIELD = re.compile(r"^\s*([A-Za-zÁÉÍÓÚáéíóúñÑ ]{3,30}):\s*(.+?)\s*$")
_ARTICLE = re.compile(r"ART[IÍ]CULO\s+\d+\s*[°ºo]?\.?\s*([^:.]{4,90})[:.]", re.IGNORECASE)
_CAPS_TERM = re.compile(r"\b(?:[A-ZÁÉÍÓÚÑ][\wáéíóúñ]+|[A-Z]{2,})(?:\s+(?:de|del|la|las|los|y|en|para)?\s*(?:[A-ZÁÉÍÓÚÑ][\wáéíóúñ]+|[A-Z]{2,}|\d+))+")
_ARTICLES = {"el", "la", "los", "las", "un", "una", "del", "al", "su", "sus"}
_BREAK = {
    "que", "y", "o", "es", "son", "sera", "será", "debe", "deben", "deberá", "deberán", "podrá", "podrán", "puede", "pueden", "tendrá",
    "tendrán", "se", "no", "cuando", "si", "como", "donde", "con", "por", "a", "hasta", "según", "sin", "ante", "mediante", "está", "están",
    "fue", "ha", "han", "cual", "cuales", "quien", "lo", "le", "les", "tiene", "tienen", "sobre", "entre", "desde",
}
_CONNECT = {"de", "del", "en", "para", "la", "las", "los", "el"}


def unwrap(text: str) -> list[str]:
    """Join hard-wrapped lines back into logical lines (PDF text wraps mid-sentence)."""
    out: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if out and not _LIST_START.match(line) and not _FIELD.match(line) and not out[-1].rstrip().endswith((".", ":", "?", "!")) and not _FIELD.match(out[-1]) and len(out[-1]) > 40:
            out[-1] = f"{out[-1]} {line}"
        else:
            out.append(line)
    return out


def split_sentences(lines: Sequence[str]) -> list[str]:
    out = []
    for line in lines:
        for s in re.split(r"(?<=[.!?;])\s+(?=[A-ZÁÉÍÓÚÑ¿¡])", line):
            s = s.strip(" -•*#\t")
            if len(s) >= 3:
                out.append(s)
    return out


def _clean_topic(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip(" .,:;-–—¿?¡!\"'()")
    text = re.sub(r"^(?:art[ií]culo\s+\d+\s*[°ºo]?\.?|cap[ií]tulo\s+[ivxl\d]+\.?|\d+[.)]|[a-z]\))\s*", "", text, flags=re.IGNORECASE)
    if text.isupper() and len(text) > 4:
        text = text.lower()
    return text[:1].lower() + text[1:] if text[:2] != text[:2].upper() else text


def _strip_marker(text: str) -> str:
    return re.sub(r"^(?:[a-zA-Z]\)|\d+[.)]|[IVX]+\.)\s*", "", text.strip())


def noun_phrases(sentence: str, *, max_words: int = 6) -> list[str]:
    """Spans that start at an article and run through content words and connectors (a cheap noun-phrase chunker)."""
    words = re.findall(r"[\wáéíóúñÁÉÍÓÚÑ%]+", sentence)
    out = []
    for i, w in enumerate(words):
        if w.lower() not in _ARTICLES:
            continue
        span: list[str] = []
        for nxt in words[i + 1 : i + 1 + max_words]:
            low = nxt.lower()
            if low in _BREAK or (low in _ARTICLES and not span):
                break
            span.append(nxt)
        while span and span[-1].lower() in _CONNECT:
            span.pop()
        content = [s for s in span if s.lower() not in _CONNECT]
        if len(content) >= 2 or (len(content) == 1 and len(content[0]) > 6):
            out.append(" ".join(span))
    return out


@dataclass(slots=True)
class Material:
    """What one chunk offers the templates."""

    topics: list[str]
    faq: list[str]
    statements: list[str]
    records: list[dict[str, str]]


def read_chunk(chunk: Chunk) -> Material:
    """Headings, article titles, capitalised terms, noun phrases, FAQ questions, declarative sentences and field records."""
    lines = unwrap(chunk.text)
    topics: list[str] = []
    if chunk.section and chunk.section != chunk.doc_title:
        topics.append(_clean_topic(chunk.section))
    records: list[dict[str, str]] = []
    current: dict[str, str] = {}
    for line in lines:
        m = _FIELD.match(line)
        if m and len(m.group(2)) < 120:
            current[fold(m.group(1)).strip()] = m.group(2)
            continue
        if current:
            records.append(current)
            current = {}
        if line.startswith("---"):
            continue
        if len(line) < 60 and not line.endswith((".", ",", ";")) and re.match(r"^[A-ZÁÉÍÓÚÑ]", line) and not re.match(r"^(SEMESTRE|CAP[IÍ]TULO)\b", line):
            topics.append(_clean_topic(line))
    if current:
        records.append(current)
    body = [ln for ln in lines if not _FIELD.match(ln)]
    if body and body[0][:1].islower():  # the chunk starts mid-sentence
        body = body[1:]
    sents = [_strip_marker(s) for s in split_sentences(body)]
    sents = [s for s in sents if s and not s.startswith("(")]
    faq = [s.strip() for s in sents if s.rstrip().endswith("?") and 12 < len(s) < 220]
    statements = [s for s in sents if not s.endswith("?") and 40 < len(s) < 260 and not _FIELD.match(s)]
    for line in body:
        topics += [_clean_topic(m.group(1)) for m in _ARTICLE.finditer(line)]
    for s in sents:
        topics += [m.group(0) for m in _CAPS_TERM.finditer(s) if len(m.group(0)) > 8 and not m.group(0).isupper()]
        topics += [_clean_topic(p) for p in noun_phrases(s)]
    title = _clean_topic(chunk.doc_title)
    if title:
        topics.append(title)
    seen: set[str] = set()
    unique = []
    for t in topics:
        key = fold(t)
        if 4 <= len(t) <= 90 and key not in seen:
            seen.add(key)
            unique.append(t)
    return Material(topics=unique, faq=faq, statements=statements, records=records)


# ---------------------------------------------------------------- generating
_NAME_FIELDS = ("nombre", "name", "titulo", "curso", "materia", "asignatura", "tramite")


def _name_key(record: dict[str, str]) -> str:
    """The field that names a record: a conventional name field, else the wordiest value."""
    for key in _NAME_FIELDS:
        if key in record:
            return key
    return max(record, key=lambda k: sum(c.isalpha() for c in record[k]))


def _record_question(rng: random.Random, record: dict[str, str]) -> str | None:
    """A question about one field of a 'key: value' record, naming the record by its most wordy value."""
    if len(record) < 2:
        return None
    name_key = _name_key(record)
    name = record[name_key]
    codes = [v for k, v in record.items() if re.fullmatch(r"[A-Z]?\d{2,6}", v.strip())]
    if codes and rng.random() < 0.4:
        name = f"{name} ({codes[0]})" if rng.random() < 0.7 else f"{name} {codes[0]}"
    fields = [k for k in record if k != name_key and record[k] not in codes]
    if not fields:
        return None
    field = rng.choice(fields)
    value = record[field].strip()
    if fold(value) in ("si", "no"):
        return rng.choice(styles.RECORD_YES_NO).format(field=field, name=name)
    if re.fullmatch(r"\d+([.,]\d+)?", value):
        return rng.choice(styles.RECORD_NUMBER).format(field=field, name=name)
    return rng.choice(styles.RECORD_GENERIC).format(field=field, name=name)


def _core(rng: random.Random, m: Material) -> tuple[str, str]:
    """A bare question (no style yet) and the topic it is about."""
    roll = rng.random()
    if m.records and roll < 0.45:
        record = rng.choice(m.records)
        q = _record_question(rng, record)
        if q:
            return q, record[_name_key(record)]
    if m.faq and roll < 0.6:
        q = rng.choice(m.faq)
        return q, q
    if m.statements and roll < 0.8:
        s = rng.choice(m.statements)
        return styles.yes_no_from_statement(rng, s), s
    topic = rng.choice(m.topics) if m.topics else "el reglamento"
    return rng.choice(styles.TOPIC_QUESTIONS).format(t=topic), topic


def offline_questions(chunks: Sequence[Chunk], *, per_chunk: int = 8, seed: int = 13) -> list[Example]:
    """Deterministic in-domain messages in the five styles from every chunk's headings, FAQ items, records and sentences."""
    rng = random.Random(seed)
    out: list[Example] = []
    seen: set[str] = set()
    titles = sorted({c.doc_title for c in chunks})
    for chunk in chunks:
        material = read_chunk(chunk)
        if not (material.topics or material.faq or material.statements or material.records):
            continue
        for i in range(per_chunk):
            style = STYLES[i % len(STYLES)] if i < len(STYLES) else rng.choice(STYLES)
            question, topic = _core(rng, material)
            text = styles.render(rng, style, question=question, topic=topic, context=rng.choice(material.statements) if material.statements else None, area=rng.choice(titles))
            key = fold(text)
            if key in seen or len(text) < 3:
                continue
            seen.add(key)
            out.append(Example(text=text, label=1, style=style, source="offline-template", chunk_ids=(chunk.id,), topic=topic[:80]))
    return out


# ---------------------------------------------------------------- the institution itself
# Students also ask the office about campus life the documents may not cover (parking, lockers, the canteen,
# tutoring): still the office's domain, answered "no information" rather than turned away.
CAMPUS_SERVICES = (
    "estacionamiento", "lockers", "casilleros", "biblioteca", "comedor", "cantina", "gimnasio", "wifi", "sala de estudio",
    "fotocopiadora", "enfermería", "clases de apoyo", "tutorías", "horarios de consulta de los docentes", "objetos perdidos",
    "bicicletero", "rampas de accesibilidad", "sala de computadoras", "préstamo de notebooks", "impresiones", "duchas",
    "microondas", "apuntes de los cursos", "grupos de estudio", "centro de estudiantes", "atención psicológica", "actividades deportivas",
    "bedelía", "secretaría", "laboratorios", "aulas", "cafetería", "menú del día", "transporte", "seguro estudiantil", "carné de estudiante",
)
CAMPUS_FRAMES = (
    "¿{inst} tiene {s}?", "¿Hay {s} en {inst}?", "¿A qué hora abre {s} de {inst}?", "¿Cuánto sale {s} en {inst}?",
    "¿Dónde está {s} de {inst}?", "¿Cómo hago para usar {s} de {inst}?", "¿{s} de {inst} es gratis?", "¿Hay que anotarse para {s}?",
    "¿Quién se encarga de {s} en {inst}?", "¿Los estudiantes pueden usar {s}?", "¿Algún profesor da {s} antes del examen?",
    "¿{s} funciona durante las vacaciones?", "¿Se puede pagar con tarjeta en {s}?",
)
_INSTITUTION = re.compile(r"\b(?:Facultad|Universidad|Escuela|Instituto)(?: (?:de|del|de la) [A-ZÁÉÍÓÚÑ][a-záéíóúñ]+(?: [A-ZÁÉÍÓÚÑ][a-záéíóúñ]+)*)+")


def institution_names(chunks: Sequence[Chunk], *, limit: int = 4) -> list[str]:
    """How the documents name the institution (most frequent first), plus the generic names students use."""
    counts: dict[str, int] = {}
    for c in chunks:
        for m in _INSTITUTION.finditer(" ".join(c.text.split())):
            counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    named = sorted(counts, key=lambda k: -counts[k])[:limit]
    return [f"la {n}" if n.startswith(("Facultad", "Universidad", "Escuela")) else f"el {n}" for n in named] + ["la facultad", "la facu", "la universidad"]


CAMPUS_PLACES = ("el salón {n}", "el edificio T-{m}", "el aula {n}", "el laboratorio {m}", "la oficina de control académico", "la dirección de escuela", "el auditorio", "la ventanilla de pagos", "el módulo {m}", "la sala de profesores")
PLACE_FRAMES = ("¿Dónde queda {p}?", "¿En qué edificio está {p}?", "¿Cómo llego a {p}?", "¿{p} en qué piso está?", "¿A qué hora abren {p}?", "¿Hasta qué hora atienden en {p}?")
PERMISSIONS = (
    "faltar una semana a clases por una cita médica", "ausentarme de las prácticas por un viaje de trabajo", "no ir al EPS unos días por enfermedad",
    "entrar al laboratorio fuera de horario", "faltar a un parcial por un funeral", "llevar las clases a distancia un mes", "salir antes de la práctica",
)
PERMISSION_FRAMES = ("¿A quién le pido permiso para {x}?", "¿Cómo solicito permiso para {x}?", "Necesito permiso para {x}, ¿qué hago?", "¿Se puede pedir permiso para {x}?")


def _campus_question(rng: random.Random, names: list[str]) -> tuple[str, str]:
    roll = rng.random()
    if roll < 0.2:
        place = rng.choice(CAMPUS_PLACES).format(n=rng.randint(100, 420), m=rng.randint(1, 12))
        return rng.choice(PLACE_FRAMES).format(p=place), place
    if roll < 0.35:
        x = rng.choice(PERMISSIONS)
        return rng.choice(PERMISSION_FRAMES).format(x=x), x
    service = rng.choice(CAMPUS_SERVICES)
    return rng.choice(CAMPUS_FRAMES).format(inst=rng.choice(names), s=service), service


def campus_questions(chunks: Sequence[Chunk], *, n: int = 200, seed: int = 17) -> list[Example]:
    """In-domain questions about the institution's own places, services, schedules and permissions, in the five styles."""
    rng = random.Random(seed)
    names = institution_names(chunks)
    out, seen = [], set()
    for _ in range(n * 3):
        if len(out) >= n:
            break
        question, service = _campus_question(rng, names)
        style = rng.choice(STYLES + ("student",))
        question = question[0] + question[1].upper() + question[2:] if question.startswith("¿") else question
        text = styles.student_like(rng, question) if style == "student" else styles.render(rng, style, question=question, topic=service)
        if text in seen:
            continue
        seen.add(text)
        out.append(Example(text=text, label=1, style=style, source="offline-campus", topic=f"campus:{service}"))
    return out


def student_questions(examples: Sequence[Example], *, n: int = 600, seed: int = 19) -> list[Example]:
    """In-domain messages typed the way students type (see styles.student_like), from direct and short questions."""
    rng = random.Random(seed)
    pool = [e for e in examples if e.label == 1 and e.style in ("direct", "vague") and e.source == "offline-template"]
    out, seen = [], set()
    for e in rng.sample(pool, min(len(pool), n)):
        text = styles.student_like(rng, e.text)
        if fold(text) not in seen:
            seen.add(fold(text))
            out.append(Example(text=text, label=1, style="student", source="offline-student", chunk_ids=e.chunk_ids, topic=e.topic))
    return out


# ---------------------------------------------------------------- a student reporting a problem
# What students send most is not a question but a problem: a lost card, a payment link that does not open, a login that
# fails, a record that is wrong. It states no question and often no office word beyond the thing that broke, and it is
# the office's business. The things are the office's own (its card, its receipts, its portal) and its procedures,
# read from the documents; the frames are how a student tells a problem.
OFFICE_THINGS = (
    "carné", "carnet", "constancia de inscripción", "boleta de pago", "orden de pago", "certificado de cursos", "solvencia", "constancia de cursos aprobados",
    "cierre de pensum", "recibo", "usuario", "contraseña", "pin", "correo institucional", "título", "constancia de estudios",
)
OFFICE_SYSTEMS = ("el portal", "el portal de estudiantes", "el sistema de asignación", "el correo institucional", "la plataforma", "el sistema", "la página de pagos", "el aula virtual")
OFFICE_ACTIONS = (
    "asignarme cursos", "inscribirme", "generar la orden de pago", "descargar la constancia", "ver mis notas", "subir los documentos", "imprimir la boleta",
    "pagar en línea", "desasignarme un curso", "entrar con mi usuario", "actualizar mis datos", "ver mi cierre",
)
_THING_ARTICLE = {"carné": "el", "carnet": "el", "recibo": "el", "usuario": "el", "pin": "el", "correo institucional": "el", "título": "el", "cierre de pensum": "el", "certificado de cursos": "el"}
LOST = (
    "perdí mi {x}, ¿cómo saco otro?", "se me perdió {el} {x}", "me robaron la mochila y ahí iba {el} {x}, ¿qué hago?", "extravié {el} {x}", "perdí {el} {x} y ocupo uno nuevo",
    "se me dañó {el} {x}, ¿me pueden dar otro?", "no encuentro {el} {x} y lo necesito para mañana", "se me venció {el} {x}, ¿dónde lo renuevo?",
)
BROKEN = (
    "el link de pago de {t} no abre", "no me carga la página de {t}", "me sale error al pagar {t}", "{s} no me deja {a}", "no puedo {a}, me sale error",
    "intento {a} y se queda cargando", "{s} está caído, no puedo {a}", "le doy clic al enlace de {t} y sale una página en blanco", "no me aparece la opción para {a}",
)
LOGIN = (
    "no puedo entrar a {s}", "olvidé la contraseña de {s}", "me bloquearon el usuario de {s}", "no me llega el correo para recuperar la contraseña de {s}",
    "{s} dice que mi usuario no existe", "cambié el pin y {s} sigue sin dejarme entrar",
)
WRONG = (
    "{el} {x} me salió con el nombre mal escrito", "pagué {t} y en el sistema no aparece", "me cobraron doble {t}", "no me aparece {t} en el sistema",
    "ya pasaron dos semanas y no me dan respuesta de {t}", "hay un error en {el} {x}", "la nota que subieron de {t} no es la mía", "{t} me sale como pendiente aunque ya lo hice",
)
TRANSFER = (
    "vengo de {i}, ¿cómo pido que me reconozcan los cursos?", "estudié en {i}, ¿puedo pedir equivalencias aquí?", "me quiero trasladar de {i} a esta facultad, ¿qué papeles ocupo?",
    "llevé cursos en {i}, ¿me los dan por aprobados?", "soy graduado de {i} y quiero una segunda carrera aquí, ¿cómo me inscribo?",
)


def procedures(chunks: Sequence[Chunk], *, limit: int = 300, seed: int = 5) -> list[str]:
    """The office's procedures and rules as topics (headings, article titles, noun phrases from the documents)."""
    rng = random.Random(seed)
    topics: dict[str, str] = {}
    for c in chunks:
        for t in read_chunk(c).topics:
            if 6 <= len(t) <= 50 and not re.search(r"\d{3,}|https?:", t):
                topics.setdefault(fold(t), t)
    out = sorted(topics.values())
    rng.shuffle(out)
    return out[:limit]


def problem_reports(chunks: Sequence[Chunk], *, n: int = 300, institutions: Sequence[str] = (), seed: int = 23) -> list[Example]:
    """In-domain messages that report a problem (lost card, broken payment link, failed login, wrong record) about the
    office's things and the documents' procedures, typed as students type; with `institutions`, students who come from
    another institution asking this office to recognise their courses (naming another university is not always its business)."""
    rng = random.Random(seed)

    # the documents' procedures a student pays, files or waits for (a heading about anything else makes no problem report)
    procs = [t for t in procedures(chunks, seed=seed) if _ADMIN.search(fold(t))] or ["la inscripción", "el examen final"]
    out, seen = [], set()
    for _ in range(n * 4):
        if len(out) >= n:
            break
        x = rng.choice(OFFICE_THINGS)
        fill = {"x": x, "el": _THING_ARTICLE.get(x, "la"), "t": rng.choice(procs), "s": rng.choice(OFFICE_SYSTEMS), "a": rng.choice(OFFICE_ACTIONS)}
        roll = rng.random()
        if institutions and roll < 0.12:
            family, frame, fill["i"] = "transfer", rng.choice(TRANSFER), rng.choice(institutions)
        else:
            family, frame = rng.choice((("lost", LOST), ("broken", BROKEN), ("login", LOGIN), ("wrong", WRONG)))
            frame = rng.choice(frame)
        text = frame.format(**fill).replace(" de el ", " del ").replace(" a el ", " al ")
        style = rng.choice(("student", "student", "informal", "long"))
        text = styles.student_like(rng, text) if style == "student" else styles.render(rng, style, question=text, topic=fill["t"])
        if fold(text) in seen or not styles.says_something(text):
            continue
        seen.add(fold(text))
        out.append(Example(text=text, label=1, style=style, source="offline-problem", topic=f"{family}:{fill['x'] if family == 'lost' else fill['t']}"))
    return out
