"""Offline synthetic in-domain questions: headings, FAQ items and key sentences turned into questions."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from pipeline.chunking import Chunk
from pipeline.text import sentences

STYLES = ("direct", "informal", "statement", "long", "vague")


@dataclass(slots=True)
class Example:
    """One synthetic training question with its provenance."""

    text: str
    label: int  # 1 in domain, 0 out of domain
    style: str
    source: str  # "offline-template", "llm", "ood-bank", "feedback"
    chunk_ids: tuple[str, ...] = ()
    prompt_hash: str | None = None

    def as_dict(self) -> dict:
        d = asdict(self)
        d["chunk_ids"] = list(self.chunk_ids)
        return d


_DIRECT = ["¿{t}?", "¿Qué dice el reglamento sobre {t}?", "¿Cómo funciona {t}?", "¿Cuáles son los requisitos de {t}?", "¿Dónde puedo consultar sobre {t}?"]
_INFORMAL = ["che, una pregunta sobre {t}", "hola! me podrían decir algo de {t}? gracias", "buenas, tengo una duda con {t}", "q onda con {t}?? no entiendo nada"]
_STATEMENT = ["Quisiera información sobre {t}", "Necesito saber sobre {t}", "Les escribo por el tema de {t}", "Me gustaría que me expliquen {t}"]
_LONG = [
    "Hola, soy estudiante de la facultad y estoy un poco perdido. Estuve leyendo la página pero no me queda claro lo de {t}. "
    "Este semestre tengo varias cosas pendientes y no quiero perder plazos. ¿Me podrían orientar?",
    "Buenas tardes. Les escribo porque tengo una situación particular: {s} Quería saber cómo aplica esto en mi caso, "
    "porque no encuentro la respuesta y necesito resolverlo pronto. Muchas gracias.",
]
_VAGUE = ["{t}", "info {t}", "duda {t}", "{t}??"]


def _topic(text: str) -> str:
    text = re.sub(r"^\W+|\W+$", "", text.strip())
    text = re.sub(r"^(art[ií]culo\s+\d+\.?\s*)", "", text, flags=re.IGNORECASE)
    return text[:1].lower() + text[1:] if text else text


def _topics_for(chunk: Chunk) -> list[str]:
    out = []
    if chunk.section and chunk.section != chunk.doc_title:
        out.append(_topic(chunk.section))
    for s in sentences(chunk.text):
        if s.rstrip().endswith("?") and 10 < len(s) < 200:
            out.append(_topic(s.strip("¿?")))
    out.append(_topic(chunk.doc_title))
    return [t for t in out if len(t) > 3]


def offline_questions(chunks: Sequence[Chunk], *, per_chunk: int = 3, seed: int = 13) -> list[Example]:
    """Deterministic in-domain questions in the five styles, from the chunks' headings, FAQ items and sentences."""
    rng = random.Random(seed)
    out: list[Example] = []
    for chunk in chunks:
        topics = _topics_for(chunk)
        sents = [s for s in sentences(chunk.text) if 30 < len(s) < 220]
        for _ in range(per_chunk):
            style = rng.choice(STYLES)
            topic = rng.choice(topics)
            if style == "direct":
                text = rng.choice(_DIRECT).format(t=topic)
            elif style == "informal":
                text = rng.choice(_INFORMAL).format(t=topic.lower())
            elif style == "statement":
                text = rng.choice(_STATEMENT).format(t=topic)
            elif style == "long":
                text = rng.choice(_LONG).format(t=topic, s=rng.choice(sents) if sents else topic)
            else:
                text = rng.choice(_VAGUE).format(t=" ".join(topic.split()[:4]))
            out.append(Example(text=text, label=1, style=style, source="offline-template", chunk_ids=(chunk.id,)))
    return out
