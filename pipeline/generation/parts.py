"""One reply from the answers to several questions of one message: in order, each with its references."""

from __future__ import annotations

from pipeline.derivation import Step
from pipeline.generation import Answer, Reference
from pipeline.texts import t


def reply_body(answer: Answer, lang: str = "es") -> str:
    """The answer's text without the greeting and closing that every reply carries (its references stay)."""
    text = answer.text.strip()
    greeting, closing = t("greeting", lang), t("closing", lang)
    if text.startswith(greeting):
        text = text[len(greeting) :].lstrip()
    if text.endswith(closing):
        text = text[: -len(closing)].rstrip()
    return text


def _final(steps: list[Step]) -> Step | None:
    return next((s for s in steps if s.is_final), steps[-1] if steps else None)


def _renumbered(steps: list[Step], part: int, offset: int) -> list[Step]:
    """A part's steps with ids prefixed by the part number and chunk premises moved past the earlier parts' hits."""
    ids = {s.id for s in steps}
    out = []
    for s in steps:
        premises = [f"p{part}.{p}" if p in ids else str(int(p) + offset) if p.isdigit() else p for p in s.premises]
        out.append(Step(id=f"p{part}.{s.id}", rule=s.rule, premises=premises, conclusion=s.conclusion, is_final=False, flags=list(s.flags)))
    return out


def compose(headings: list[str], answers: list[Answer], lang: str = "es") -> Answer:
    """The answers to the message's questions, numbered in the order asked; a part without information says so without hiding the others."""
    if len(answers) == 1:
        return answers[0]
    sections, steps, hits, finals = [], [], [], []
    refs: dict[str, Reference] = {}
    for i, (heading, answer) in enumerate(zip(headings, answers), start=1):
        body = reply_body(answer, lang) or t("no_info", lang)
        sections.append(f"{i}. {heading}\n{body}")
        part_steps = _renumbered(answer.derivation, i, len(hits))
        final = _final(part_steps)
        if final is not None:
            finals.append(final)
        steps += part_steps
        hits += answer.hits
        for r in answer.references:
            kept = refs.setdefault(r.doc_id, r)
            if kept is not r:
                kept.claims += [c for c in r.claims if c not in kept.claims]
    if len(finals) >= 2:
        steps.append(Step(id="s_final", rule="Concat", premises=[f.id for f in finals], conclusion="\n\n".join(sections), is_final=True))
    elif finals:
        finals[0].is_final = True
    first = answers[0]
    outcome = next((a.outcome for a in answers if a.outcome != "ok"), "ok")
    usage = first.usage
    for a in answers[1:]:
        usage = usage + a.usage
    return Answer(
        text="\n".join([t("greeting", lang), "", "\n\n".join(sections), "", t("closing", lang)]),
        method=first.method,
        model=first.model,
        references=list(refs.values()),
        no_info=all(a.no_info for a in answers),
        derivation=steps,
        prompt_hash=first.prompt_hash,
        usage=usage,
        cost_usd=sum(a.cost_usd for a in answers),
        latency_ms=sum(a.latency_ms for a in answers),
        hits=hits,
        notes=[f"{len(answers)} preguntas en el mensaje, respondidas en orden"] + [f"pregunta {i}: {n}" for i, a in enumerate(answers, start=1) for n in a.notes],
        fallback=any(a.fallback for a in answers),
        outcome=outcome,
        extra_flags=[f for a in answers for f in a.extra_flags],
    )
