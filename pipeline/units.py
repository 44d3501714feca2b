"""Answer units: the typed pieces of a document (sentence, list item, FAQ pair, record, table row, heading), kept clean at ingestion."""

from __future__ import annotations

import base64
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from pipeline.flat_tables import rebuild_tables
from pipeline.headings import boundary, heading_case
from pipeline.loaders.debris import without_stamps

UNITS_VERSION = 8  # bump when extraction, rendering or the loaders' text changes: ingestion re-chunks and re-embeds every document (3: PDF pages in boxes read in layout order; 4: checklist boxes as heading and item, icon glyphs dropped, a lead-in keeps its value; 5: tables a PDF flattened column by column read back as rows; 6: '1.)' and markers on a line of their own start list items, a row's date said without its column word; 7: a watermark's letters inside lines and the lines it made extraction read twice are left out of units; 8: only HTML elements are stripped as markup, a placeholder such as '<número de dpi>' is kept)
KINDS = ("sentence", "item", "faq", "record", "row", "heading")


@dataclass(slots=True)
class Unit:
    """One answer unit; `text` is clean (no markup), `context` the heading/question/lead-in it belongs to."""

    kind: str
    text: str
    context: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    offset: int = 0
    vector: str | None = None  # float16, base64: computed once at ingestion

    def vec(self) -> np.ndarray | None:
        if not self.vector:
            return None
        return np.frombuffer(base64.b64decode(self.vector), dtype=np.float16).astype(np.float32)

    def set_vec(self, v: np.ndarray) -> None:
        self.vector = base64.b64encode(np.asarray(v, dtype=np.float16).tobytes()).decode("ascii")

    @property
    def embed_text(self) -> str:
        """What gets embedded at ingestion: the clean unit with its context (not the rendering, which may change)."""
        return f"{self.context}: {self.text}" if self.context else self.text

    def as_payload(self) -> dict:
        out: dict = {"k": self.kind, "t": self.text}
        if self.context:
            out["c"] = self.context
        if self.fields:
            out["f"] = self.fields
        if self.vector:
            out["v"] = self.vector
        return out

    @classmethod
    def from_payload(cls, d: dict) -> "Unit":
        return cls(kind=d["k"], text=d["t"], context=d.get("c", ""), fields=d.get("f") or {}, vector=d.get("v"))


# -- cleaning -------------------------------------------------------------
_MD_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")
_EMPH = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPH1 = re.compile(r"(?<![\w*])([*_])(?=\S)([^*_\n]+?)(?<=\S)\1(?![\w*])")
# HTML elements a converted document may carry; a placeholder in angle brackets ("la cuenta es <número de dpi>@…",
# "<carné>") is text the student needs, not markup
_HTML_ELEMENTS = (
    "a abbr address article aside audio b big blockquote body br button canvas caption center cite code col colgroup dd "
    "del details dfn div dl dt em figcaption figure font footer form h1 h2 h3 h4 h5 h6 head header hr html i iframe img "
    "input ins kbd label li link main mark meta nav noscript ol option p picture pre q s samp script section select small "
    "source span strike strong style sub summary sup svg table tbody td textarea tfoot th thead time title tr tt u ul var video"
).split()
HTML_TAG = re.compile(r"</?(?:%s)(?:\s[^<>]*)?/?>" % "|".join(sorted(_HTML_ELEMENTS, key=len, reverse=True)), re.IGNORECASE)
_SPACE_BEFORE = re.compile(r"\s+([,.;:!?)\]»])")
_SPACE_AFTER = re.compile(r"([(\[«¿¡])\s+")


def clean(text: str) -> str:
    """Plain text: Markdown/HTML markup and emphasis removed without leaving spaces before punctuation."""
    text = _MD_LINK.sub(lambda m: m.group(2) if m.group(1) == m.group(2) else f"{m.group(1)} ({m.group(2)})", text)
    text = HTML_TAG.sub("", text)
    for _ in range(2):
        text = _EMPH.sub(r"\2", text)
    text = _EMPH1.sub(r"\2", text).replace("`", "")
    text = re.sub(r"\s+", " ", text).strip()
    text = _SPACE_BEFORE.sub(r"\1", text)
    text = _SPACE_AFTER.sub(r"\1", text)
    return text.strip(" \t#|")


