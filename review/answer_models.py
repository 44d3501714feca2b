"""SQLModel entity of the approved-answer memory: staff-approved replies kept for reuse."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Text
from sqlmodel import Field, SQLModel

from review.models import utcnow

ACTIVE, STALE, RETIRED = "active", "stale", "retired"
ANSWER_STATES = (ACTIVE, STALE, RETIRED)


class CuratedAnswerBase(SQLModel):
    question: str = Field(sa_column=Column(Text, nullable=False), description="The student's question, redacted.")
    text: str = Field(sa_column=Column(Text, nullable=False), description="The reply that was sent.")
    approved_by: str = Field(max_length=128)
    approved_at: datetime = Field(default_factory=utcnow, index=True)
    standard: bool = Field(default=False, description="Saved explicitly by staff as a standard answer.")


class CuratedAnswer(CuratedAnswerBase, table=True):
    __tablename__ = "curated_answer"

    id: int | None = Field(default=None, primary_key=True)
    references: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON), description="Cited documents: doc_id, title, url, content_hash.")
    message_id: int | None = Field(default=None, foreign_key="inbound_message.id", index=True)
    draft_id: int | None = Field(default=None, foreign_key="draft.id", index=True)
    state: str = Field(default=ACTIVE, max_length=16, index=True, description="active | stale | retired")
    state_reason: str | None = Field(default=None, sa_column=Column(Text))
    state_changed_at: datetime | None = None
    state_changed_by: str | None = Field(default=None, max_length=128)
    uses: int = Field(default=0, description="Drafts made from this answer.")
    aliases: list[str] = Field(default_factory=list, sa_column=Column(JSON), description="Other (redacted) questions this answer was sent for unchanged: matched too.")
    office: str | None = Field(default=None, index=True, max_length=64, description="The office whose staff approved it (campus mode); None: the default office. Reused only there.")
    version: int = Field(default=1, description="Bumped by each staff edit of the text (earlier texts are kept in the audit).")
