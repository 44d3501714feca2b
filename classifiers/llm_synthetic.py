"""LLM-generated training questions: related chunk sets, two prompt variants, five styles, few-shot out-of-domain."""

from __future__ import annotations

import hashlib
import logging
import random
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from classifiers.errors import GateError
from classifiers.synthetic import STYLES, Example
from pipeline.chunking import Chunk
from pipeline.errors import LLMError
from pipeline.llm import LLM

log = logging.getLogger(__name__)
PROMPTS = Path(__file__).resolve().parent / "prompts"
OOD_TOPICS = (
    "salud", "cocina", "deportes", "clima", "programación", "política", "historia", "ciencia", "geografía", "cine y series",
    "música", "charla casual", "escribir un texto", "traducir un texto", "viajes", "mascotas", "finanzas personales",
    "trámites de otra institución", "un gimnasio o club", "tecnología", "videojuegos", "autos", "jardinería", "arte",
)

class GeneratedQuestion(BaseModel):
    """The generated question."""

    question: str = Field(description="The message, exactly as the person would send it.")
    chunks_used: list[int] = Field(description="Numbers of the fragments the answer needs (empty when none).")


@lru_cache(maxsize=None)
def load_prompt(name: str) -> str:
    """A prompt template from classifiers/prompts/ by name."""
    return (PROMPTS / f"{name}.md").read_text(encoding="utf-8")


def prompt_hash(name: str) -> str:
    return hashlib.sha256(load_prompt(name).encode("utf-8")).hexdigest()[:12]


@lru_cache(maxsize=1)
def style_descriptions() -> dict[str, str]:
    out = {}
    for line in load_prompt("styles").splitlines():
        if ":" in line:
            key, desc = line.split(":", 1)
            out[key.strip()] = desc.strip()
    return out


def sample_chunk_sets(vectors: np.ndarray, *, n_sets: int, size: int = 3, seed: int = 0) -> list[list[int]]:
    """Related chunk sets: draw a random unit vector and take the `size` chunks nearest to it (cosine)."""
    if len(vectors) == 0:
        raise GateError("no chunks to sample from")
    rng = np.random.default_rng(seed)
    v = np.asarray(vectors, dtype=np.float32)
    v = v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)
    size = min(size, len(v))
    sets = []
    for _ in range(n_sets):
        direction = rng.standard_normal(v.shape[1]).astype(np.float32)
        direction /= np.linalg.norm(direction)
        sims = v @ direction
        sets.append([int(i) for i in np.argsort(-sims)[:size]])
    return sets


def _fragments(chunks: Sequence[Chunk]) -> str:
    body = "\n\n".join(f"[{i + 1}] ({c.doc_title})\n{c.text}" for i, c in enumerate(chunks))
    return f"<fragmentos>\n{body}\n</fragmentos>"


def in_domain_question(llm: LLM, chunks: Sequence[Chunk], *, variant: str, style: str) -> Example | None:
    """One in-domain question for these chunks ('any': needs at least one, 'all': needs all of them)."""
    name = {"any": "in_domain_any", "all": "in_domain_all"}[variant]
    system = load_prompt(name).format(style=style_descriptions().get(style, style))
    resp = llm.complete(system=system, user=_fragments(chunks), schema=GeneratedQuestion, max_tokens=1500)
    data = (resp.data or {}) if resp.outcome == "ok" else {}  # diversity comes from the styles and chunk sets (the API default temperature is 1.0)
    question = str(data.get("question", "")).strip()
    if not question:
        return None
    used = [int(i) for i in data.get("chunks_used") or [] if isinstance(i, int) or str(i).isdigit()]
    picked = [chunks[i - 1].id for i in used if 1 <= i <= len(chunks)] if variant == "any" else [c.id for c in chunks]
    return Example(text=question, label=1, style=style, source="llm", chunk_ids=tuple(picked or [c.id for c in chunks]), prompt_hash=prompt_hash(name))


def near_miss_question(llm: LLM, *, style: str, category: str, own: Sequence[str], courses: Sequence[str]) -> Example | None:
    """One out-of-domain message in the office's own words (a near miss of `category`, see classifiers.near_miss)."""
    system = load_prompt("out_of_domain_near_miss").format(style=style_descriptions().get(style, style), category=category, own=", ".join(own), courses=", ".join(courses))
    resp = llm.complete(system=system, user="Genera el mensaje.", schema=GeneratedQuestion, max_tokens=1500)
    question = str((resp.data or {}).get("question", "")).strip() if resp.outcome == "ok" else ""
    if not question:
        return None
    return Example(text=question, label=0, style=style, source="llm-near-miss", prompt_hash=prompt_hash("out_of_domain_near_miss"), topic=f"{category}:llm")


def out_of_domain_question(llm: LLM, *, style: str, topic: str) -> Example | None:
    """One random question on any topic, from the few-shot prompt."""
    system = load_prompt("out_of_domain").format(style=style_descriptions().get(style, style), topic=topic)
    resp = llm.complete(system=system, user="Genera la pregunta.", schema=GeneratedQuestion, max_tokens=1500)  # room for adaptive thinking
    question = str((resp.data or {}).get("question", "")).strip() if resp.outcome == "ok" else ""
    if not question:
        return None
    return Example(text=question, label=0, style=style, source="llm", prompt_hash=prompt_hash("out_of_domain"), topic=topic)


def llm_dataset(llm: LLM, chunks: Sequence[Chunk], vectors: np.ndarray, *, n_in: int = 300, n_out: int = 300, seed: int = 0, progress=lambda done, total: None) -> list[Example]:
    """Generate the LLM dataset: chunk sets -> in-domain questions; few-shot prompts -> out-of-domain questions, half of
    them near misses in the office's words (category kept in the topic)."""
    rng = random.Random(seed)
    out: list[Example] = []
    total = n_in + n_out
    for k, idx in enumerate(sample_chunk_sets(vectors, n_sets=n_in, seed=seed)):
        chosen = [chunks[i] for i in rng.sample(idx, rng.randint(1, len(idx)))]
        variant = rng.choice(("any", "all"))
        try:
            ex = in_domain_question(llm, chosen, variant=variant, style=rng.choice(STYLES))
        except LLMError as exc:
            log.warning("in-domain question %d failed: %s", k, exc)
            continue
        if ex is not None:
            out.append(ex)
        progress(k + 1, total)
    from classifiers.near_miss import CATEGORIES, course_names
    from classifiers.synthetic import institution_names

    own, courses = institution_names(chunks), course_names(chunks)[:40]
    for k in range(n_out):
        try:
            if k % 2:  # every other one a near miss, the categories in turn
                ex = near_miss_question(llm, style=rng.choice(STYLES), category=CATEGORIES[(k // 2) % len(CATEGORIES)], own=own, courses=rng.sample(courses, min(12, len(courses))))
            else:
                ex = out_of_domain_question(llm, style=rng.choice(STYLES), topic=rng.choice(OOD_TOPICS))
        except LLMError as exc:
            log.warning("out-of-domain question %d failed: %s", k, exc)
            continue
        if ex is not None:
            out.append(ex)
        progress(n_in + k + 1, total)
    return out