# -- extraction -----------------------------------------------------------
_PAGE = re.compile(r"^-{2,}\s*p[áa]gina\s+\d+\s*-{2,}\s*$", re.IGNORECASE)
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})$")
_MD_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$")
_TABLE = re.compile(r"^\|.*\|$")
_TABLE_SEP = re.compile(r"^\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?$")
_FIELD = re.compile(r"^([A-Za-zÁÉÍÓÚáéíóúñÑ_][A-Za-zÁÉÍÓÚáéíóúñÑ_ ]{1,24}):\s*(.*)$")
_ITEM = re.compile(r"^(?:[-•*▪●]|\d{1,3}\.?\)|\d{1,3}\.|[a-zA-Z]\.\)|[a-zA-Z]\.\d{1,2}\.?|[a-zA-Z][.)]|[IVXivx]{1,4}[.)])\s+(.+)$")  # 'a.)', '1.)' and 'c.1' as PDFs of regulations number them
_BARE_MARKER = re.compile(r"^(?:\d{1,3}\.?\)|[a-zA-Z]\.?\))$")  # a marker a PDF laid out on a line of its own, its text on the next line ('c)' / 'Tener aprobado…')
_URL_ONLY = re.compile(r"^(?:https?://|www\.)?[\w-]+(?:\.[\w-]+)+(?:/\S*)?$", re.IGNORECASE)  # a line that is only a web address ('siif.usac.edu.gt/pagousac')
_NAMED = re.compile(r"^[^\s:]*[._#/][^\s:]*$")  # one token that names an address or a file ('siif.usac.edu.gt/pagousac', 'Solvencia_#carné')
_FAQ = re.compile(r"^(?:\d{1,3}\s*[.)-]\s*)?(¿.+)$")
_SENT = re.compile(r"(?<=[.!?])[\"»”)]?\s+(?=[¿¡\"«(]?[A-ZÁÉÍÓÚÑ0-9])")
_ABBREV = re.compile(r"(?:\b(?:art|arts|av|avda|no|núm|num|lic|ing|dr|dra|sr|sra|inc|lit|ej|etc|pág|tel|ext|aprox|máx|mín|prof|ref)|\b[A-Za-z]|^\S+\s+\d+[º°o]?)\.$", re.IGNORECASE)  # 'Art.', 'ARTÍCULO 5.' do not end a sentence


def furniture(text: str) -> set[str]:
    """Lines a paginated document repeats on three or more pages (running headers and footers)."""
    pages = re.split(r"^-{2,}\s*p[áa]gina\s+\d+\s*-{2,}\s*$", text, flags=re.IGNORECASE | re.MULTILINE)
    if len(pages) >= 4:
        seen = Counter(line for p in pages for line in {x.strip() for x in p.splitlines()} if line)
        return {line for line, n in seen.items() if n >= 3 and not _FIELD.match(line) and not _OPEN_END.search(line)}  # a line that wraps mid-phrase ('… boleta de pago de') is body text
    # no page markers (a PDF converted to text): a short standalone line said three times or more is a running header
    seen = Counter(x.strip() for x in text.splitlines())
    return {
        line
        for line, n in seen.items()
        if n >= 3 and len(line) >= 4 and len(line.split()) <= 12 and not line.endswith((".", ",", ";")) and not _FIELD.match(line) and not _ITEM.match(line) and not _RULE.match(line) and not _TABLE.match(line)
    }


def split_sentences(text: str) -> list[str]:
    """Sentences of a paragraph (abbreviations such as 'Art.' do not end one)."""
    out: list[str] = []
    start = 0
    for m in _SENT.finditer(text):
        piece = text[start : m.start()].strip()
        if _ABBREV.search(piece):
            continue
        if piece:
            out.append(piece)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


_OPEN_END = re.compile(r"\s(?:a|al|con|de|del|e|el|en|la|las|lo|los|o|para|por|que|se|su|sus|u|un|una|y)$", re.IGNORECASE)  # a line that wraps mid-phrase


