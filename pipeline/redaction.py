"""Redaction of personal data with typed placeholders, applied before any LLM call."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email.utils import parseaddr

DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"
PHONE_REGIONS = ("GT", "MX", "UY", "ES", "AR", "SV", "HN", "CR", "CO", "US")
_CEDULA_LABEL = r"(?:c[ée]dula(?:\s+de\s+identidad)?|c\.\s?i\.?|ci|documento|doc\.?)"
_STUDENT_LABEL = (
    r"(?:n(?:[uú]mero|ro\.?|[º°o]\.?)\s*(?:de\s+)?(?:estudiante|alumno|legajo|matr[ií]cula|carn[eé]t?|registro(?:\s+acad[ée]mico)?)|legajo|matr[ií]cula|"
    r"carn[eé]t?(?:\s+(?:de\s+estudiante|universitario|usac))?|registro\s+acad[ée]mico|registro\s+estudiantil|\br\.?\s?a\.?(?=\s*:?\s*\d)|"
    r"student\s+(?:number|id)|n[º°]\s*de\s+estudiante|(?:estudiante|alumno)\s+n(?:[º°o]|ro)\.?)"
)
_SEP = r"(?P<sep>(?:\s*(?:es|era|el|n[º°o]\.?|nro\.?|n[uú]mero|:|#)\s*)*|\s*)"
# Guatemalan municipalities per department (DPI/CUI digits 10-13), RENAP's numbering.
_GT_MUNICIPALITIES = (17, 8, 16, 16, 13, 14, 19, 8, 24, 21, 9, 30, 32, 21, 8, 17, 14, 5, 11, 11, 7, 17)
_NAME = r"[A-ZÁÉÍÓÚÑÜ][a-záéíóúñü]+(?:-[A-ZÁÉÍÓÚÑÜ][a-záéíóúñü]+)?"
_NOT_NAMES = frozenset(
    "Estudiante Alumno Alumna Ingeniero Ingeniera Egresado Egresada Profesor Profesora Docente Auxiliar Becario Becaria De Del La El Los Las Un Una "
    "Nuevo Nueva Primer Primera Segundo Segunda Tercer Guatemalteco Guatemalteca Uruguayo Uruguaya Mexicano Mexicana Extranjero Extranjera "
    "Ingeniería Facultad Universidad Usac Fiusac Yo Muy Bueno Buenas Hola Gracias Quien Quién Parte Miembro Padre Madre Hijo Hija".split()
)
_HEALTH = (
    r"diabetes|depresi[oó]n|ansiedad|c[aá]ncer|leucemia|vih|sida|epilepsia|asma|covid(?:-19)?|dengue|tuberculosis|hepatitis|"
    r"trastorno\s+(?:bipolar|de\s+ansiedad|del?\s+[a-záéíóú]+)|esquizofrenia|autismo|tdah|d[eé]ficit\s+de\s+atenci[oó]n|"
    r"embarazad[oa]|discapacidad(?:\s+(?:visual|auditiva|motora|f[ií]sica|intelectual))?|ceguera|sordera|migra[ñn]as?\s+cr[oó]nicas?|"
    r"crisis\s+de\s+p[aá]nico|ataques?\s+de\s+p[aá]nico|fractura\s+de\s+[a-záéíóú]+|apendicitis|neumon[ií]a|insuficiencia\s+renal|lupus|artritis"
)


@dataclass(slots=True)
class Redaction:
    text: str
    counts: dict[str, int]


def cedula_check_digit(number: str) -> int:
    """Uruguayan cédula check digit for the 6–7 leading digits."""
    digits = number.zfill(7)
    weights = (2, 9, 8, 7, 6, 3, 4)
    total = sum(int(d) * w for d, w in zip(digits, weights))
    return (10 - total % 10) % 10


def valid_cedula(text: str) -> bool:
    """Whether a cédula (with or without dots and dash) has a correct check digit."""
    digits = re.sub(r"\D", "", text)
    return 7 <= len(digits) <= 8 and cedula_check_digit(digits[:-1]) == int(digits[-1])


def valid_dni(text: str) -> bool:
    """Whether a Spanish DNI/NIE has the right control letter."""
    raw = re.sub(r"[\s.-]", "", text).upper()
    if raw[0] in "XYZ":
        raw = str("XYZ".index(raw[0])) + raw[1:]
    return raw[:-1].isdigit() and DNI_LETTERS[int(raw[:-1]) % 23] == raw[-1]


def dpi_check_digit(serial: str) -> int:
    """Check digit of a Guatemalan DPI/CUI: the 8-digit serial weighted 2..9, modulo 11 (10 never occurs on a valid CUI)."""
    return sum(int(d) * w for d, w in zip(serial, range(2, 10))) % 11


def valid_dpi(text: str) -> bool:
    """Whether 13 digits are a Guatemalan DPI/CUI: check digit, department 01-22 and one of its municipalities."""
    digits = re.sub(r"\D", "", text)
    if len(digits) != 13:
        return False
    dept, muni = int(digits[9:11]), int(digits[11:13])
    return dpi_check_digit(digits[:8]) == int(digits[8]) and 1 <= dept <= 22 and 1 <= muni <= _GT_MUNICIPALITIES[dept - 1]


def valid_iban(text: str) -> bool:
    """ISO 13616 mod-97 check of an IBAN written with or without spaces."""
    raw = re.sub(r"[\s-]", "", text).upper()
    if not (15 <= len(raw) <= 34 and raw[:2].isalpha() and raw[2:4].isdigit()):
        return False
    moved = raw[4:] + raw[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


_YEAR_RANGE = re.compile(r"(?:19|20)\d\d\s?[-–/]\s?(?:19|20)\d\d")
Rule = tuple[str, re.Pattern[str], Callable[[re.Match[str]], bool] | None, str | None]

# Order matters: e-mails first (they contain digits and dots), then account and ID numbers, addresses, phones, names, health.
RULES: list[Rule] = [
    ("EMAIL", re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+"), None, None),
    # Obfuscated addresses: "ana.lopez arroba gmail punto com", "ana [at] gmail [dot] com", "ana(at)gmail.com", "ana @ gmail . com".
    ("EMAIL", re.compile(
        r"(?i)(?<![\w.+-])[\w.+-]+(?:\s+(?:punto|dot)\s+[\w+-]+)*\s*(?:\[\s*(?:at|arroba)\s*\]|\(\s*(?:at|arroba)\s*\)|\{\s*(?:at|arroba)\s*\}|\s+(?:at|arroba)\s+|arroba|\s@\s?|@\s)\s*"
        r"[\w-]+(?:\s*(?:\.|\[\s*(?:dot|punto)\s*\]|\(\s*(?:dot|punto)\s*\)|\s+(?:dot|punto)\s+)\s*[\w-]+)*?"
        r"\s*(?:\.|\[\s*(?:dot|punto)\s*\]|\(\s*(?:dot|punto)\s*\)|\s+(?:dot|punto)\s+)\s*(?:com|org|net|edu|gob|gt|mx|uy|es|ar|co|io|info|us|sv|hn|cr)(?![\w])"
    ), None, None),
    ("IBAN", re.compile(r"(?<![\w])[A-Z]{2}\d{2}(?:[ -]?[A-Z0-9]{4}){2,7}(?:[ -]?\d{1,3})?(?![\w])"), lambda m: valid_iban(m.group(0)), None),
    # DPI/CUI: after its label always; bare 13 digits (also 4-5-4) only with a valid check digit and place code.
    ("DPI", re.compile(rf"(?i)(?<![\w])(?P<label>dpi|cui|c\.u\.i\.?|documento\s+personal\s+de\s+identificaci[oó]n|identificaci[oó]n){_SEP}(?P<v>\d{{4}}[\s.-]?\d{{5}}[\s.-]?\d{{4}})(?!\d)"), None, "v"),
    ("DPI", re.compile(r"(?<![\d.,/-])\d{4}[\s.-]?\d{5}[\s.-]?\d{4}(?![\d])"), lambda m: valid_dpi(m.group(0)), None),
    # A cédula after a label is always redacted; a bare one only dotted (4.567.890-5) or with a valid check digit.
    ("CEDULA", re.compile(rf"(?i)(?<![\w])(?P<label>{_CEDULA_LABEL}){_SEP}(?P<v>\d{{1,2}}[.\s]?\d{{3}}[.\s]?\d{{3}}\s?[-‐/]?\s?\d)(?![\d])"), None, "v"),
    ("CEDULA", re.compile(r"(?<![\d.,/])\d{1,2}\.\d{3}\.\d{3}\s?[-‐]\s?\d(?![\d])"), None, None),
    ("CEDULA", re.compile(r"(?i)(?<!c[oó]digo )(?<!curso )(?<![\d.,/-])\d{6,7}\s?[-‐]\s?\d(?![\d-])"), lambda m: valid_cedula(m.group(0)), None),
    ("DNI", re.compile(r"(?<![\w])(?:\d{2}\.?\d{3}\.?\d{3}[- ]?[A-HJ-NP-TV-Z]|[XYZ][- ]?\d{7}[- ]?[A-HJ-NP-TV-Z])(?![\w])"), None, None),
    ("DNI", re.compile(r"(?i)(?<![\w])(?:\d{8}-?[a-z]|[xyz]-?\d{7}-?[a-z])(?![\w])"), lambda m: valid_dni(m.group(0)), None),
    # Student numbers after a label (also "2019-04567"); "soy el 201904567"; a bare USAC carné (year + 5 digits).
    ("NUM_ESTUDIANTE", re.compile(rf"(?i)(?<![\w])(?P<label>{_STUDENT_LABEL}){_SEP}(?P<v>\d{{4}}(?:[\s.-]?\d{{1,6}})?)(?![\d])"), None, "v"),
    ("NUM_ESTUDIANTE", re.compile(r"(?i)(?<![\w])(?P<label>soy\s+(?:el|la)(?:\s+(?:estudiante|alumn[oa]))?)(?P<sep>\s+)(?P<v>(?:19[6-9]\d|20[0-4]\d)[\s.-]?\d{4,5})(?![\d])"), None, "v"),
    ("NUM_ESTUDIANTE", re.compile(r"(?<![\w.,/-])(?:19[6-9]\d|20[0-4]\d)[-]?\d{5}(?![\w])"), None, None),
    # The same nine digits in any spacing ("2019 04567", "2019.045.67", "201 904 567"): year 1960-2049 first, at most three separators.
    ("NUM_ESTUDIANTE", re.compile(r"(?<![\w.,/-])(?:1[ .-]?9[ .-]?[6-9]|2[ .-]?0[ .-]?[0-4])[ .-]?\d(?:[ .-]?\d){5}(?![\w.,/-]?\d)"), lambda m: len(re.findall(r"[ .-]", m.group(0))) <= 3, None),
    ("CEDULA", re.compile(r"(?<![\w.,/-])\d{7,8}(?![\w.,/-]?\d)"), lambda m: valid_cedula(m.group(0)), None),  # before phones: 8 bare digits may look like a landline
    # Postal addresses: Guatemalan "5a. avenida 12-34 zona 1", "3 calle 4-56, zona 10"; "Calle Rivera 1234 apto 5"; "colonia ..."; "km 15.5 carretera ...".
    ("DIRECCION", re.compile(
        r"(?i)(?<![\w])(?:\d{1,2}\s?(?:a|ª|o|º|ra|da|va|ta|na)?\.?\s+)?(?:calle|avenida|av\.|avda\.|calzada|diagonal|bulevar|boulevard|blvd\.?|callej[oó]n|pasaje)\s+"
        r"(?:[\wÁÉÍÓÚáéíóúñÑ.]+\s+){0,4}(?:\d{1,5}(?:\s?[a-z](?![\w]))?(?:\s?-\s?\d{1,4})?|s/n)"
        r"(?:(?:\s*,\s*|\s+)(?:apto\.?|apartamento|casa|lote|manzana|mz\.?|int\.?|interior|local|nivel|piso)\s*[\w-]{1,5})*"
        r"(?:(?:\s*,\s*|\s+)zona\s+\d{1,2})?"
        r"(?:(?:\s*,\s*|\s+)(?:colonia|col\.|residenciales|barrio|aldea|condominio)\s+(?:[A-ZÁÉÍÓÚÑ][\wáéíóúñ]*\s?){1,4})?"
    ), None, None),
    ("DIRECCION", re.compile(r"(?i)(?<![\w])(?:casa|lote|manzana)\s+(?:n[oº°]\.?\s*)?\d{1,4}[a-z]?(?![\d-])(?:,?\s+(?:lote|manzana|sector)\s+\w{1,4})*(?:,?\s+zona\s+\d{1,2})?(?:,?\s+(?:colonia|aldea)\s+(?:[A-ZÁÉÍÓÚÑ][\wáéíóúñ]*\s?){1,4})?"), None, None),
    ("DIRECCION", re.compile(r"(?<![\w])(?:[Cc]olonia|[Rr]esidenciales|[Cc]ondominio|[Bb]arrio|[Aa]ldea)\s+(?:[A-ZÁÉÍÓÚÑ][\wáéíóúñ]*\s?){1,4}(?:,?\s*zona\s+\d{1,2})?"), None, None),
    ("DIRECCION", re.compile(r"(?i)(?<![\w])(?:km|kil[oó]metro)\.?\s*\d{1,3}(?:[.,]\d{1,2})?(?:\s+(?:de\s+la\s+)?(?:carretera|ruta|autopista|calzada)\s+(?:a\s+|al\s+|hacia\s+)?(?:[A-ZÁÉÍÓÚÑ][\wáéíóúñ]*\s?|de\s|del\s|la\s|el\s){1,5})?"), None, None),
    ("TELEFONO", re.compile(
        r"(?<![\w+])(?:\+|00)\d{1,3}[\s.-]?(?:\(?\d{1,4}\)?[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){1,3}(?![\w])"  # international
        r"|(?<![\w.,/-])0?9\d[\s.-]?\d{3}[\s.-]?\d{3}(?![\w])"  # Uruguayan mobile 09X XXX XXX
        r"|(?<![\w.,/-])[24]\d{3}[\s.-]?\d{4}(?![\w])"  # Uruguayan landline 2XXX XXXX / 4XXX XXXX
        r"|(?<![\w.,/-])[6789]\d{2}(?:[\s.-]?\d{2}){3}(?![\w])"  # Spanish 6XX XX XX XX
        r"|(?<![\w.,/-])[6789]\d{2}[\s.-]?\d{3}[\s.-]?\d{3}(?![\w])"  # Spanish 6XX XXX XXX
        r"|(?<![\w.,/-])\(\d{2,4}\)\s?\d{3,4}[\s.-]?\d{4}(?![\w])"  # (011) 4567-8901
    ), lambda m: not _YEAR_RANGE.fullmatch(m.group(0)), None),
    ("SALUD", re.compile(rf"(?i)(?<![\w])(?:{_HEALTH})(?![\w])"), None, None),
    ("SALUD", re.compile(r"(?i)(?<=diagnosticad[oa] con )(?:[\wáéíóúñ-]+\s?){1,4}|(?<=diagn[oó]stico de )(?:[\wáéíóúñ-]+\s?){1,4}"), None, None),
]
# "me llamo Ana Pérez", "mi nombre es Ana", "soy Ana López y ...": the capitalised words after the introduction.
_NAME_INTRO = re.compile(
    rf"(?P<label>(?i:\b(?:me\s+llamo|mi\s+nombre\s+(?:completo\s+)?es|my\s+name\s+is|soy|les\s+saluda|atentamente,?|att\.?,?|atte\.?,?|saludos,?))\s+)"
    rf"(?P<v>{_NAME}(?:[ \t]+(?:(?:de|del|de[ \t]+la|y)[ \t]+)?{_NAME}){{0,4}})"
)


def _apply(text: str, kind: str, pattern: re.Pattern[str], check: Callable[[re.Match[str]], bool] | None, group: str | None) -> tuple[str, int]:
    count = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal count
        if check is not None and not check(m):
            return m.group(0)
        count += 1
        if group:
            return m.group("label") + m.group("sep") + f"[{kind}]"
        return f"[{kind}]"

    return pattern.sub(repl, text), count


def _phones(text: str, regions: Iterable[str]) -> tuple[str, int]:
    """Numbers libphonenumber calls valid for one of `regions` (local formats) or in international form."""
    import phonenumbers

    spans: list[tuple[int, int]] = []
    for region in regions:
        for m in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
            if _YEAR_RANGE.fullmatch(m.raw_string):
                continue
            if not any(s < m.end and m.start < e for s, e in spans):
                spans.append((m.start, m.end))
    pieces, at = [], 0
    for start, end in sorted(spans):
        pieces += [text[at:start], "[TELEFONO]"]
        at = end
    return "".join(pieces) + text[at:], len(spans)


def _names(text: str, known: Iterable[str]) -> tuple[str, int]:
    """Names introduced by the writer, and the sender's own name parts wherever they reappear."""
    count = 0

    def intro(m: re.Match[str]) -> str:
        nonlocal count
        value = m.group("v")
        words = [w for w in re.finditer(r"\S+", value) if w.group(0)[:1].isupper()]
        keep = next((i for i, w in enumerate(words) if w.group(0) in _NOT_NAMES), len(words))
        if keep == 0:
            return m.group(0)
        count += 1
        return m.group("label") + "[NOMBRE]" + value[words[keep - 1].end():]

    text = _NAME_INTRO.sub(intro, text)

    def titled(m: re.Match[str]) -> str:  # "Lic. Marta Sandoval" -> "Lic. [NOMBRE]": a third party named with a title
        nonlocal count
        count += 1
        return m.group("title") + "[NOMBRE]"

    text = _TITLED.sub(titled, text)
    parts = sorted({p for n in known for p in re.split(r"[\s,]+", n or "") if len(p) >= 3 and p[:1].isupper() and p not in _NOT_NAMES}, key=len, reverse=True)
    if parts:
        pattern = re.compile(r"(?<![\w\[])(?:" + "|".join(re.escape(p) for p in parts) + r")(?:\s+(?:" + "|".join(re.escape(p) for p in parts) + r"))*(?![\w\]])")
        text, n = pattern.subn("[NOMBRE]", text)
        count += n
    return text, count


