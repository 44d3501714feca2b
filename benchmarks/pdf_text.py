"""PDF text before and after the ingestion repairs (pipeline.loaders.pdf_text), on the shared FIUSAC PDFs and their text conversions.

Run: PYTHONPATH=. .venv/bin/python benchmarks/pdf_text.py   (writes benchmarks/results/pdf_text.json)

A unit (pipeline.units) is *garbled* when it shows any of these defects:
- run_together: a word neither the Spanish list nor the document knows that splits into common words ('deinscripción');
- broken_hyphen: 'inscrip- ción' (a line-end hyphen left inside a word) or a ligature split off its word ('Certi ﬁ cado');
- stray_numbers: bare list or page numbers run into the text ('… _#carné 2 Solvencia …', '1 2 3');
- furniture: a running header or footer line (a line among a page's first or last five, on three or more pages, two of
  them in a row; chapter and article headings excepted) inside the text after its first appearance.
- run_together also covers two words glued at a box edge, 'ExamenGeneral' (CamelCase that is not a file name);
- title_run_on: a box's title run into its body, which opens with the same words ('Solvencia General Solvencia general
  (Matrícula…'): a phrase of two to four words said twice in a row.
Sides: 'before' is the loader before any repair: pypdf text with soft hyphens removed and lower-case line-end hyphens
joined, or the converted text file as it is; 'plain_repaired' (PDFs only) is pypdf's plain text with the text repairs
(pipeline.loaders.pdf_text) but without the layout reading order; 'after' is the loader now (pages in boxes or columns
read in layout order by pipeline.loaders.pdf_layout, then the text repairs). The detector shares its word list with the
repairs, so it checks the repairs do what they claim; it cannot see text read in the wrong order: 'items' (numbered list
units) and the drafts (benchmarks/offline_drafts.py --documents pdf) show that part.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)  # not benchmarks/: its modules could shadow the standard library

from pipeline.headings import boundary  # noqa: E402
from pipeline.loaders import load_document  # noqa: E402
from pipeline.loaders.pdf_text import repair_pages  # noqa: E402
from pipeline.loaders.vocabulary import WORD, Vocabulary  # noqa: E402
from pipeline.text import fold  # noqa: E402
from pipeline.units import extract_units, furniture  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpora" / "fiusac"
if not CORPUS.exists():
    CORPUS = Path("/work/shared/corpora/fiusac")
_PAGE = re.compile(r"^-{2,}\s*p[áa]gina\s+\d+\s*-{2,}\s*$", re.IGNORECASE | re.MULTILINE)
DEBUG = "--debug" in sys.argv
_URLISH = re.compile(r"[/@]|\w\.\w")


def _old_pdf_text(path: Path) -> list[str]:
    """Pages as the PDF loader gave them before the repairs."""
    from pypdf import PdfReader

    out = []
    for page in PdfReader(str(path)).pages:
        text = (page.extract_text() or "").replace("\u00ad", "")
        text = re.sub(r"-\n(?=[a-záéíóúñ])", "", text)
        text = re.sub(r"[ \t]+", " ", text)
        out.append("\n".join(line.strip() for line in text.splitlines()).strip())
    return out


def _running_lines(pages: list[str]) -> set[str]:
    """Lines found among the first or last five lines of three or more pages (judged on the unrepaired text)."""
    on: dict[str, set[int]] = {}
    for i, p in enumerate(pages):
        lines = [ln.strip() for ln in p.splitlines() if ln.strip()]
        for ln in lines[:5] + lines[-5:]:
            if len(ln) >= 8 and not re.fullmatch(r"[\d\s.#]+", ln) and boundary(ln) not in ("chapter", "article"):
                on.setdefault(re.sub(r"\d+", "#", fold(ln)), set()).add(i)
    return {k for k, v in on.items() if len(v) >= 3 and any(i + 1 in v for i in v)}  # running: on pages in a row


def _furniture_spots(text: str, running: set[str]) -> list[int]:
    """Offsets of running-header lines that reach the units: every appearance after the first, unless units skip it anyway."""
    skip = furniture(text)
    spots, seen, pos = [], set(), 0
    for raw in text.splitlines(keepends=True):
        line = raw.strip()
        key = re.sub(r"\d+", "#", fold(line))
        if key in running and line not in skip:
            if key in seen:
                spots.append(pos)
            seen.add(key)
        pos += len(raw)
    return spots


_GLUED = re.compile(r"\b[A-ZÁÉÍÓÚÑ]?[a-záéíóúñ]{3,}[A-ZÁÉÍÓÚÑ][a-záéíóúñ]{3,}\b")  # 'ExamenGeneral': two words glued at a line or box edge


_TITLE_RUN_ON = re.compile(r"\b([A-ZÁÉÍÓÚÑ][a-záéíóúñ]+(?: [a-záéíóúñA-ZÁÉÍÓÚÑ]+){1,3}) \1\b", re.IGNORECASE)  # 'Solvencia General Solvencia general (Matrícula…'


def garbled_signals(text: str, vocab: Vocabulary) -> set[str]:
    """The PDF text defects in one unit or draft (see the module's definition); empty when it reads clean."""
    found = set()
    for token in text.split():
        if _URLISH.search(token):
            continue
        ident = "_" in token or "#" in token  # a file name ('ConstanciaInscripcion_#carné') is CamelCase on purpose
        for w in WORD.findall(token):
            if any(c.isupper() for c in w[1:]):
                if not ident and _GLUED.fullmatch(w) and not vocab.known(w):
                    found.add("run_together")
                continue
            if vocab.split(w):
                found.add("run_together")
    if any(vocab.known(a + b) for a, b in re.findall(r"([a-záéíóúñ]{2,})- ([a-záéíóúñ]{2,})", text)):
        found.add("broken_hyphen")
    if re.search(r"\w ?[\ufb00-\ufb06] ?\w", text):
        found.add("broken_hyphen")
    if _TITLE_RUN_ON.search(text):
        found.add("title_run_on")
    if re.search(r"(?:^|\s)\d{1,2}(?:\s+\d{1,2}){1,}(?:\s|$)", text) and not re.search(r"\d{1,2} (?:de|del|y|o|a) ", text) or re.search(r"_#carn[ée] \d{1,2} [A-ZÁÉÍÓÚ]", text):
        found.add("stray_numbers")
    return found


def defects(units: list, every: list, text: str, vocab: Vocabulary, running: set[str]) -> list[set[str]]:
    spots = _furniture_spots(text, running)
    starts = sorted({u.offset for u in every})
    out = []
    for u in units:
        found = garbled_signals(u.text, vocab)
        nxt = next((s for s in starts if s > u.offset), len(text))
        if any(u.offset <= s < nxt for s in spots):
            found.add("furniture")
        if found and DEBUG:
            print(sorted(found), u.text[:160])
        out.append(found)
    return out


def measure(name: str, before_pages: list[str], after_text: str, before_text: str | None = None, repaired_text: str | None = None) -> dict:
    before_text = before_text if before_text is not None else "\n\n".join(before_pages)
    vocab = Vocabulary(before_text)
    running = _running_lines(before_pages)
    row = {"document": name}
    sides = [("before", before_text)] + ([("plain_repaired", repaired_text)] if repaired_text is not None else []) + [("after", after_text)]
    for side, text in sides:
        every = extract_units(text)
        units = [u for u in every if u.kind != "heading"]
        heads = [u for u in every if u.kind == "heading"]
        found = defects(units, every, text, vocab, running)
        kinds = Counter(k for f in found for k in f)
        row[side] = {
            "units": len(units),
            "garbled_units": sum(1 for f in found if f),
            "garbled_rate": round(sum(1 for f in found if f) / max(1, len(units)), 4),
            "defects": dict(kinds),
            "headings": len(heads),
            "items": sum(1 for u in units if u.kind == "item"),
        }
    return row


def main() -> dict:
    rows, warnings, started = [], {}, time.perf_counter()
    from pypdf import PdfReader

    for path in sorted((CORPUS / "pdf").glob("*.pdf")):
        doc = load_document(path)
        plain = repair_pages([p.extract_text() or "" for p in PdfReader(str(path)).pages], name=path.name)
        repaired = "\n\n".join(p for p in plain.pages if p)
        rows.append(measure(path.name, _old_pdf_text(path), doc.text, repaired_text=repaired) | {"source": "pdf", "repairs": dict(plain.stats)})
        warnings[path.name] = doc.warnings
    for path in sorted((CORPUS / "text").glob("*.md")):
        raw = path.read_text(encoding="utf-8")
        if not _PAGE.search(raw):
            continue  # not a PDF conversion
        doc = load_document(path)
        repairs = repair_pages(_PAGE.split(raw)[1:]).stats
        rows.append(measure(path.name, _PAGE.split(raw), doc.text, before_text=raw) | {"source": "text (converted PDF)", "repairs": dict(repairs)})
        warnings[path.name] = doc.warnings
    total = {}
    for side in ("before", "plain_repaired", "after"):
        # the converted text files have no 'plain_repaired' side: their 'after' is the same repairs
        got = [r.get(side) or r["after"] for r in rows]
        kinds: Counter = Counter()
        for g in got:
            kinds.update(g["defects"])
        units = sum(g["units"] for g in got)
        garbled = sum(g["garbled_units"] for g in got)
        total[side] = {
            "units": units,
            "garbled_units": garbled,
            "garbled_rate": round(garbled / max(1, units), 4),
            "defects": dict(kinds),
            "headings": sum(g["headings"] for g in got),
            "items": sum(g["items"] for g in got),
        }
    result = {
        "command": "PYTHONPATH=. .venv/bin/python benchmarks/pdf_text.py",
        "corpus": "shared/corpora/fiusac pdf/*.pdf and text/*.md with page markers",
        "definition": __doc__.split("A unit")[1].split("The 'before'")[0].strip(),
        "total": total,
        "documents": rows,
        "warnings": warnings,
        "seconds": round(time.perf_counter() - started, 1),
    }
    out = REPO / "benchmarks" / "results" / "pdf_text.json"
    out.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    r = main()
    print(json.dumps(r["total"], ensure_ascii=False, indent=1))
    for row in r["documents"]:
        mid = row.get("plain_repaired")
        via = f" -> {mid['garbled_units']}/{mid['units']}" if mid else ""
        print(
            f"{row['document'][:45]:45} garbled units {row['before']['garbled_units']}/{row['before']['units']}{via} -> {row['after']['garbled_units']}/{row['after']['units']}"
            f"  items {row['before']['items']}{' -> ' + str(mid['items']) if mid else ''} -> {row['after']['items']}"
        )
