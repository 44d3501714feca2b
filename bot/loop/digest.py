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
    """Judge (when an LLM is configured), build, write the reports and record the week's DigestRun row."""
    settings = services.settings
    judge = judge_from_settings(settings, services.judge_llm, batch=services.batch_runner(services.judge_llm))
    documents = {doc_id: d.get("title") or doc_id for doc_id, d in services.index.documents().items() if d.get("active", True)}
    from bot.learning.gate_retraining import last_report

    with session_scope(services.engine) as session:
        digest = build_digest(session=session, week=week, judge=judge, documents=documents, chunk_text=_chunk_lookup(services), trend_weeks=settings.digest.trend_weeks, gate_retraining=last_report(services))
        md, html = write_report(digest, settings.paths.reports_dir)
        record_run(session=session, digest=digest, md=md, html=html)
    return digest, md, html
