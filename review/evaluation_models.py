"""SQLModel tables of the answer evaluation: judge scores of drafts and the cache of `orienta eval answers`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from review.models import utcnow

SCORED, NOT_SCORED = "scored", "not_scored"
CORRECTNESS, FAITHFULNESS, RELEVANCE = "correctness", "faithfulness", "relevance"


class JudgeScoreBase(SQLModel):
    draft_id: int = Field(foreign_key="draft.id", index=True)
    kind: str = Field(max_length=16, description="correctness | faithfulness | relevance")
    status: str = Field(default=SCORED, max_length=16, description="scored | not_scored (never NaN, never dropped)")
    score: float | None = Field(default=None, description="1-5 for correctness and relevance; 0-1 for faithfulness")
    justification: str | None = Field(default=None, sa_column=Column(Text))
    runs: list[float] = Field(default_factory=list, sa_column=Column(JSON))
    spread: float | None = None
    reference_hash: str | None = Field(default=None, max_length=16, description="Hash of the reference the score was given against.")
    model: str | None = Field(default=None, max_length=128)
    prompt_hash: str | None = Field(default=None, max_length=16)
    cost_usd: float = 0.0
    error: str | None = Field(default=None, sa_column=Column(Text))


class JudgeScore(JudgeScoreBase, table=True):
    """One judgement of one draft on one dimension; rescoring replaces it."""

    __tablename__ = "judge_score"
    __table_args__ = (UniqueConstraint("draft_id", "kind", name="uq_judge_score_draft_kind"),)

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)


class AnswerEvalCache(SQLModel, table=True):
    """One evaluated question under one configuration; the key hashes everything that changes the result."""

    __tablename__ = "answer_eval_cache"

    key: str = Field(primary_key=True, max_length=64)
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    question: str = Field(sa_column=Column(Text, nullable=False))
    result: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    created_at: datetime = Field(default_factory=utcnow)
