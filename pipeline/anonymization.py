"""Anonymization of text kept for other students (curated answers, their questions): no name, ID, address, health or
family detail of the student it was written for, and no literal placeholder left behind.

Redaction (pipeline/redaction.py) marks personal data with [TYPE] placeholders for an LLM; a text another student will
receive must not hold them either. Here the greeting becomes neutral ("Hola Ana Lucía:" -> "Hola:"), the student's names
(any case, diminutives) go from where they are said to them, a titled third party becomes a role, and a clause or
sentence that still holds a personal detail is dropped. `findings` says what a text meant for reuse still holds."""

from __future__ import annotations

import re
import unicodedata
from email.utils import parseaddr
from collections.abc import Iterable
from dataclasses import dataclass, field

from pipeline.redaction import _NAME, _NAME_INTRO, _NOT_NAMES, PLACEHOLDER, RULES, redact

# "Hola Ana Lucía:", "Buenos días, ANA.", "estimada ana lucía", "Querido Nico!" (the greeting, then who it greets).
_GREETING = re.compile(
    r"^(?P<lead>[ \t¡]*)(?P<greet>(?i:hola|buen(?:os|as)?\s+(?:d[ií]as|tardes|noches)|buen\s+d[ií]a|estimad[oa]s?|querid[oa]s?|saludos|qu[ée]\s+tal|hey|buenas))"
    r"(?P<who>[ \t,]+(?:[A-Za-zÁÉÍÓÚÑáéíóúñü'-]+[ \t]*){1,5}?)?(?P<end>[ \t]*[:;!.,]|[ \t]*$)",
    re.MULTILINE,
)
_NOT_NAME_WORDS = frozenset(
    "a al de del la las el los lo le les te tu tus su sus mi mis y o u que como gracias por para con en un una unos unas todos todas "
    "equipo estudiante estudiantes alumno alumna companero companera estimado estimada estimados estimadas querido querida "
    "nuevo nueva nuevamente otra vez si no ya bien buen buenos buenas dia dias tardes noches hola tal muchas muy cuento comento escribo "
    "respondo respecto consulta info informacion sobre aqui ahi senor senora senorita saludos atentamente cordialmente abrazo "
    "abrazos besos atte att suerte exitos quedo quedamos orden ordenes oficina bedelia secretaria cordiales cordial afectuosos "
    "atentos carinos me se es yo ni ha he va vi ve da di fe oh llamo soy nombre quiero queria tengo pregunta duda necesito "
    "escribir escribo favor ayuda saber".split()
)
_TITLE = r"(?:Lic|Licda|Lcdo|Lcda|Licenciad[oa]|Ing|Inga|Ingenier[oa]|Dr|Dra|Doctor|Doctora|Prof|Profa|Profesor|Profesora|Mtro|Mtra|Maestr[oa]|MSc|Arq|Sr|Sra|Srta|Señor|Señora|Señorita|Don|Doña|Coord)"
_ROLES = (  # a role or a degree's specialty after the title, not a person ("Ingeniero Electricista")
    r"(?:Director|Directora|Decano|Decana|Coordinador|Coordinadora|Secretario|Secretaria|Rector|Rectora|Jefe|Jefa|Encargad[oa]|Estudiante|Docente|"
    r"Civil|Industrial|Electricista|Mec[aá]nic[oa]|Qu[ií]mic[oa]|Electr[oó]nic[oa]|Ambiental|Agr[oó]nom[oa]|Agr[ií]cola|Sistemas|Ciencias|Geol[oó]g[oa]|Topógraf[oa]|Arquitect[oa])"
)
_ROLE_NOUN = r"(?i:tutor|tutora|asesor|asesora|catedr[aá]tic[oa]|profesor|profesora|docente|coordinador|coordinadora|ingeniero|ingeniera|licenciad[oa]|doctor|doctora|auxiliar)"
TITLED_NAME = re.compile(rf"(?:\b(?:[Ll]a|[Ee]l|[Aa]l|[Dd]el|[Tt]u|[Ss]u)\s+)?\b(?:{_TITLE}\.?|{_ROLE_NOUN})[ \t]+(?!{_ROLES}\b){_NAME}(?:[ \t]+(?:(?:de|del|de[ \t]+la)[ \t]+)?{_NAME}){{0,3}}")
# A health condition, pregnancy, a diagnosis or treatment, a relative's illness or death, a home address: personal when
# the clause speaks of this student ("como estás embarazada", "tu madre falleció"), not in a rule for everyone.
_HEALTH_WORDS = (
    r"embaraz\w*|enfermedad\w*|enferm[oa]s?|diagn[oó]stic\w*|tratamiento\s+(?:m[eé]dico|psicol[oó]gico|psiqui[aá]trico|de)|internad[oa]|internaci[oó]n|"
    r"hospitalizad[oa]|cirug[ií]a|operad[oa]|quimioterapia|terapia|psiqui[aá]tr\w*|medicad[oa]|medicaci[oó]n|duelo|luto|"
    r"diabetes|depresi[oó]n|ansiedad|c[aá]ncer|leucemia|vih|sida|epilepsia|asma|covid(?:-19)?|dengue|tuberculosis|hepatitis|esquizofrenia|autismo|tdah|"
    r"discapacidad|ceguera|sordera|migra[ñn]a\w*|p[aá]nico|fractura|apendicitis|neumon[ií]a|lupus|artritis|bipolar|trastorno"
)
_FAMILY = r"madre|padre|mam[aá]|pap[aá]|herman[oa]s?|hij[oa]s?|espos[oa]|marido|abuel[oa]s?|t[ií][oa]s?|pareja|novi[oa]|familiar(?:es)?|beb[eé]"
_FAMILY_EVENT = r"falleci\w*|muri[oó]|muerte|fallecid[oa]|enferm\w*|hospital\w*|internad[oa]|accidente|sepelio|velorio|se\s+llama|nombre"
_SENSITIVE = re.compile(rf"(?i)\b(?:{_HEALTH_WORDS})\b")
_FAMILY_DETAIL = re.compile(
    rf"(?i)\b(?:tu|su)\s+(?:{_FAMILY})\s*,?\s+(?-i:[A-ZÁÉÍÓÚÑ]|\[NOMBRE\])|\b(?:{_FAMILY})\b(?=.*\b(?:{_FAMILY_EVENT}))|\b(?:{_FAMILY_EVENT})\b(?=.*\b(?:{_FAMILY})\b)|nombre\s+de\s+(?:tu|la|su)\s+(?:madre|padre|mam[aá]|pap[aá])"
)
_HOME_DETAIL = re.compile(r"(?i)\bdirecci[oó]n\s+(?:de\s+(?:tu\s+|su\s+)?casa|particular|de\s+domicilio)|\bdomicilio\b|\bviv[ií]s\s+en\b|\bvives\s+en\b|\btu\s+casa\s+(?:queda|est[aá])")
_YOU = re.compile(r"(?i)\b(?:tu|tus|te|ti|vos|usted|estás|estas|estés|tenés|tienes|tengas|tuviste|sufriste|perdiste|hayas|fuiste|has)\b")
_SENTENCE = re.compile(r"(?<=[.!?…])[ \t]+(?=[¿¡\"«(A-ZÁÉÍÓÚÑ0-9\[])")
_CLAUSE = re.compile(r"(?<=[,;])[ \t]+|[ \t]+(?=(?:y|pero|aunque|porque|ya\s+que|como)\b)")
_CONNECTOR = re.compile(r"(?i)^(?:y|pero|aunque|porque|ya\s+que|como)\s+")
_ROLE = "el personal de la oficina"
_BEFORE, _AFTER = r"(?<![\w\[])", r"(?![\w\]])"
_ACCENTED = {"a": "áà", "e": "éè", "i": "íì", "o": "óò", "u": "úùü", "n": "ñ"}