def _title_line(line: str) -> bool:
    return len(line.split()) <= 6 and line[:1].isupper() and not re.search(r"[.,;:!?)]$", line)


def _is_heading(line: str) -> str | None:
    m = _MD_HEADING.match(line)
    if m:
        return clean(m.group(1))
    kind = boundary(line)
    if kind in ("caps", "chapter") and len(line) <= 90:
        return clean(line)
    return None


def _subtitle(line: str) -> bool:
    """A short numbered or capitalised title line ('13.1 Práctica Laboral')."""
    return len(line.split()) <= 6 and bool(re.match(r"^(?:\d+(?:\.\d+)*\.?\s+)?[A-ZÁÉÍÓÚÑ]", line)) and not re.search(r"[.,;:!?)]$", line)


def _article_title(line: str) -> str | None:
    """An article's title on a line of its own ('ARTÍCULO 10. DURACIÓN DE LAS PRÁCTICAS'): the heading of what follows."""
    if boundary(line) != "article" or len(line) > 90 or re.search(r"[.,;:]$", line):
        return None
    letters = [ch for ch in line if ch.isalpha()]
    return clean(line) if letters and sum(ch.isupper() for ch in letters) >= 0.8 * len(letters) else None


def _cells(line: str) -> list[str]:
    return [clean(c) for c in line.strip().strip("|").split("|")]


_ADDRESS_THEN = re.compile(r"(?<=:\s)((?:https?://|www\.)?[\w-]+(?:\.[\w-]+)+(?:/[^\s:]*)?)\s+(?=[A-ZÁÉÍÓÚÑ¿¡])")


def _end_addresses(text: str) -> str:
    """A web address that completes a lead-in ends its sentence ('… de SIIF: siif.usac.edu.gt/pagousac. Únicamente …')."""
    return _ADDRESS_THEN.sub(r"\1. ", text)


