"""Matching a student's question to an FAQ entry's own question: when the two questions mean the same (embedding
similarity of the question to the FAQ unit's `context`) and the entry holds what is asked (the object's presence), the
entry's answer is the answer, said whole.

The FAQ question is not part of the FAQ unit's stored vector (units take their vectors from their own words), so the
entries' questions are embedded here, as queries (question against question), once per process and text."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from pipeline.generation.asking import Asked
from pipeline.generation.lexical import doc_keys

# Cosine of the student's question and the FAQ entry's question (multilingual-e5-small, both embedded as queries) from
# which they are read as the same question, and how far above the question's similarity to the document's other entries
# (in standard deviations): e5's cosines crowd together (any question is 0.80-0.87 from every entry), so a generic
# question ('¿Qué es la asignación de cursos?') is close to every entry, and a question an entry asks stands out of them.
# Chosen on the FIUSAC dev questions (benchmarks/faq_matching.py): of the 11 whose answer is in the FAQ, 10 pass both
# (the eleventh names too little of its entry's object); of the 436 others, 3 pass 0.91 alone and 1 with the spread.
MIN_SIMILARITY = 0.91
MIN_SPREAD = 1.8
MIN_ENTRIES = 5  # the spread is read only against at least this many entries of the same document
MIN_OBJECT = 0.5  # share of the asked object's keys the entry (its question and its answer) must hold
LEAD = 2.2  # the matched entry scores this many times the best other candidate: every other unit then falls below the share
# of the lead that selection keeps beside it (SelectionConfig.keep_ratio 0.85, ask_ratio 0.5), so the entry's answer is
# said whole and alone
_CACHE_LIMIT = 5000


def is_faq(c) -> bool:
    """Whether a candidate is an FAQ entry's whole answer (its context is the entry's question)."""
    return c.unit.kind == "faq" and bool((c.unit.context or "").strip())


def object_held(asked: Asked, question: str, answer: str) -> float:
    """Share of the asked object's keys an FAQ entry holds, in its question or its answer (1 when nothing is named)."""
    if not asked.object_keys:
        return 1.0
    have = doc_keys(f"{question} {answer}")
    return sum(1 for k in asked.object_keys if k in have or k[:4] in have) / len(asked.object_keys)


def spread_of(sim: float, sims: Sequence[float]) -> float | None:
    """How many standard deviations `sim` stands above the mean of `sims` (one document's entries); None with fewer than
    MIN_ENTRIES entries."""
    if len(sims) < MIN_ENTRIES:
        return None
    a = np.asarray(sims, dtype=np.float64)
    sd = float(a.std())
    return (sim - float(a.mean())) / sd if sd > 1e-9 else 0.0


class FaqMatcher:
    """The embedding of FAQ entries' questions (cached), and the entry a question matches among a question's candidates."""

    def __init__(self, embedder, *, chunks_of: Callable[[str], Sequence] | None = None, min_similarity: float = MIN_SIMILARITY, min_spread: float = MIN_SPREAD, min_object: float = MIN_OBJECT) -> None:
        """`chunks_of(doc_id)`: the index's chunks of a document (when given, all of an FAQ document's entries are embedded
        at once, the first time it is seen, and the spread is read against all of them; else against the entries among
        a question's candidates)."""
        self.embedder, self.chunks_of = embedder, chunks_of
        self.min_similarity, self.min_spread, self.min_object = min_similarity, min_spread, min_object
        self._vecs: dict[str, np.ndarray] = {}
        self._entries: dict[str, tuple[str, ...]] = {}

    def entries(self, doc_id: str, cands: Sequence) -> tuple[str, ...]:
        """The FAQ questions of a document: all of them from the index when it can be read, else those among `cands`."""
        found = self._entries.get(doc_id)
        if found is None:
            chunks = self.chunks_of(doc_id) if self.chunks_of is not None else ()
            found = tuple(dict.fromkeys(u.context.strip() for ch in chunks for u in ch.units or () if u.kind == "faq" and (u.context or "").strip()))
            if found:
                self._entries[doc_id] = found
                self.vectors(list(found))  # one batch per document
        return found or tuple(dict.fromkeys(c.unit.context.strip() for c in cands if is_faq(c) and c.chunk.doc_id == doc_id))

    def vectors(self, questions: Sequence[str]) -> list[np.ndarray]:
        """The (normalised) query embeddings of the FAQ questions, each text embedded once."""
        new = [q for q in dict.fromkeys(questions) if q not in self._vecs]
        if new:
            if len(self._vecs) + len(new) > _CACHE_LIMIT:
                self._vecs.clear()
            for q, v in zip(new, np.asarray(self.embedder.embed_queries(new), dtype=np.float32), strict=True):
                n = float(np.linalg.norm(v))
                self._vecs[q] = v / n if n else v
        return [self._vecs[q] for q in questions]

    def match(self, asked: Asked, qvec: np.ndarray | None, cands: Sequence):
        """The FAQ candidate whose question the student's question matches (the most similar, at or above MIN_SIMILARITY,
        MIN_SPREAD above the same document's other entries, holding the asked object), or None. Records the similarity
        and the spread on each FAQ candidate (`parts["faq_sim"]`, `parts["faq_spread"]`)."""
        faqs = [c for c in cands if is_faq(c)]
        if qvec is None or not faqs:
            return None
        q = np.asarray(qvec, dtype=np.float32)
        q = q / (float(np.linalg.norm(q)) or 1.0)
        by_doc: dict[str, dict[str, float]] = {}
        for doc in dict.fromkeys(c.chunk.doc_id for c in faqs):
            names = list(self.entries(doc, faqs))
            by_doc[doc] = {n: float(v @ q) for n, v in zip(names, self.vectors(names), strict=True)}
        best, best_sim = None, -1.0
        for c in faqs:
            entries = by_doc[c.chunk.doc_id]
            s = entries.get(c.unit.context.strip())
            if s is None:
                continue
            spread = spread_of(s, list(entries.values()))
            c.parts["faq_sim"] = round(s, 4)
            if spread is not None:
                c.parts["faq_spread"] = round(spread, 3)
            if s >= self.min_similarity and spread is not None and spread >= self.min_spread and s > best_sim and object_held(asked, c.unit.context, c.unit.text) >= self.min_object:
                best, best_sim = c, s
        return best

    def promote(self, asked: Asked, qvec: np.ndarray | None, cands: list) -> object | None:
        """Put the matched FAQ entry's whole answer first (LEAD times the best score), marked `parts["faq_match"]`; the
        order of the other candidates is kept. When the best unit is already one of that entry's steps or sentences, the
        order is left alone (the drafter says an entry's steps as a numbered procedure) and that unit is marked
        `parts["faq_entry"]`. Returns the matched candidate, or None."""
        hit = self.match(asked, qvec, cands)
        if hit is None:
            return None
        hit.parts["faq_match"] = 1.0
        head = cands[0]
        if head is hit or head.unit.context.strip() == hit.unit.context.strip() and head.unit.kind in ("item", "sentence"):
            head.parts["faq_entry"] = 1.0
            return hit  # the best unit is already of that entry (its answer or one of its steps, which the drafter says as a numbered procedure)
        top = max(c.score for c in cands)
        hit.score = top * LEAD if top > 0 else 1.0
        cands.sort(key=lambda x: (-x.score, x.hit_no, x.unit.offset))
        return hit


def matched(c) -> bool:
    """Whether a candidate is of the FAQ entry the question matches (the entry's answer, or one of its sentences or steps
    when the drafter already put one first)."""
    return bool(c is not None and (c.parts.get("faq_match") or c.parts.get("faq_entry")))