KIND_LABELS = {
    "NOMBRE": "nombre", "NUM_ESTUDIANTE": "carné", "CEDULA": "cédula", "DPI": "DPI", "DNI": "DNI", "EMAIL": "correo",
    "TELEFONO": "teléfono", "DIRECCION": "dirección", "IBAN": "cuenta bancaria", "SALUD": "salud", "FAMILIA": "familia",
    "SALUDO": "nombre en el saludo", "TITULO": "nombre de otra persona", "MARCADOR": "marcador sin completar",
}


@dataclass
class Anonymized:
    """A text fit for other students and what was taken out of it (kinds -> count)."""

    text: str
    removed: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, n: int = 1) -> None:
        if n:
            self.removed[kind] = self.removed.get(kind, 0) + n


def _fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn")


# Spanish nicknames that are not a shortening of the name (a short, well-known list).
_HYPOCORISMS = {
    "francisco": ("paco", "pancho", "chico", "kiko"), "francisca": ("paca", "pancha", "paquita"), "jose": ("pepe", "chepe", "pepito"),
    "josefa": ("pepa", "pepita", "chepa"), "guadalupe": ("lupe", "lupita"), "jesus": ("chuy", "chucho"), "roberto": ("beto",),
    "alberto": ("beto",), "guillermo": ("memo",), "eduardo": ("lalo",), "manuel": ("manolo", "meme"), "enrique": ("quique",),
    "ignacio": ("nacho",), "dolores": ("lola", "loli"), "rosario": ("charo", "chayo"), "mercedes": ("meche",), "antonio": ("tono", "toño"),
    "consuelo": ("chelo",), "concepcion": ("concha", "conchita"), "jose maria": ("chema",), "margarita": ("maggie", "marga"),
    "alejandro": ("alex",), "alejandra": ("alex",), "gabriela": ("gaby", "gabi"), "andrea": ("andy",), "isabel": ("chabela", "isa"),
    "luis": ("lucho",), "ricardo": ("richi",), "rodolfo": ("fito",), "adolfo": ("fito",), "graciela": ("chela",), "soledad": ("sole",),
}
_COMMON_SHORT = frozenset("con por los las del que una sus mas sin sol mar pan dos ver ser van muy hay han est esta este para pero como todo cada fin mes dia ano cur".split())