class _Builder:
    """Walks a document's lines once and emits units with their character offsets."""

    def __init__(self, skip: set[str]) -> None:
        self.skip = skip
        self.units: list[Unit] = []
        self.heading = ""
        self.lead = ""  # a sentence ending in ':' introduces the list that follows
        self.para: list[str] = []
        self.para_at = 0
        self.para_lines: list[tuple[str, int]] = []  # the paragraph's lines as read, with their offsets
        self.item: list[str] = []
        self.item_at = 0
        self.names = False  # the list's items so far are short names without a closing stop ('1.) Prácticas Iniciales'): a capital line after its last item starts a paragraph, it does not wrap the item
        self.markers = 0  # bare list markers read whose item text has not come yet
        self.record: list[tuple[str, str, int]] = []
        self.header: list[str] = []
        self.faq: tuple[str, int] | None = None
        self.faq_body: list[str] = []
        self.faq_open = False
        self.units_in_para = False

    def emit(self, kind: str, text: str, at: int, context: str = "", fields: dict | None = None, *, named: bool = False) -> None:
        text = clean(text)
        if kind in ("sentence", "item") and (len(text) < 12 or len(text.split()) < 3) and not re.search(r"\d", text) and not (named and len(text) >= 4):
            return
        self.units.append(Unit(kind=kind, text=text, context=clean(context), fields=fields or {}, offset=at))

    def flush_para(self) -> None:
        if len(self.para) > 2 and _title_line(self.para[0]) and _OPEN_END.search(self.para[0]) and _title_line(f"{self.para[0]} {self.para[1]}") and self.para[2][:1].isupper():
            self.para[:2] = [f"{self.para[0]} {self.para[1]}"]  # a title wrapped after 'de' ('Constancia de' / 'Inscripción'): one title
        if len(self.para) > 1 and _title_line(self.para[0]) and not _OPEN_END.search(self.para[0]) and self.para[1][:1].isupper():
            self.heading = clean(self.para.pop(0))  # a short unpunctuated line opening a paragraph is its title
            self.units.append(Unit(kind="heading", text=self.heading, offset=self.para_at))
        if self.para:
            text = _end_addresses(clean(" ".join(self.para)))
            offset, line_no = self.para_at, 0
            for s in split_sentences(text):
                offset, line_no = self._sentence_at(s, offset, line_no)
                if s[:1].islower() and not self.units_in_para:  # a chunk or page cut mid-clause: no unit
                    self.units_in_para = True
                    continue
                self.emit("sentence", s, offset, self.faq[0] if self.faq else self.heading)
                self.units_in_para = True
            self.lead = text if text.endswith(":") else ""
            if self.faq:
                self.faq_body.append(text)
            self.para, self.para_lines = [], []

    def _sentence_at(self, sentence: str, offset: int, line_no: int) -> tuple[int, int]:
        """The offset of the line a paragraph's sentence starts on (searched from line `line_no` on), so that a long
        paragraph's sentences belong to the chunks they are in; (offset, line_no) unchanged when it is not found."""
        words = sentence.split()
        for probe in (" ".join(words[:2]), words[0] if words else ""):
            if len(probe) < 3:
                continue
            for k in range(line_no, len(self.para_lines)):
                if probe in self.para_lines[k][0]:
                    return self.para_lines[k][1], k
        return offset, line_no

    def flush_item(self) -> None:
        if self.item:
            text = _end_addresses(" ".join(self.item))
            short_lead = self.lead and len(self.lead.split()) <= 8
            ctx = self.lead.rstrip(":") if short_lead else (self.faq[0] if self.faq else self.heading)
            self.emit("item", text, self.item_at, ctx, named=bool(self.lead))  # under a lead-in a short item names one of what it announces ('se dividen en:' / 'Prácticas Iniciales')
            if self.faq:
                item = clean(text)
                self.faq_body.append(f"\n- {item}" + ("" if re.search(r"[.!?:;]$", item) else "."))  # an item of the answer's list: a line of its own
            self.item = []

    def flush_record(self) -> None:
        if len(self.record) >= 3:
            fields = {k.strip().lower(): clean(v) for k, v, _ in self.record}
            text = "; ".join(f"{k}: {v}" for k, v in fields.items())
            self.emit("record", text, self.record[0][2], self.heading, fields)
        elif self.record:  # one or two 'clave: valor' lines are prose
            if not self.para:
                self.para_at, self.units_in_para, self.para_lines = self.record[0][2], False, []
            self.para.extend(f"{k}: {v}" for k, v, _ in self.record)
            self.para_lines.extend((f"{k}: {v}", at) for k, v, at in self.record)
        self.record = []

    def flush_faq(self) -> None:
        if self.faq and self.faq_body:
            q, at = self.faq
            body = "".join(x if x.startswith("\n") else f" {x}" for x in self.faq_body).strip()
            if body.count("\n- ") < 2:
                body = clean(body.replace("\n- ", " "))  # one item is not a list
            self.units.append(Unit(kind="faq", text=body, context=q, offset=at))
        self.faq, self.faq_body = None, []

    def flush(self, *, faq: bool = False) -> None:
        self.flush_record()
        self.flush_para()
        self.flush_item()
        if faq:
            self.flush_faq()

    def line(self, raw: str, at: int) -> None:
        line = raw.strip()
        if not line or _PAGE.match(line) or _RULE.match(line):
            self.flush()
            if not _PAGE.match(line):
                self.header = []
            return
        open_lines = self.item or self.para
        if open_lines and _NAMED.match(line) and (open_lines[-1].endswith(":") or _NAMED.match(open_lines[-1].rstrip(","))):
            # what a lead-in points to ('… desde su usuario de SIIF:' / 'siif.usac.edu.gt/pagousac', '… en formato.PDF:' /
            # 'Solvencia_#carné') ends its sentence, even where pages repeat it; several names are listed with commas
            if not open_lines[-1].endswith(":"):
                open_lines[-1] += ","
            open_lines.append(line)
            return
        if line in self.skip:
            return
        if _TABLE.match(line):
            self.flush()
            if _TABLE_SEP.match(line):
                return
            cells = _cells(line)
            if not self.header:
                self.header = cells
                return
            self.emit_row(cells, at)
            return
        if self.header and not _TABLE.match(line):
            self.header = []
        heading = _is_heading(line) or _article_title(line)
        wraps = bool(open_lines) and open_lines[-1].endswith(",") and line.endswith(".")  # 'agencias virtuales de Banrural y Bantrab,' / 'NO G&T.': the sentence goes on
        if heading and not _FIELD.match(line) and not wraps:
            self.flush(faq=True)
            self.heading, self.lead, self.names = heading, "", False
            self.units.append(Unit(kind="heading", text=heading, offset=at))
            return
        m = _FAQ.match(line)
        if m:
            self.flush(faq=True)
            self.faq = (clean(m.group(1)), at)
            self.faq_open = not line.endswith("?")
            return
        if self.faq_open and self.faq:
            self.faq = (clean(f"{self.faq[0]} {line}"), self.faq[1])
            self.faq_open = not line.rstrip().endswith("?")
            return
        f = _FIELD.match(line)
        wrapped = self.para and not re.search(r"[.;:!?]$", self.para[-1])
        if f and not _ITEM.match(line) and not line.startswith("http") and not wrapped:
            self.flush_para()
            self.flush_item()
            self.record.append((f.group(1), f.group(2), at))
            return
        if self.record:
            self.flush_record()
        it = _ITEM.match(line)
        if it:
            if len(self.para) == 1 and _subtitle(self.para[0]) and self.heading and not self.lead:
                sub = clean(self.para.pop())  # '13.1 Práctica Laboral' under 'ARTÍCULO 13. REQUISITOS ...' titles the list that follows
                self.heading = f"{heading_case(self.heading.split(' — ')[0])} — {sub}"
                self.units.append(Unit(kind="heading", text=sub, offset=self.para_at))
            self.flush_para()
            self.names = len(self.item) == 1 and not re.search(r"[.;:!?,]$", self.item[0]) and len(self.item[0].split()) <= 6
            self.flush_item()
            self.item, self.item_at = [it.group(1)], at
            return
        if _BARE_MARKER.match(line):
            self.flush_para()
            self.markers += 1
            return
        if self.markers and (not self.item or (line[:1].isupper() and re.search(r"[.;:!?]$", self.item[-1]))):
            self.flush_item()  # the text of a marker laid out on its own line ('a)' / 'b)' / 'Estar inscrito.' / 'Asignarse.')
            self.markers -= 1
            self.item, self.item_at = [line], at
            return
        if self.item and (line[:1].islower() or not (re.search(r"[.;:!?]$", self.item[-1]) or self.names)):
            self.item.append(line)  # a list item wrapped over several lines
            return
        self.markers, self.names = 0, False
        self.flush_item()
        if not self.para:
            self.para_at, self.units_in_para, self.para_lines = at, False, []
        self.para.append(line)
        self.para_lines.append((line, at))

    def emit_row(self, cells: list[str], at: int) -> None:
        if not any(cells):
            return
        names = self.header if len(self.header) == len(cells) else [f"col{i}" for i in range(len(cells))]
        fields = {clean(n) or f"col{i}": c for i, (n, c) in enumerate(zip(names, cells, strict=True))}
        text = "; ".join(f"{k}: {v}" for k, v in fields.items() if v)
        self.emit("row", text, at, self.heading, fields)