_TITLED = re.compile(
    r"(?P<title>\b(?:Lic|Licda|Lcdo|Lcda|Licenciad[oa]|Ing|Inga|Ingenier[oa]|Dr|Dra|Doctor|Doctora|Prof|Profa|Profesor|Profesora|Mtro|Mtra|Maestr[oa]|MSc|Arq|Sr|Sra|Srta|Señor|Señora|Señorita|Don|Doña)\.?[ \t]+)"
    r"(?!(?:Director|Directora|Decano|Decana|Coordinador|Coordinadora|Secretario|Secretaria|Rector|Rectora|Jefe|Jefa|Encargad[oa]|Estudiante|Docente|"
    r"Civil|Industrial|Electricista|Mec[aá]nic[oa]|Qu[ií]mic[oa]|Electr[oó]nic[oa]|Ambiental|Agr[oó]nom[oa]|Agr[ií]cola|Sistemas|Ciencias)\b)"
    rf"{_NAME}(?:[ \t]+(?:(?:de|del|de[ \t]+la)[ \t]+)?{_NAME}){{0,3}}"
)
PLACEHOLDER = re.compile(r"\[(?:CEDULA|DNI|DPI|NIE|TELEFONO|EMAIL|NUM_ESTUDIANTE|IBAN|DIRECCION|NOMBRE|SALUD|[A-Z_]{3,})\]")