def _loose(folded: str) -> str:
    """A regex for a folded word that matches it with or without accents."""
    return "".join(f"[{c}{_ACCENTED[c]}]" if c in _ACCENTED else re.escape(c) for c in folded)


def name_parts(names: Iterable[str]) -> list[str]:
    """Words of the given names worth looking for ("ana.lucia_g" -> ana, lucia), longest first."""
    parts = set()
    for name in names:
        if "@" in (name or ""):  # "Ana López <ana.lopez@x.edu>": the display name and the address's local part, never its domain
            display, address = parseaddr(name)
            name = f"{display} {address.split('@', 1)[0]}" if address else re.sub(r"@\S+", " ", name)
        for part in re.split(r"[\s,._\-@()<>\d]+", name or ""):
            if len(part) >= 2 and part.isalpha() and part.capitalize() not in _NOT_NAMES and _fold(part) not in _NOT_NAME_WORDS:
                parts.add(part)
    return sorted(parts, key=len, reverse=True)


def _name_words(parts: list[str]) -> str | None:
    """A regex (no flags) for any of the name parts, accents optional, with diminutives (Ana -> Anita, Juan -> Juancito)."""
    if not parts:
        return None
    alts = set()
    for part in parts:
        folded = _fold(part)
        alts.add(_loose(folded))
        for suffix in ("cita", "cito", "ita", "ito"):
            if folded.endswith(suffix) and len(folded) - len(suffix) >= 2:  # a diminutive given: the name it comes from
                alts.add(_loose(folded[: -len(suffix)]) + r"(?:a|o|e|ita|ito|cita|cito)")
                break
        stem = folded[:-1] if folded[-1] in "aeo" else folded
        if len(stem) >= 2:
            alts.add(_loose(stem) + r"(?:ita|ito|cita|cito|illa|illo|y)")
        if len(folded) >= 5 and folded[-2:] in ("ia", "io", "ea", "eo"):  # Lucía -> Lucy, Lucita
            alts.add(_loose(folded[:-2]) + r"(?:y|ita|ito)")
        for n in range(3, len(folded) - 1) if len(folded) >= 5 else ():  # Daniela -> Dani, Sebastián -> Sebas, Fernanda -> Fer
            prefix = folded[:n]
            if prefix not in _COMMON_SHORT and prefix not in _NOT_NAME_WORDS:
                alts.add(_loose(prefix) + r"(?:i|y)?")
        alts.update(_loose(h) for h in _HYPOCORISMS.get(folded, ()))
    word = "(?:" + "|".join(sorted(alts, key=len, reverse=True)) + ")"
    return _BEFORE + rf"{word}(?:[ \t]+(?:(?:de|del|de[ \t]+la|y)[ \t]+)?{word})*" + _AFTER