def extract_units(text: str, *, skip: set[str] | None = None) -> list[Unit]:
    """Typed, clean units of `text`, each with the offset where it starts."""
    b = _Builder(skip if skip is not None else furniture(text))
    lines, pos = [], 0
    for raw in text.splitlines(keepends=True):
        lines.append((raw, pos))
        pos += len(raw)
    for line, at in rebuild_tables(without_stamps(lines)):
        b.line(line, at)
    b.flush(faq=True)
    return _with_values(b.units)


_VALUE_LEAD = re.compile(r"\b(?:es|son|ser[aá]n?|fue|queda|quedan|asciende|corresponde|equivale)(?:\s+(?:de|a))?\s*:$", re.IGNORECASE)  # 'El costo es:', '… es de:'
MAX_VALUE_WORDS = 15


def _with_values(units: list[Unit]) -> list[Unit]:
    """A lead-in sentence that announces one value ('El costo del examen es de:') keeps that value when it was set on the
    next line or paragraph ('Q.250.00 por estudiante.'): one unit says both. A list of several items stays a list."""
    out: list[Unit] = []
    i = 0
    while i < len(units):
        u = units[i]
        nxt = units[i + 1] if i + 1 < len(units) else None
        after = units[i + 2] if i + 2 < len(units) else None
        if (
            nxt is not None
            and u.kind in ("sentence", "heading")  # a short lead-in line is read as the title of what follows
            and _VALUE_LEAD.search(u.text)
            and nxt.kind in ("sentence", "item")
            and len(nxt.text.split()) <= MAX_VALUE_WORDS
            and not (nxt.kind == "item" and after is not None and after.kind == "item" and after.context == nxt.context)  # the first item of a list is not the value
        ):
            context = u.context if u.kind == "sentence" else nxt.context.rsplit(" — ", 1)[0] if " — " in nxt.context else ""
            out.append(Unit(kind="sentence", text=f"{u.text} {nxt.text}", context=context, offset=u.offset))
            i += 2
            continue
        out.append(u)
        i += 1
    return out


