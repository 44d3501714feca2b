"""The offline extractive generator: a small derivation built from the best sentences, no LLM."""

from __future__ import annotations

import time

from pipeline.derivation import Step
from pipeline.generation import Answer, format_reply, references_for, register
from pipeline.index import Hit
from pipeline.text import content_terms, sentences
from pipeline.texts import t

MODEL_LABEL = "extractive (sin LLM)"


def _overlap(q_terms: set[str], sentence: str) -> float:
    s_terms = set(content_terms(sentence))
    if not q_terms or not s_terms:
        return 0.0
    hit = q_terms & s_terms
    return len(hit) / len(q_terms) + 0.1 * len(hit) / len(s_terms)


@register("extractive")
class ExtractiveGenerator:
    """Extract the best sentences of the retrieved chunks, Concat them, Refine into a reply; NoInfo otherwise."""

    name = "extractive"

    def __init__(self, *, min_overlap: float = 0.34, max_sentences: int = 3, lang: str = "es", **_: object) -> None:
        self.min_overlap, self.max_sentences, self.lang = min_overlap, max_sentences, lang

    def generate(self, question: str, hits: list[Hit]) -> Answer:
        start = time.perf_counter()
        q_terms = set(content_terms(question))
        scored: list[tuple[float, int, int, str]] = []  # (score, chunk no, sentence order, sentence)
        for n, hit in enumerate(hits, start=1):
            rank_bonus = 0.05 * (len(hits) - n) / max(1, len(hits))
            for i, sent in enumerate(sentences(hit.chunk.text)):
                if len(sent) < 15:
                    continue
                scored.append((_overlap(q_terms, sent) + rank_bonus, n, i, sent))
        scored.sort(key=lambda x: -x[0])
        best = [s for s in scored if s[0] >= self.min_overlap][: self.max_sentences]
        if not best:
            step = Step(id="s1", rule="NoInfo", premises=[], conclusion=t("no_info", self.lang), is_final=True)
            return Answer(
                text=format_reply(t("no_info", self.lang), [], self.lang),
                method="extractive",
                model=MODEL_LABEL,
                no_info=True,
                derivation=[step],
                hits=hits,
                latency_ms=(time.perf_counter() - start) * 1000,
                notes=[t("extractive_label", self.lang)],
            )
        best.sort(key=lambda x: (x[1], x[2]))  # document order reads better
        steps = [Step(id=f"s{i}", rule="Extract", premises=[str(n)], conclusion=sent) for i, (_, n, _, sent) in enumerate(best, start=1)]
        top = steps[0]
        if len(steps) > 1:
            top = Step(id=f"s{len(steps) + 1}", rule="Concat", premises=[s.id for s in steps], conclusion=" ".join(s.conclusion for s in steps))
            steps.append(top)
        body = f"{t('according_to', self.lang)}\n\n" + "\n".join(f"- {s.conclusion}" for s in steps if s.rule == "Extract")
        final = Step(id=f"s{len(steps) + 1}", rule="Refine", premises=[top.id], conclusion=body, is_final=True)
        steps.append(final)
        refs = references_for(steps, final, hits)
        return Answer(
            text=format_reply(body, refs, self.lang),
            method="extractive",
            model=MODEL_LABEL,
            references=refs,
            derivation=steps,
            hits=hits,
            latency_ms=(time.perf_counter() - start) * 1000,
            notes=[t("extractive_label", self.lang)],
        )
