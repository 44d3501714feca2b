"""The step verifier: checks each derivation step against its premises and stores flags on the steps."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pipeline.derivation import Step
from pipeline.generation.lexical import keys
from pipeline.text import fold, tokens

_URL = re.compile(r"https?://[^\s)>\]\"']+")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_NAME = re.compile(r"(?<![\w.])[A-ZÁÉÍÓÚÑ][a-záéíóúñü]+(?:\s+(?:de\s+|del\s+|la\s+)?[A-ZÁÉÍÓÚÑ][a-záéíóúñü]+)*")
_SENTENCE_ENDS = frozenset('.!?¿¡:;\n-•*|"')
MONTHS = frozenset("enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre".split())
WEEKDAYS = frozenset("lunes martes miercoles jueves viernes sabado domingo".split())
# Capitalised words an answer may use without a premise saying them.
NUMBER_WORDS = {
    w: str(i)
    for i, ws in enumerate(
        [
            "cero", "uno un una primero primera primer", "dos segundo segunda", "tres tercero tercera tercer",
            "cuatro cuarto cuarta", "cinco quinto quinta", "seis sexto sexta", "siete septimo septima setimo setima",
            "ocho octavo octava", "nueve noveno novena", "diez decimo decima", "once", "doce", "trece", "catorce", "quince",
        ]
    )
    for w in ws.split()
    if w not in ("un", "una", "uno", "primer", "primero", "primera", "segundo", "segunda")  # too often not a quantity
} | {"veinte": "20", "treinta": "30", "cuarenta": "40", "cincuenta": "50", "sesenta": "60", "cien": "100", "mil": "1000"}
COMMON_CAPITALISED = frozenset("hola saludos gracias segun si no sí para en el la los las un una tu tus te podes tenes".split())


@dataclass(frozen=True, slots=True)
class VerifierConfig:
    """Thresholds, calibrated on tests/pipeline/data/verifier_steps.jsonl (see benchmarks/verifier.py)."""

    max_novelty_extract: float = 0.20  # share of the conclusion's content words absent from the premises
    max_novelty_refine: float = 0.35
    max_novelty_other: float = 0.50
    min_concat_part: float = 0.5  # share of each premise's content words a Concat must keep
    min_similarity: float = 0.80  # embedding similarity conclusion ~ premises (Extract, Refine)


def _numbers(text: str) -> set[str]:
    digits = {re.sub(r"\D", "", n).lstrip("0") or "0" for n in _NUMBER.findall(text)}
    return digits | {NUMBER_WORDS[w] for w in tokens(text) if w in NUMBER_WORDS}


def _url_set(text: str) -> set[str]:
    return {u.rstrip(".,;:").lower() for u in _URL.findall(text)}


def _starts_sentence(text: str, at: int) -> bool:
    """Whether position `at` opens the text, a line or a sentence (after punctuation and spaces)."""
    i = at
    while i > 0 and text[i - 1].isspace():
        i -= 1
    return at == 0 or "\n" in text[i:at] or (i > 0 and text[i - 1] in _SENTENCE_ENDS)


@lru_cache(maxsize=4096)  # premises (whole chunks) recur across steps and questions; callers only read the sets
def entities(text: str) -> dict[str, set[str]]:
    """URLs, e-mails, numbers, month/weekday names and capitalised names mentioned in `text`."""
    without_links = _EMAIL.sub(" ", _URL.sub(" ", text))
    names = set()
    for m in _NAME.finditer(without_links):
        words = [w for w in tokens(m.group(0)) if w not in ("de", "del", "la")]
        if len(words) == 1 and _starts_sentence(without_links, m.start()):
            continue  # a capital because the sentence starts here
        names.update(w for w in words if w not in COMMON_CAPITALISED)
    folded = set(tokens(without_links))
    return {
        "url": _url_set(text),
        "email": {e.lower().rstrip(".") for e in _EMAIL.findall(text)},
        "number": _numbers(without_links),
        "date": (folded & MONTHS) | (folded & WEEKDAYS),
        "name": names,
    }


@lru_cache(maxsize=4096)
def _source_view(text: str) -> tuple[frozenset[str], str]:
    return frozenset(tokens(_EMAIL.sub(" ", _URL.sub(" ", text)))), fold(text)


def _parts(sources: str | tuple[str, ...]) -> tuple[str, ...]:
    return (sources,) if isinstance(sources, str) else sources


def new_entities(conclusion: str, sources: str | tuple[str, ...]) -> list[str]:
    """Entities of the conclusion that the sources (one text, or several read as one) never mention."""
    parts = _parts(sources)  # each part's entities and views are cached: premises recur across steps and questions
    have: dict[str, set[str]] = {}
    for part in parts:
        for kind, values in entities(part).items():
            have.setdefault(kind, set()).update(values)
    views = [_source_view(part) for part in parts]
    out = []
    for kind, values in entities(conclusion).items():
        for v in sorted(values):
            if kind == "name":
                if any(v in toks or re.search(rf"\b{re.escape(v)}", text) for toks, text in views):
                    continue
            elif kind == "url":
                if v in have.get("url", ()) or any(v in text for _, text in views):
                    continue
            elif v in have.get(kind, ()):
                continue
            out.append(f"{kind} «{v}»")
    return out


@lru_cache(maxsize=4096)
def _key_set(text: str) -> frozenset[str]:
    return frozenset(keys(text))


def novelty(conclusion: str, sources: str | tuple[str, ...]) -> float:
    """Share of the conclusion's content words that the sources do not contain."""
    mine = set(keys(conclusion))
    if not mine:
        return 0.0
    for part in _parts(sources):
        mine -= _key_set(part)
    return len(mine) / len(set(keys(conclusion)))


