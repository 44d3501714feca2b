"""SQLModel entity of an office of a campus deployment (Base / table / Public split)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, Text
from sqlmodel import Field, SQLModel

from review.models import utcnow


class OfficeBase(SQLModel):
    name: str = Field(index=True, unique=True, max_length=64, description="As staff call it (\"Becas y Bienestar\").")
    slug: str = Field(index=True, unique=True, max_length=64, description="File- and collection-safe name.")
    review_channel: str | None = Field(default=None, max_length=64)
    mailbox: str | None = Field(default=None, max_length=512)
    reply_from: str | None = Field(default=None, sa_column=Column(Text))
    retention_days: int | None = Field(default=None, ge=1, description="Its messages' personal data are deleted after this many days (unset: the deployment's).")


class OfficeCreate(OfficeBase):
    documents: list[str] = []
    channels: list[str] = []
    reviewers: list[str] = []


class Office(OfficeBase, table=True):
    __tablename__ = "office"

    id: int | None = Field(default=None, primary_key=True)
    documents: list[str] = Field(default_factory=list, sa_column=Column(JSON), description="Its document folders or files.")
    channels: list[str] = Field(default_factory=list, sa_column=Column(JSON), description="Slack channels whose messages are its.")
    reviewers: list[str] = Field(default_factory=list, sa_column=Column(JSON), description="Slack user ids of its reviewers.")
    created_at: datetime = Field(default_factory=utcnow)
    removed_at: datetime | None = Field(default=None, description="Set when the office is removed; its messages stay, listed for the campus lead.")


class OfficePublic(OfficeBase):
    id: int
    documents: list[str]
    channels: list[str]
    created_at: datetime
    removed_at: datetime | None
