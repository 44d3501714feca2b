"""One reply from the answers to several questions of one message: in order, each with its references."""

from __future__ import annotations

import re

from pipeline.derivation import Step
from pipeline.generation import Answer, Reference, references_section
from pipeline.generation.readiness import READINESS_FLAG, READY, parts_missing
from pipeline.text import fold, tokens
from pipeline.texts import t


MAX_PASSAGES = 3  # closest passages offered to the reviewer for the parts a reply could not answer


def reply_body(answer: Answer, lang: str = "es") -> str:
    """The answer's text without the greeting and closing that every reply carries (its references stay)."""
    text = answer.text.strip()
    greeting, closing = t("greeting", lang), t("closing", lang)
    if text.startswith(greeting):
        text = text[len(greeting) :].lstrip()
    if text.endswith(closing):
        text = text[: -len(closing)].rstrip()
    return text


def _body_alone(answer: Answer, lang: str) -> str:
    """The answer's text without greeting, closing and its own list of references (a reply to several questions lists
    its documents once, at the end)."""
    body = reply_body(answer, lang)
    own = "\n".join(references_section(answer.references, lang)).strip()
    return body[: -len(own)].rstrip() if own and body.endswith(own) else body


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


def _said(body: str, lang: str) -> list[str]:
    """A part's answer as compared with the others': its lines without references, bullets or numbers."""
    lines = body.split(t("references", lang))[0].splitlines()
    return [s for ln in lines if (s := re.sub(r"^\s*(?:[-•]|\d+\.)\s*", "", ln).strip())]


SAID_SHARE = 0.9  # share of a part's first line's words an earlier part must say for that part to be answered already


def _answered_by(first: str, earlier: list[str]) -> bool:
    """Whether an earlier part already says a part's leading line (word for word, give or take a heading)."""
    words = {w for w in tokens(fold(first)) if len(w) >= 3}
    have = {w for w in tokens(fold(" ".join(earlier))) if len(w) >= 3}
    return bool(words) and len(words & have) >= SAID_SHARE * len(words)


def said_before(answer: Answer, earlier: list[Answer], lang: str = "es") -> bool:
    """Whether an earlier part's answer already says this answer's leading line."""
    lines = _said(reply_body(answer, lang), lang)
    return bool(lines) and any(_answered_by(lines[0], _said(reply_body(a, lang), lang)) for a in earlier)


def _distinct(headings: list[str], answers: list[Answer], lang: str) -> tuple[list[str], list[Answer]]:
    """The parts with answers of their own: a part whose leading passage an earlier part already says ('¿Puedo pedir
    licencia? ¿Por cuánto tiempo?', both answered by the same rule) is said once, under both questions."""
    kept_h: list[str] = []
    kept_a: list[Answer] = []
    said: list[list[str]] = []
    for heading, answer in zip(headings, answers):
        lines = _said(reply_body(answer, lang), lang)
        twin = next((k for k, s in enumerate(said) if lines and not answer.no_info and _answered_by(lines[0], s)), None)
        if twin is not None:
            kept_h[twin] = f"{kept_h[twin]} {heading}"
            continue
        kept_h.append(heading)
        kept_a.append(answer)
        said.append(lines)
    return kept_h, kept_a


def merged_readiness(answers: list[Answer], lang: str = "es") -> dict | None:
    """One readiness flag for a reply to several questions: «listo» only when every part is, and what each part lacks.

    A reply to several questions keeps each part's label and evidence under "parts" (so a calibrated rule checks every
    part, `readiness.apply_rule`), and its own evidence is each measure's weakest part: the reply is as ready as that part."""
    flags = [(i, f) for i, a in enumerate(answers, start=1) for f in a.extra_flags if f.get("kind") == READINESS_FLAG]
    if not flags:
        return None
    missing = [(i, f) for i, f in flags if f.get("flag") != READY]
    first = missing[0][1] if missing else flags[0][1]
    merged = dict(first)
    if len(answers) > 1:
        merged["parts"] = [{"part": i, "flag": f.get("flag"), "label": f.get("label"), "missing": f.get("missing"),
                            "evidence": dict(f.get("evidence") or {})} for i, f in flags]
        weakest: dict[str, float] = {}
        for _, f in flags:
            for k, v in (f.get("evidence") or {}).items():
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    weakest[k] = min(weakest.get(k, v), v)
        if weakest:
            merged["evidence"] = dict(first.get("evidence") or {}) | weakest
    if not missing:
        return merged
    merged["missing"] = parts_missing(merged.get("parts"), lang) if len(answers) > 1 else first.get("missing")
    merged["missing"] = merged["missing"] or first.get("missing")
    merged["passages"] = [p for _, f in missing for p in f.get("passages") or []][:MAX_PASSAGES]
    return merged


def compose(headings: list[str], answers: list[Answer], lang: str = "es") -> Answer:
    """The answers to the message's questions, numbered in the order asked, then the documents they cite, listed once;
    a part without information says so without hiding the others, and a part another one already answers is said once."""
    headings, answers = _distinct(headings, answers, lang)
    if len(answers) == 1:
        return answers[0]
    sections, steps, hits, finals = [], [], [], []
    refs: dict[str, Reference] = {}
    for i, (heading, answer) in enumerate(zip(headings, answers), start=1):
        body = _body_alone(answer, lang) or t("no_info", lang)
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
        text="\n".join([t("greeting", lang), "", "\n\n".join(sections), *references_section(list(refs.values()), lang), "", t("closing", lang)]),
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
        extra_flags=[f for a in answers for f in a.extra_flags if f.get("kind") != READINESS_FLAG] + ([ready] if (ready := merged_readiness(answers, lang)) else []),
    )