def coverage(part: str, whole: str) -> float:
    """Share of `part`'s content words found in `whole`."""
    mine = set(keys(part))
    if not mine:
        return 1.0
    return len(mine & _key_set(whole)) / len(mine)


class StepVerifier:
    """Flags steps whose conclusion is not supported by their premises; flags are stored on the steps."""

    def __init__(self, *, embedder=None, config: VerifierConfig | None = None) -> None:
        self.embedder, self.config = embedder, config or VerifierConfig()

    def similarity(self, a: str, b: str) -> float | None:
        if self.embedder is None or not a.strip() or not b.strip():
            return None
        va, vb = self.embedder.embed_passages([a, b])
        return float(np.dot(va, vb))

    def check(self, step: Step, premise_texts: list[str], question: str = "") -> list[str]:
        """The reasons (in Spanish, for reviewers) why `step` is not faithful to its premises; [] if none."""
        cfg = self.config
        if step.rule == "NoInfo":
            return []
        sources = tuple(premise_texts)
        flags: list[str] = []
        allowed = (*sources, question)
        for ent in new_entities(step.conclusion, allowed):
            flags.append(f"dato nuevo no presente en las premisas: {ent}")
        limit = {"Extract": cfg.max_novelty_extract, "Refine": cfg.max_novelty_refine}.get(step.rule, cfg.max_novelty_other)
        nov = novelty(step.conclusion, sources if step.rule == "Extract" else allowed)
        if nov > limit:
            flags.append(f"{step.rule} agrega contenido que no está en sus premisas ({nov:.0%} de palabras nuevas)")
        if step.rule == "Concat":
            for i, p in enumerate(premise_texts):
                if coverage(p, step.conclusion) < cfg.min_concat_part:
                    flags.append(f"Concat no incluye la premisa {step.premises[i] if i < len(step.premises) else i + 1}")
        if step.rule in ("Extract", "Refine") and not flags:
            sim = self.similarity(step.conclusion, "\n".join(sources))
            if sim is not None and sim < cfg.min_similarity:
                flags.append(f"{step.rule} se aparta del sentido de la premisa (similitud {sim:.2f})")
        return flags

    def verify(self, steps: list[Step], chunks: list[str], question: str = "") -> list[Step]:
        """Check every step (premises are chunk numbers "1".."n" or earlier step ids) and store its flags."""
        by_id = {s.id: s for s in steps}
        for step in steps:
            texts = []
            for p in step.premises:
                if p in by_id:
                    texts.append(by_id[p].conclusion)
                elif p.isdigit() and 1 <= int(p) <= len(chunks):
                    texts.append(chunks[int(p) - 1])
            step.flags = self.check(step, texts, question)
        return steps
