"""The offline extractive generator: a small derivation built from the best passages, no LLM."""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from dataclasses import dataclass

import numpy as np

from pipeline.derivation import Step
from pipeline.generation import Answer, format_reply, references_for, register
from pipeline.index import Hit
from pipeline.generation.lexical import doc_keys, query_keys
from pipeline.redaction import strip_placeholders
from pipeline.texts import t
from pipeline.verifier import StepVerifier

MODEL_LABEL = "extractive (sin LLM)"

def question_weights(question: str, idf, context_weight: float) -> dict[str, float]:
    """IDF weight of each question key; words outside the interrogative sentences count less."""
    parts = [p for p in re.split(r"(?<=[?.!])\s+|\n+", strip_placeholders(question)) if p.strip()]
    asked = [p for p in parts if "?" in p] or parts
    weights: dict[str, float] = {}
    for part in parts:
        factor = 1.0 if part in asked else context_weight
        for k in query_keys(part):
            weights[k] = max(weights.get(k, 0.0), factor * idf(k))
    return weights


def passages(text: str, max_len: int = 220) -> list[str]:
    """Sentences and list items; runs of short lines (flattened table cells) are joined into one passage."""
    from pipeline.text import sentences

    out: list[str] = []
    buf: list[str] = []
    for sent in sentences(text):
        if len(sent) < 60:
            buf.append(sent)
            if sum(len(b) + 3 for b in buf) >= max_len:
                out.append(" | ".join(buf))
                buf = []
            continue
        if buf:
            out.append(" | ".join(buf))
            buf = []
        out.append(sent)
    if buf:
        out.append(" | ".join(buf))
    return [p for p in out if len(p) >= 15]


@dataclass(slots=True)
class _Candidate:
    score: float
    chunk_no: int
    order: int
    text: str


