"""Build one week's digest with everything Services can provide: the judge, the document list, chunk texts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from review.db import session_scope
from review.digest import Digest, build_digest, record_run, write_report
from review.judge import judge_from_settings

if TYPE_CHECKING:
    from bot.wiring.services import Services


def _chunk_lookup(services: "Services"):
    cache: dict[str, str] = {}

    def lookup(ids: Sequence[str]) -> dict[str, str]:
        if not cache:
            cache.update({c.id: c.text for c, _ in services.index.all_chunks()})
        return {i: cache[i] for i in ids if i in cache}

    return lookup


def build_and_record(services: "Services", week: str) -> tuple[Digest, Path, Path]:
    """Judge (when an LLM is configured), build, write the reports and record the week's DigestRun row.

    Campus mode: an office's services build that office's digest (its messages only, its reports folder; the week's
    DigestRun row stays the campus's); the default services build the campus lead's, over every office."""
    settings = services.settings
    judge = judge_from_settings(settings, services.judge_llm, batch=services.batch_runner(services.judge_llm))
    documents = {doc_id: d.get("title") or doc_id for doc_id, d in services.index.documents().items() if d.get("active", True)}
    from bot.learning.gate_retraining import last_report

    office = services.office
    with session_scope(services.engine) as session:
        digest = build_digest(
            session=session, week=week, judge=judge, documents=documents, chunk_text=_chunk_lookup(services), trend_weeks=0 if office else settings.digest.trend_weeks,
            gate_retraining=last_report(services), offices=None if office is None else [office],
        )
        digest.office = office
        md, html = write_report(digest, settings.paths.reports_dir)
        if office is None:
            record_run(session=session, digest=digest, md=md, html=html)
    return digest, md, html


def build_office_digests(services: "Services", week: str, *, deliver=None) -> dict[str, tuple[Path, Path]]:
    """Campus mode: each office's own digest of `week` (written to its reports folder, then `deliver(office services,
    digest, md, html)` when given: its review channel, its reply address); {} for one office. Never raises."""
    import logging

    from bot.wiring.campus import campus_of

    campus = campus_of(services)
    if not campus.is_campus():
        return {}
    out = {}
    for office in campus.offices():
        if office.default:
            continue
        try:
            scoped = campus.office_services(office.name)
            digest, md, html = build_and_record(scoped, week)
            out[office.name] = (md, html)
            if deliver is not None:
                deliver(scoped, digest, md, html)
        except Exception:  # the edge: one office's digest failing must not stop the campus's
            logging.getLogger(__name__).exception("the digest of office %s for %s failed", office.name, week)
    return out