# -- rendering ------------------------------------------------------------
NAME_FIELDS = ("nombre", "name", "curso", "programa", "asignatura", "materia", "titulo", "título", "actividad", "componente", "oficina", "trámite", "tramite")
CODE_FIELDS = ("codigo", "código", "clave", "code", "id")
_EMPTY = {"", "-", "—", "no especificada", "no especificado", "n/a", "s/d"}


def record_name(u: Unit) -> str:
    """The field that names what a record or row is about (its first column for a table row)."""
    for k in NAME_FIELDS:
        if u.fields.get(k):
            return u.fields[k]
    return next(iter(u.fields.values()), "") if u.kind == "row" else ""


def record_code(u: Unit) -> str:
    return next((u.fields[k] for k in CODE_FIELDS if u.fields.get(k)), "")


_DATE_LABELS = frozenset({"fecha", "fechas", "día", "dia", "días", "dias", "período", "periodo"})
_DATE_VALUE = re.compile(r"\b\d{1,2} (?:de )?(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|setiembre|septiembre|octubre|noviembre|diciembre)\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b", re.IGNORECASE)
_LABELS = {"prerequisitos": "prerrequisitos", "prerequisito": "prerrequisito", "area": "área", "codigo": "código"}


def _and(value: str) -> str:
    """'0103, 0769' -> '0103 y 0769'."""
    parts = [p.strip() for p in value.split(",") if p.strip()]
    return ", ".join(parts[:-1]) + " y " + parts[-1] if len(parts) > 1 and all(len(p) < 60 for p in parts) else value


def row_label(u: Unit) -> str:
    """The column word a table row says before its one value ('máximo de créditos por semestre' in 'Régimen general:
    máximo de créditos por semestre 60 créditos'); '' when the row has other values or its value goes without one."""
    if u.kind != "row":
        return ""
    name, code = record_name(u), record_code(u)
    valued = [(k, v) for k, v in u.fields.items() if v and v.lower() not in _EMPTY and v not in (name, code)]
    if len(valued) != 1:
        return ""
    k, v = valued[0]
    group, phrase = _field_phrase(k, v, row=True)
    bare = v.strip().rstrip(".")
    return "" if group == 0 or phrase in (bare, bare[:1].lower() + bare[1:]) else _LABELS.get(k.lower(), k.lower().replace("_", " "))