def _greets_someone(who: str) -> bool:
    """Whether the words after a greeting name a person ("Ana Lucía", "ana", "Nico") rather than start a sentence."""
    words = [_fold(w) for w in who.replace(",", " ").split()]
    if not words or words[0] in _NOT_NAME_WORDS or words[-1] in _NOT_NAME_WORDS:
        return False
    return all(w not in _NOT_NAME_WORDS or w in ("de", "del", "la", "y") for w in words)


def names_in(text: str) -> list[str]:
    """Names a text gives: who a greeting addresses, who introduces or signs it."""
    found: list[str] = []
    for m in _GREETING.finditer(text or ""):
        who = (m.group("who") or "").strip(" \t,")
        if who and _greets_someone(who):
            found.append(who)
    found += [m.group("v") for m in _NAME_INTRO.finditer(text or "")]
    for m in re.finditer(r"(?i)\b(?:me\s+llamo|mi\s+nombre\s+(?:completo\s+)?es)\s+((?:[a-záéíóúñü'-]+[ \t]*){1,4})", text or ""):  # written in lower case
        words = [w for w in m.group(1).split() if _fold(w) not in _NOT_NAME_WORDS or _fold(w) in ("de", "del")]
        found.append(" ".join(words[: next((i for i, w in enumerate(m.group(1).split()) if _fold(w) in _NOT_NAME_WORDS and _fold(w) not in ("de", "del")), len(words))]))
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    for line in lines[-2:]:  # a signature: one to four name-like words alone on one of the last lines
        words = line.strip(" -–—.,").split()
        if 1 <= len(words) <= 4 and all(re.fullmatch(r"[A-ZÁÉÍÓÚÑ][\wáéíóúñü'-]*", w) for w in words) and not any(w.capitalize() in _NOT_NAMES or _fold(w) in _NOT_NAME_WORDS for w in words):
            found.append(" ".join(words))
    return [n for n in found if n]


def _greeting(text: str, out: Anonymized, *, slot: bool = False) -> str:
    def repl(m: re.Match[str]) -> str:
        who = (m.group("who") or "").strip(" \t,")
        if not who or not _greets_someone(who):
            return m.group(0)
        out.add("SALUDO")
        end = m.group("end").strip()
        return f"{m.group('lead')}{m.group('greet')}{' ' + NAME_SLOT if slot else ''}{end if end in (':', '!', ',') else ':'}"

    return _GREETING.sub(repl, text, count=1)


# The one placeholder a kept text may hold: the greeted student's first name, filled for each new student when the text
# is reused or suggested (`fill_slots`), never stored filled. Any other {word} is a slot nobody fills: never offered as ready.
NAME_SLOT = "{nombre}"
_NAME_SLOT = re.compile(r"\{[ \t]*nombre[ \t]*\}", re.IGNORECASE)
_ANY_SLOT = re.compile(r"\{[ \t]*[A-Za-zÁÉÍÓÚÑáéíóúñ_][\wÁÉÍÓÚÑáéíóúñ \t]{0,30}\}|\[[ \t]*(?i:nombre|name|alumn[oa]|estudiante)[ \t]*\]")


