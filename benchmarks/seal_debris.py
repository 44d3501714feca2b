"""Stamp and seal debris left in the loaded FIUSAC documents (pdf/ and text/), counted line by line.

Run: PYTHONPATH=. nice -n 10 .venv/bin/python benchmarks/seal_debris.py ../shared/corpora/fiusac

A debris string is a line of one to three upper-case strings of 2-8 letters (not a chapter, article, Markdown or FAQ
heading) none of which the document uses elsewhere as a word (in a line with lower-case text, or written in lower case),
or such a string glued after a sentence's end ('inmediata superior. INI'). The count is looser than the loader's rule
(pipeline.loaders.debris: it also keeps long common Spanish words and a line going on with the sentence above), so real
words it counts ('ACUERDA', 'CONTACTO') stay in both columns. Prints per document and the total.
"""
import sys, re, json
sys.path[0] = str(__import__("pathlib").Path(__file__).resolve().parents[1])
from collections import Counter
from pathlib import Path
from pipeline.loaders import load_document
from pipeline.loaders.vocabulary import WORD
from pipeline.text import fold
from pipeline.headings import boundary
CAPS = re.compile(r"^[A-ZÁÉÍÓÚÜÑ]{2,8}$")
def count(text):
    lines = text.split("\n")
    lower = Counter(fold(w) for ln in lines for w in WORD.findall(ln) if not w.isupper())
    intext = Counter(w for ln in lines if any(x.islower() for x in WORD.findall(ln)) for w in WORD.findall(ln) if w.isupper())
    hits = []
    for ln in lines:
        s = ln.strip(); t = s.split()
        if 0 < len(t) <= 3 and boundary(s) not in ('chapter','article','md','faq') and all(CAPS.match(x) for x in t) and not any(lower[fold(x)] or intext[x] for x in t):
            hits.append(s)
        m = re.search(r"(?<=[.;:])\s+([A-ZÁÉÍÓÚÜÑ]{2,8})$", s)
        if m and not lower[fold(m.group(1))] and intext[m.group(1)] <= 1:
            hits.append("…" + m.group(0))
    return hits
root = Path(sys.argv[1]); total = 0; out = {}
for f in sorted(list((root/"pdf").glob("*.pdf")) + list((root/"text").glob("*.md"))):
    d = load_document(f); h = count(d.text); total += len(h); out[f.name] = h
    print(f"{len(h):4d}  {f.parent.name}/{f.name}  {h[:12]}")
print("total", total)