def _field_phrase(key: str, value: str, *, row: bool = False) -> tuple[int, str]:
    """(group, phrase): group 0 phrases are joined with commas right after the name, the rest with semicolons."""
    k = key.lower()
    v = value.strip().rstrip(".")
    if k.startswith(("credit", "crédit")) and re.fullmatch(r"\d+", v):
        return 0, f"{v} crédito" if v == "1" else f"{v} créditos"
    if k == "obligatorio" and v.lower() in ("sí", "si", "no"):
        return 0, "obligatorio" if v.lower() != "no" else "no obligatorio"
    if re.fullmatch(r"col\d+", k):
        return 1, v  # a column without a header: its value alone
    label = _LABELS.get(k, k.replace("_", " "))
    if k.startswith(("prerequisit", "prerrequisit")):
        v = _and(v)
    if row and k in _DATE_LABELS and _DATE_VALUE.search(v):
        return 1, v[:1].lower() + v[1:] if v[1:2].islower() else v  # a date says what it is: 'Fin de clases: viernes 20 de noviembre', not '… fecha viernes …'
    if row:
        return 1, f"{label.lower()} {v[:1].lower() + v[1:] if v[1:2].islower() else v}"
    return 1, f"{label}: {v}"


def render_fields(u: Unit, names: dict[str, str] | None = None, *, only: tuple[str, ...] | None = None, head: bool = True, label: bool = True) -> str:
    """A record or table row as one sentence built from its own fields ('Nombre (código): campo valor; ...'); without
    `label`, a row's one value is said without its column word (the list it is in says it once: row_label)."""
    if not label and (word := row_label(u)):
        name = record_name(u)
        v = next(v for k, v in u.fields.items() if v and v.lower() not in _EMPTY and v not in (name, record_code(u))).strip().rstrip(".")
        return f"{name}: {v}." if name else f"{v[:1].upper()}{v[1:]}."
    name, code = record_name(u), record_code(u)
    parts: list[tuple[int, str]] = []
    for k, v in u.fields.items():
        if not v or v.lower() in _EMPTY or v in (name, code) or k.startswith("col") and not v:
            continue
        if only and not any(k.startswith(o) for o in only):
            continue
        if names and k.startswith(("prerequisit", "prerrequisit", "requisit")):
            v = _with_names(v, names)
        parts.append(_field_phrase(k, v, row=u.kind == "row"))
    head = (f"{name} ({code})" if name and code else name or code) if head else ""
    if not parts:
        return f"{head}." if head else ""
    first = ", ".join(p for g, p in parts if g == 0)
    joined = ("; " if u.kind == "record" else ", ").join([first] * bool(first) + [p for g, p in parts if g == 1])
    return f"{head}: {joined}." if head else f"{joined[:1].upper()}{joined[1:]}."


def _with_names(value: str, names: dict[str, str]) -> str:
    codes = re.findall(r"\b\d{3,4}\b", value)
    if not codes or any(c not in names for c in codes):
        return value
    return ", ".join(f"{names[c]} ({c})" for c in codes)


def render(u: Unit, names: dict[str, str] | None = None) -> str:
    """The unit as a clean Spanish sentence a reviewer can send."""
    if u.kind in ("record", "row"):
        return render_fields(u, names)
    text = u.text
    if u.kind == "item":
        text = text.rstrip(";,. ")
        ctx = heading_case(u.context.rstrip(":").strip())
        if ctx and not _restates(text, ctx):
            sep = ", " if re.match(r"^[^:]{2,40}:\s", text) else ": "
            return f"{ctx}{sep}{_lower_first(text)}" + ("" if text.endswith(":") else ".")
        return f"{text[:1].upper()}{text[1:]}" + ("" if text.endswith(":") else ".")
    if u.kind == "heading":
        return text
    if text.endswith(":"):
        text = text[:-1]  # a lead-in said on its own
    return text if re.search(r"[.!?:)»\"]$", text) else f"{text}."


def _lower_first(text: str) -> str:
    """Lower-case the first letter unless the first word is an acronym."""
    return text[:1].lower() + text[1:] if text[:1].isupper() and text[1:2].islower() else text


def _restates(text: str, ctx: str) -> bool:
    from pipeline.generation.lexical import doc_keys

    have, ck = doc_keys(text), doc_keys(ctx)
    return bool(ck) and len(ck & have) / len(ck) >= 0.6


def assign(units: list[Unit], spans: list[tuple[int, int]]) -> list[list[Unit]]:
    """Units per chunk span: a unit belongs to the chunk(s) where it starts."""
    return [[u for u in units if s <= u.offset < e] for s, e in spans]