def first_name(names: Iterable[str]) -> str | None:
    """The first name to greet a student by, from the names the channel gives (From display name, Slack profile), in
    order; None when none looks like a person's first name ("bruno.c", "Secretaría", an address)."""
    for name in names:
        name = (name or "").strip().strip('"')
        if not name or "@" in name:
            continue
        if "," in name:  # "Cabrera, Bruno"
            name = name.split(",", 1)[1]
        words = name.split()
        if not words:
            continue
        word = words[0]
        if not re.fullmatch(r"[A-Za-zÁÉÍÓÚÑáéíóúñü'-]{2,}", word) or word.capitalize() in _NOT_NAMES or _fold(word) in _NOT_NAME_WORDS:
            continue
        if word.isupper() or word.islower():  # "BRUNO", "bruno" -> "Bruno"
            word = "-".join(w.capitalize() for w in word.split("-"))
        return word
    return None


def fill_slots(text: str, name: str | None) -> str:
    """The kept text for one student: each {nombre} becomes their first name, or goes with its comma when unknown
    ("Hola {nombre}:" -> "Hola Bruno:" / "Hola:"). Other slots stay (see `unfilled_slots`)."""
    if name:
        return _NAME_SLOT.sub(lambda _m: name, text or "")
    out = re.sub(r"(?m)^([ \t]*)" + _NAME_SLOT.pattern + r"[ \t]*[,:;!.]?[ \t]*(\w?)", lambda m: m.group(1) + m.group(2).upper(), text or "", flags=re.IGNORECASE)
    out = re.sub(r"[ \t]*,?[ \t]*" + _NAME_SLOT.pattern + r"[ \t]*(?=[,:;!.?¡¿]|$)", "", out, flags=re.IGNORECASE | re.MULTILINE)
    return re.sub(r"[ \t]{2,}", " ", _NAME_SLOT.sub("", out))


def unfilled_slots(text: str) -> list[str]:
    """Placeholders a text still holds once filled for a student ("{carrera}", "[nombre]"): a text with any is not ready."""
    return [m.group(0) for m in _ANY_SLOT.finditer(text or "")]


def functional_address(address: str, words: str | None) -> bool:
    """An office mailbox (bedelia@…, examenes@…), not a person's: no name part, no digits, not "first.last"."""
    local, host = address.lower().split("@", 1)
    if re.match(r"(?:gmail|googlemail|hotmail|outlook|live|yahoo|ymail|icloud|me|aol|proton|protonmail|gmx|yandex|zoho)\.", host):
        return False  # a personal mailbox provider
    if re.search(r"\d{2,}", local) or re.fullmatch(r"[a-záéíóúñ]{2,}[._][a-záéíóúñ]{2,}", local):
        return False
    if words is None:
        return True
    core = words.removeprefix(_BEFORE).removesuffix(_AFTER)
    return re.search(f"(?i){core}", local) is None