@register("extractive")
class ExtractiveGenerator:
    """Pick the passages that best cover the question (IDF-weighted terms + embedding similarity); NoInfo when nothing covers it."""

    name = "extractive"

    def __init__(
        self,
        *,
        lang: str = "es",
        index=None,
        embedder=None,
        min_coverage: float = 0.22,
        context_weight: float = 0.25,
        max_sentences: int = 3,
        dense_weight: float = 0.5,
        rank_weight: float = 0.5,
        **_: object,
    ) -> None:
        self.lang, self.index, self.embedder = lang, index, embedder
        self.min_coverage, self.context_weight = min_coverage, context_weight
        self.max_sentences, self.dense_weight, self.rank_weight = max_sentences, dense_weight, rank_weight
        self._df: Counter | None = None
        self._n_docs = 0
        self._vec_cache: dict[str, np.ndarray] = {}
        self.verifier = StepVerifier(embedder=None)  # lexical checks only: extracts are copied, not rewritten

    # -- corpus statistics ------------------------------------------------
    def _corpus(self, hits: list[Hit]) -> tuple[Counter, int]:
        if self._df is None and self.index is not None and self.index.exists():
            chunks = [c for c, _ in self.index.all_chunks()]
            self._df, self._n_docs = Counter(k for c in chunks for k in doc_keys(c.embed_text)), len(chunks)
        if self._df is not None and self._n_docs:
            return self._df, self._n_docs
        return Counter(k for h in hits for k in doc_keys(h.chunk.embed_text)), max(1, len(hits))

    def coverage(self, question: str, hits: list[Hit]) -> tuple[dict[str, float], list[float]]:
        """Question key weights and, per hit, the weighted share of the question its chunk covers."""
        df, n = self._corpus(hits)
        weights = question_weights(question, lambda k: math.log((n + 1) / (df.get(k, 0) + 0.5)), self.context_weight)
        total = sum(weights.values()) or 1.0
        covs = []
        for h in hits:
            have = doc_keys(h.chunk.embed_text)
            covs.append(sum(w for k, w in weights.items() if k in have) / total)
        return weights, covs

    def _similarities(self, question: str, texts: list[str]) -> np.ndarray:
        if self.embedder is None or not texts:
            return np.zeros(len(texts), dtype=np.float32)
        missing = [x for x in texts if x not in self._vec_cache]
        if missing:
            for x, v in zip(missing, self.embedder.embed_passages(missing), strict=True):
                self._vec_cache[x] = v
        q = self.embedder.embed_queries([question])[0]
        return np.array([float(self._vec_cache[x] @ q) for x in texts], dtype=np.float32)

    # -- generation -------------------------------------------------------
    def generate(self, question: str, hits: list[Hit]) -> Answer:
        start = time.perf_counter()
        weights, covs = self.coverage(question, hits)
        if not hits or max(covs, default=0.0) < self.min_coverage:
            return self._no_info(hits, start, covs)
        best_chunk = max(range(len(hits)), key=lambda i: (covs[i], -i))
        total = sum(weights.values()) or 1.0
        cands: list[_Candidate] = []
        for n, hit in enumerate(hits, start=1):
            if covs[n - 1] < self.min_coverage:
                continue
            section = doc_keys(f"{hit.chunk.doc_title} {hit.chunk.section or ''}")
            for i, text in enumerate(passages(hit.chunk.text)):
                have = doc_keys(text)
                lexical = sum(w for k, w in weights.items() if k in have) / total
                context = sum(w for k, w in weights.items() if k in section and k not in have) / total
                prior = self.rank_weight * max(covs) / n  # retrieval's own ranking is evidence too
                cands.append(_Candidate(lexical + 0.3 * context + 0.1 * (n - 1 == best_chunk) + prior, n, i, text))
        if not cands:
            return self._no_info(hits, start, covs)
        sims = self._similarities(question, [c.text for c in cands])
        if len(cands) > 1 and float(sims.max()) > 0:
            spread = float(sims.max() - sims.min()) or 1.0
            for c, s in zip(cands, sims, strict=True):
                c.score += self.dense_weight * float(s - sims.min()) / spread * max(covs)
        cands.sort(key=lambda c: -c.score)
        top = cands[0]
        best = [top] + [c for c in cands[1:] if c.score >= 0.6 * top.score][: self.max_sentences - 1]
        best.sort(key=lambda c: (c.chunk_no, c.order))  # document order reads better
        return self._answer(question, best, hits, start, covs)

    def _answer(self, question: str, best: list[_Candidate], hits: list[Hit], start: float, covs: list[float]) -> Answer:
        steps = [Step(id=f"s{i}", rule="Extract", premises=[str(c.chunk_no)], conclusion=c.text) for i, c in enumerate(best, start=1)]
        top = steps[0]
        if len(steps) > 1:
            top = Step(id=f"s{len(steps) + 1}", rule="Concat", premises=[s.id for s in steps], conclusion=" ".join(s.conclusion for s in steps))
            steps.append(top)
        listed = "\n".join(f"- {s.conclusion}" for s in steps if s.rule == "Extract")
        final = Step(id=f"s{len(steps) + 1}", rule="Refine", premises=[top.id], conclusion=listed, is_final=True)
        body = f"{t('according_to', self.lang)}\n\n{listed}"  # the lead-in is boilerplate, not a derived claim
        steps.append(final)
        refs = references_for(steps, final, hits)
        self.verifier.verify(steps, [h.chunk.embed_text for h in hits], question)
        return Answer(
            text=format_reply(body, refs, self.lang),
            method="extractive",
            model=MODEL_LABEL,
            references=refs,
            derivation=steps,
            hits=hits,
            latency_ms=(time.perf_counter() - start) * 1000,
            notes=[t("extractive_label", self.lang), f"cobertura léxica máxima {max(covs, default=0):.3f}"],
        )

    def _no_info(self, hits: list[Hit], start: float, covs: list[float]) -> Answer:
        step = Step(id="s1", rule="NoInfo", premises=[], conclusion=t("no_info", self.lang), is_final=True)
        return Answer(
            text=format_reply(t("no_info", self.lang), [], self.lang),
            method="extractive",
            model=MODEL_LABEL,
            no_info=True,
            derivation=[step],
            hits=hits,
            latency_ms=(time.perf_counter() - start) * 1000,
            notes=[t("extractive_label", self.lang), f"cobertura léxica máxima {max(covs, default=0):.3f} < {self.min_coverage:.3f}"],
        )
