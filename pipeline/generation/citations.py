"""Citations: retrieved passages as Messages API search-result blocks, and the claims of a reply linked to the passages they cite.

The Messages API takes pre-fetched passages as `search_result` content blocks and, with citations enabled,
returns the answer as text blocks whose `citations` point at the passage used (`search_result_location`:
`search_result_index`, `start_block_index`, `end_block_index`, `cited_text`) — docs:
https://docs.anthropic.com/en/docs/build-with-claude/search-results. Citations cannot be combined with
structured outputs (build-with-claude/structured-outputs), so derivation, which needs a JSON reply, cites
through its leaves instead: each leaf names the passage it extracts from (`leaf_claims`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pipeline.derivation import Step, subtree
from pipeline.generation import Reference, references_section
from pipeline.index import Hit

QUOTE_LIMIT = 300
_WORD = re.compile(r"\w{2,}")
# A text block is a claim when it says something checkable: a number, or a few words (not a connective like "Según:").
MIN_CLAIM_WORDS = 4


@dataclass(slots=True)
class Passage:
    """A retrieved passage a claim cites: its hit number (1-based, as the prompt numbers them) and the cited text."""

    number: int
    doc_id: str
    chunk_id: str
    quote: str


@dataclass(slots=True)
class Claim:
    """A piece of the answer and the passages it cites (none: an uncited claim)."""

    text: str
    passages: list[Passage] = field(default_factory=list)


def search_result(hit: Hit, *, citations: bool) -> dict:
    """One retrieved chunk as a `search_result` block: title (and section), source URL, one text block per paragraph."""
    c = hit.chunk
    title = c.doc_title + (f" — {c.section}" if c.section and c.section != c.doc_title else "")
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", c.text) if p.strip()] or [c.text.strip() or c.doc_title]
    return {
        "type": "search_result",
        "source": c.url or f"orienta:{c.doc_id}",
        "title": title,
        "content": [{"type": "text", "text": p} for p in paragraphs],
        "citations": {"enabled": citations},
    }


def search_results(hits: list[Hit], *, citations: bool = True) -> list[dict]:
    """The retrieved chunks as search-result blocks, in retrieval order (the API numbers them in this order)."""
    return [search_result(h, citations=citations) for h in hits]


def is_claim(text: str) -> bool:
    """Whether a piece of the answer states something a reviewer should be able to trace to a passage."""
    return bool(re.search(r"\d", text)) or len(_WORD.findall(text)) >= MIN_CLAIM_WORDS


def claims_from(blocks: list[dict], hits: list[Hit]) -> list[Claim]:
    """The reply's text blocks as claims with the passages their citations point at (whitespace-only blocks left out)."""
    claims = []
    for block in blocks:
        text = " ".join(str(block.get("text") or "").split())
        if not text:
            continue
        passages = []
        for cit in block.get("citations") or []:
            n = cit.get("search_result_index")
            if cit.get("type") == "search_result_location" and isinstance(n, int) and 0 <= n < len(hits):
                c = hits[n].chunk
                passages.append(Passage(n + 1, c.doc_id, c.id, " ".join(str(cit.get("cited_text") or "").split())[:QUOTE_LIMIT]))
        claims.append(Claim(text, passages))
    return claims


UNCITED = "uncited_claim"  # Draft.flags kind: a claim of the answer that cites no passage


def uncited(claims: list[Claim], no_info_markers: tuple[str, ...] = ()) -> list[Claim]:
    """Claims without a citation, leaving out connectives and a no-information sentence (which cites nothing by nature)."""
    return [c for c in claims if not c.passages and is_claim(c.text) and not any(m in c.text.lower() for m in no_info_markers)]


def uncited_flags(claims: list[Claim], no_info_markers: tuple[str, ...] = ()) -> list[dict]:
    """Draft-level flags for the reviewer: one per claim the model did not tie to a passage."""
    return [{"kind": UNCITED, "step": None, "rule": None, "flag": c.text[:QUOTE_LIMIT]} for c in uncited(claims, no_info_markers)]


def leaf_claims(steps: list[Step], final: Step, hits: list[Hit]) -> list[Claim]:
    """A derivation's steps that take passages as premises (its leaves), as claims citing those passages."""
    claims = []
    for s in subtree(steps, final):
        numbers = [int(p) for p in s.premises if p.isdigit() and 1 <= int(p) <= len(hits)]
        passages = [Passage(n, hits[n - 1].chunk.doc_id, hits[n - 1].chunk.id, " ".join(hits[n - 1].chunk.text.split())[:QUOTE_LIMIT]) for n in numbers]
        if passages:
            claims.append(Claim(" ".join(s.conclusion.split()), passages))
    return claims


def cited_references(claims: list[Claim], hits: list[Hit]) -> list[Reference]:
    """The documents the citations point at, in retrieval order, each with the claims it supports and the passage quoted."""
    refs: dict[str, Reference] = {}
    for h in hits:
        for claim in claims:
            for p in claim.passages:
                if p.chunk_id == h.chunk.id and p.doc_id == h.chunk.doc_id:
                    ref = refs.setdefault(h.chunk.doc_id, Reference.of(h.chunk))
                    link = {"claim": claim.text[:QUOTE_LIMIT], "passage": p.number, "quote": p.quote}
                    if link not in ref.claims:
                        ref.claims.append(link)
    return list(refs.values())


def with_references(body: str, references: list[Reference], lang: str = "es") -> str:
    """The answer followed by the list of documents its citations point at (as format_reply lists them)."""
    return "\n".join([body.rstrip(), *references_section(references, lang)])