def strip_placeholders(text: str) -> str:
    """Text without the [TYPE] placeholders redaction left (they carry no meaning for matching)."""
    return re.sub(r"[ \t]{2,}", " ", PLACEHOLDER.sub(" ", text))


def redact(text: str, *, names: Iterable[str] = (), phone_regions: Iterable[str] = PHONE_REGIONS) -> Redaction:
    """Replace e-mails, IDs (DPI, cédula, DNI/NIE), student numbers, IBANs, addresses, phones, names and health data with [TYPE] placeholders.

    `names`: the sender's display name(s) (e.g. from the From header), redacted wherever they reappear."""
    counts: dict[str, int] = {}

    def add(kind: str, n: int) -> None:
        if n:
            counts[kind] = counts.get(kind, 0) + n

    for kind, pattern, check, group in RULES:
        text, n = _apply(text, kind, pattern, check, group)
        add(kind, n)
    text, n = _phones(text, phone_regions)
    add("TELEFONO", n)
    text, n = _names(text, names)
    add("NOMBRE", n)
    return Redaction(text=text, counts=counts)


_ADDRESS = re.compile(r"(?<![\w.+-])[\w.+-]+@([\w-]+(?:\.[\w-]+)+)")


def redact_for_sender(text: str, sender: str | None, *, office_hosts: Iterable[str] = ()) -> str:
    """`text` redacted, with the display name of `sender` ("Ana López <ana@…>") among the names.

    For text staff wrote to one student (a reply greets them by name, may repeat their ID) before it is kept for others:
    curated answers and suggested FAQ entries. The office's own addresses (on one of `office_hosts`, the hosts of the
    documents it cites: examenes@ingenieria.example.edu.uy) are kept, the student's own never."""
    name, own = parseaddr(sender or "")
    hosts = {h.lower() for h in office_hosts if h}
    kept: list[str] = []

    def keep(m: re.Match) -> str:
        if m.group(1).lower() not in hosts or m.group(0).lower() == (own or "").strip().lower():
            return m.group(0)
        kept.append(m.group(0))
        return f"ORIENTAKEPT{len(kept) - 1}X"

    protected = _ADDRESS.sub(keep, text) if hosts else text
    out = redact(protected, names=[name.strip()] if name.strip() else []).text
    for i, address in enumerate(kept):
        out = out.replace(f"ORIENTAKEPT{i}X", address)
    return out
