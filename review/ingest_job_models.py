"""SQLModel entity of a background ingestion job: what it indexes, how far it got, and how it ended."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Text
from sqlmodel import Field, SQLModel

from review.models import utcnow

JOB_STATES = ("queued", "running", "done", "failed", "interrupted")


class IngestJob(SQLModel, table=True):
    __tablename__ = "ingest_job"

    id: int | None = Field(default=None, primary_key=True)
    state: str = Field(default="queued", index=True, max_length=16, description="queued | running | done | failed | interrupted")
    actor: str = Field(default="", max_length=128, description="Who started it (cli:user, console:email).")
    office: str | None = Field(default=None, max_length=64)
    paths: list[str] = Field(default_factory=list, sa_column=Column(JSON), description="Files or folders (empty: the configured folders).")
    reset: bool = False
    pid: int | None = Field(default=None, description="The process running it (to tell a killed job from a running one).")
    host: str | None = Field(default=None, max_length=255)
    phase: str = Field(default="", max_length=16, description="reading | writing | done")
    docs_total: int = 0
    docs_done: int = 0
    chunks_total: int = 0
    chunks_done: int = 0
    current: str | None = Field(default=None, sa_column=Column(Text), description="The file being read or written.")
    report: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON), description="IngestReport.as_dict() when it ended.")
    error: str | None = Field(default=None, sa_column=Column(Text))
    created_at: datetime = Field(default_factory=utcnow, index=True)
    started_at: datetime | None = None
    updated_at: datetime | None = None
    finished_at: datetime | None = None