def _kept_spans(text: str, keep: str, words: str | None = None) -> tuple[str, list[str]]:
    """E-mail addresses, addresses, phones and titled names of `text` that `keep` (the office's own draft) also holds, and
    functional office mailboxes, protected."""
    kept: list[str] = []
    for m in reversed(list(re.finditer(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+", text))):
        if functional_address(m.group(0), words):
            kept.append(m.group(0))
            text = text[: m.start()] + f"ORIENTAKEPT{len(kept) - 1}X" + text[m.end():]
    if not keep:
        return text, kept
    folded_keep = _fold(keep)
    digits_keep = re.sub(r"\D", "", keep)

    def protect(m: re.Match[str]) -> str:
        value = m.group(0)
        digits = re.sub(r"\D", "", value)
        if _fold(value) in folded_keep or (len(digits) >= 6 and digits in digits_keep and not re.search(r"[A-Za-z]", value)):
            kept.append(value)
            return f"ORIENTAKEPT{len(kept) - 1}X"
        return value

    for kind, pattern, _check, _group in RULES:
        if kind in ("EMAIL", "DIRECCION"):
            text = pattern.sub(protect, text)
    text = TITLED_NAME.sub(protect, text)
    return re.sub(r"(?<![\w+])\+?\d[\d \t.-]{6,}\d(?![\w])", protect, text), kept


def _personal(clause: str) -> str | None:
    """The kind of personal detail a clause holds (None: none)."""
    placeholder = PLACEHOLDER.search(clause)
    if placeholder:
        kind = placeholder.group(0).strip("[]")
        return kind if kind in KIND_LABELS else "MARCADOR"
    if _FAMILY_DETAIL.search(clause) and _YOU.search(clause):
        return "FAMILIA"
    if _HOME_DETAIL.search(clause):
        return "DIRECCION"
    if _SENSITIVE.search(clause) and _YOU.search(clause):
        return "SALUD"
    return None


_GREETED_NAME = re.compile(r"(?im)^([ \t]*(?:hola|buen(?:os|as)?\s+(?:d[ií]as|tardes|noches)|buen\s+d[ií]a|estimad[oa]s?|querid[oa]s?|buenas))[ \t,]*\[NOMBRE\](?:[ \t]+\[NOMBRE\])*[ \t]*")
_PARENTHESIS = re.compile(r"[ \t]*\([^()\n]*\)")


def _drop_personal(text: str, out: Anonymized, *, whole_sentence: bool) -> str:
    """Each line's sentences without the clauses that hold a personal detail (`whole_sentence`: the sentence, when little else is left)."""
    text = _GREETED_NAME.sub(lambda m: (out.add("SALUDO"), m.group(1))[1], text)

    def aside(m: re.Match[str]) -> str:  # "(DPI [DPI], [EMAIL])": the aside goes, the sentence stays
        kind = _personal(m.group(0))
        if kind is None:
            return m.group(0)
        out.add(kind)
        return ""

    text = _PARENTHESIS.sub(aside, text)
    lines = []
    for line in text.split("\n"):
        sentences = []
        for sentence in _SENTENCE.split(line):
            if _personal(sentence) is None:
                sentences.append(sentence)
                continue
            if _FAMILY_DETAIL.search(sentence) and _YOU.search(sentence):  # a relative's detail runs through the sentence (their name, what happened)
                out.add("FAMILIA")
                continue
            clauses = _CLAUSE.split(sentence)
            kept = []
            for clause in clauses:
                kind = _personal(clause)
                if kind is None:
                    kept.append(clause)
                else:
                    out.add(kind)
            rest = " ".join(kept).strip(" ,;")
            if not kept or (whole_sentence and len(rest.split()) < 3):
                continue
            rest = _CONNECTOR.sub("", rest)
            rest = rest[:1].upper() + rest[1:]
            end = sentence.rstrip()[-1:]
            if end in ".!?" and rest[-1:] not in ".!?:":
                rest = rest.rstrip(",;") + end
            sentences.append(rest)
        lines.append(" ".join(s for s in sentences if s.strip()))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _without_names(text: str, words: str, out: Anonymized) -> str:
    """The student's names where they are said to them ("Ana, recordá…", "…, Ana.") go; elsewhere they become [NOMBRE]."""
    def gone(prefix: str = ""):
        def repl(m: re.Match[str]) -> str:
            out.add("NOMBRE")
            return m.group(1) if prefix else ""
        return repl

    text = re.sub(rf"(?im)^([ \t]*)(?:{words})[ \t]*[,:!][ \t]*", gone("lead"), text)
    text = re.sub(rf"(?i)[ \t]*,[ \t]*(?:{words})[ \t]*(?=[,.!?:;]|$)", gone(), text)
    text = re.sub(rf"(?i)(?<=[¡¿])[ \t]*(?:{words})[ \t]*,[ \t]*", gone(), text)
    def after_stop(m: re.Match[str]) -> str:  # "Hola: ANA, recordá…" -> "Hola: recordá…"; "… enero. ANA, acordate" -> "… enero. Acordate"
        out.add("NOMBRE")
        return m.group(1) + m.group(2) + (m.group(3).upper() if m.group(1) != ":" else m.group(3))

    text = re.sub(rf"(?i)([:.!?])([ \t]+)(?:{words})[ \t]*,[ \t]*(\w)", after_stop, text)
    return re.sub(rf"(?i){words}", lambda m: (out.add("NOMBRE"), "[NOMBRE]")[1], text)


def anonymize(text: str, *, names: Iterable[str] = (), keep: str = "", question: bool = False, slot: bool = False) -> Anonymized:
    """`text` fit for other students: neutral greeting, no name of the student (from `names` and the text's own greeting
    and signature), titled third parties as a role, and no clause with an ID, contact, address, health or family detail.

    `keep`: text the office wrote from its documents (the machine draft): e-mail addresses, addresses, phones and titled
    names found there are the office's own and stay. `question`: a student's question, kept only to match later ones:
    IDs and contacts simply go, health, family and home details go with their clause. `slot`: a greeting that named the
    student keeps a {nombre} slot, filled for each new student (`fill_slots`), instead of becoming neutral."""
    out = Anonymized(text="")
    given = [*names, *names_in(text or "")]
    third = [re.sub(rf"^.*?{_TITLE}\.?[ \t]+", "", m.group(0)) for m in TITLED_NAME.finditer(text or "")]
    body, n = re.subn(r"<@[UW][A-Z0-9]+(?:\|[^>]*)?>[ \t]*,?", "", text or "")  # a Slack mention of the student
    out.add("NOMBRE", n)
    body = _greeting(body, out, slot=slot)
    slots = _NAME_SLOT.findall(body)  # the {nombre} slots (the greeting's, or staff's own) survive anonymization as they are
    body = _NAME_SLOT.sub("ORIENTASLOTX", body)
    body, kept = _kept_spans(body, keep, _name_words(name_parts([*given, *third])))
    alone = re.compile(rf"(?m)^[ \t]*(?:{TITLED_NAME.pattern})[ \t.,]*$\n?")  # a signature line: it goes
    out.add("TITULO", len(alone.findall(body)))
    body = alone.sub("", body)
    titled = TITLED_NAME.findall(body)
    if titled:
        out.add("TITULO", len(titled))
        body = TITLED_NAME.sub(_ROLE, body)
    for handle in sorted({g.strip().lstrip("@") for g in given if g and not re.search(r"\s", g.strip()) and len(g.strip()) >= 3}, key=len, reverse=True):
        body, n = re.subn(rf"(?i)(?<![\w.])@?{re.escape(handle)}(?![\w])", "[NOMBRE]", body)  # a Slack handle ("@fer_mazariegos")
        out.add("NOMBRE", n)
    words = _name_words(name_parts(given))
    if words is not None:
        body = _without_names(body, words, out)
    red = redact(body)
    for kind, n in red.counts.items():
        out.add(kind, n)
    body = red.text
    if question:
        body = re.sub(r"\[(?!SALUD\]|DIRECCION\])[A-Z_]{3,}\]", " ", body)
    body = _drop_personal(body, out, whole_sentence=not question)
    body = re.sub(r"[ \t]{2,}", " ", PLACEHOLDER.sub(" ", body))  # never a literal placeholder in a reusable text
    for i, value in enumerate(kept):
        body = body.replace(f"ORIENTAKEPT{i}X", value)
    body = body.replace("ORIENTASLOTX", NAME_SLOT) if slots else body
    body = re.sub(r"[ \t]+([,.;:!?])", r"\1", body)
    body = re.sub(r"(?m)(^[ \t]*|[.!?¡¿][ \t]+)el personal", lambda m: m.group(1) + "El personal", body)  # a titled name that opened a sentence
    out.text = re.sub(r"[ \t]{2,}", " ", body).strip()
    return out


def findings(text: str, *, keep: str = "") -> list[str]:
    """What personal detail (or unfilled placeholder) a text meant for reuse still holds, in Spanish; [] when none."""
    if not (text or "").strip():
        return []
    found = {KIND_LABELS.get(k, k.lower()) for k in anonymize(text, keep=keep).removed}
    if unfilled_slots(fill_slots(text, None)):
        found.add(KIND_LABELS["MARCADOR"])
    return sorted(found)
