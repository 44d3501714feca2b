"""SQLModel entities (Base / table / Public split) for messages, drafts, decisions, replies and audit events."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, Column, LargeBinary, Text, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


# ---------------------------------------------------------------- inbound messages
class InboundMessageBase(SQLModel):
    channel: str = Field(index=True, description="email | slack")
    source_key: str = Field(index=True, unique=True, max_length=512, description="Where it came from; unique per inbound message.")
    external_id: str | None = Field(default=None, index=True, max_length=998, description="Message-ID or Slack event/ts.")
    thread_ref: str | None = Field(default=None, sa_column=Column(Text), description="References chain or Slack channel:thread_ts.")
    sender: str | None = Field(default=None, max_length=512)
    subject: str | None = Field(default=None, sa_column=Column(Text))
    received_at: datetime = Field(default_factory=utcnow, index=True)
    content_hash: str | None = Field(default=None, index=True, max_length=64)


class InboundMessageCreate(InboundMessageBase):
    raw: bytes | None = None
    body_text: str | None = None
    cleaned_text: str | None = None
    redacted_text: str | None = None
    attachments: list[dict[str, Any]] = []
    state: str = "received"
    reason: str | None = None


class InboundMessage(InboundMessageBase, table=True):
    __tablename__ = "inbound_message"

    id: int | None = Field(default=None, primary_key=True)
    raw: bytes | None = Field(default=None, sa_column=Column(LargeBinary))
    body_text: str | None = Field(default=None, sa_column=Column(Text))
    cleaned_text: str | None = Field(default=None, sa_column=Column(Text))
    redacted_text: str | None = Field(default=None, sa_column=Column(Text))
    attachments: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    state: str = Field(default="received", index=True, max_length=32)
    reason: str | None = Field(default=None, sa_column=Column(Text))
    gate_in_domain: bool | None = None
    gate_score: float | None = None
    version: int = Field(default=1)
    claimed_by: str | None = Field(default=None, max_length=128)
    claimed_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow, index=True)
    updated_at: datetime = Field(default_factory=utcnow)
    redacted_at: datetime | None = None
    conversation_id: int | None = Field(default=None, index=True, description="The first message of its conversation (itself for a new one).")
    follows_id: int | None = Field(default=None, description="The earlier message of the conversation this one follows up.")
    flags: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON), description="What intake noticed for the reviewer (kind, flag), e.g. text hidden in an HTML e-mail.")
    draft_attempts: int = Field(default=0, sa_column_kwargs={"server_default": "0"}, description="Drafting attempts that failed transiently (0: none); reset when drafted.")
    next_attempt_at: datetime | None = Field(default=None, index=True, description="A message waiting after a transient failure is not tried again before this.")
    waiting_since: datetime | None = Field(default=None, description="When the first transient failure of the current wait happened (offline fallback after drafting.offline_fallback_after_s).")
    office: str | None = Field(default=None, index=True, max_length=64, description="The office whose business it is (campus mode); None: the default office.")


class InboundMessagePublic(InboundMessageBase):
    id: int
    state: str
    reason: str | None
    cleaned_text: str | None
    gate_in_domain: bool | None
    gate_score: float | None
    version: int
    created_at: datetime


# ---------------------------------------------------------------- drafts
class DraftBase(SQLModel):
    message_id: int = Field(foreign_key="inbound_message.id", index=True)
    text: str = Field(sa_column=Column(Text, nullable=False))
    method: str = Field(max_length=32)
    model: str = Field(max_length=128)
    no_info: bool = False
    out_of_domain: bool = False
    fallback: bool = Field(default=False, description="Derivation failed and RAG was used instead.")


class DraftCreate(DraftBase):
    references: list[dict[str, Any]] = []
    derivation: list[dict[str, Any]] = []
    flags: list[dict[str, Any]] = []
    chunks: list[dict[str, Any]] = []
    prompt_hash: str | None = None
    usage: dict[str, Any] = {}
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    gate_score: float | None = None
    gate_in_domain: bool | None = None
    context: dict[str, Any] = {}
    gate_outcome: str | None = None
    gate_reasons: list[str] = []


class Draft(DraftBase, table=True):
    __tablename__ = "draft"

    id: int | None = Field(default=None, primary_key=True)
    references: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    derivation: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    flags: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    chunks: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON))
    prompt_hash: str | None = Field(default=None, max_length=64)
    usage: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    gate_score: float | None = None
    gate_in_domain: bool | None = None
    gate_outcome: str | None = Field(default=None, max_length=16, description="answerable | no_info | out_of_domain")
    gate_reasons: list[str] = Field(default_factory=list, sa_column=Column(JSON), description="The features that weighed most in the gate's decision.")
    slack_channel: str | None = Field(default=None, max_length=64)
    slack_ts: str | None = Field(default=None, max_length=64)
    context: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON), description="Earlier turns, standalone query and question parts it was drafted from.")
    created_at: datetime = Field(default_factory=utcnow, index=True)


class DraftPublic(DraftBase):
    id: int
    references: list[dict[str, Any]]
    derivation: list[dict[str, Any]]
    flags: list[dict[str, Any]]
    prompt_hash: str | None
    cost_usd: float
    latency_ms: float
    gate_score: float | None
    created_at: datetime


# ---------------------------------------------------------------- decisions
class DecisionBase(SQLModel):
    message_id: int = Field(foreign_key="inbound_message.id", index=True)
    draft_id: int = Field(foreign_key="draft.id", index=True)
    action: str = Field(max_length=16, description="approve | edit | reject")
    actor: str = Field(max_length=128, index=True)
    reason: str | None = Field(default=None, max_length=64)
    comment: str | None = Field(default=None, sa_column=Column(Text))
    final_text: str | None = Field(default=None, sa_column=Column(Text))


class Decision(DecisionBase, table=True):
    __tablename__ = "decision"
    __table_args__ = (UniqueConstraint("message_id", name="uq_decision_message"),)

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)


class DecisionPublic(DecisionBase):
    id: int
    created_at: datetime


# ---------------------------------------------------------------- outgoing replies (outbox)
class OutgoingReplyBase(SQLModel):
    message_id: int = Field(foreign_key="inbound_message.id", index=True, unique=True)
    draft_id: int = Field(foreign_key="draft.id")
    channel: str = Field(max_length=16)
    recipient: str | None = Field(default=None, max_length=512)
    subject: str | None = Field(default=None, sa_column=Column(Text))
    body: str = Field(sa_column=Column(Text, nullable=False))
    our_message_id: str | None = Field(default=None, max_length=998, index=True)
    in_reply_to: str | None = Field(default=None, sa_column=Column(Text))
    references_header: str | None = Field(default=None, sa_column=Column(Text))


class OutgoingReply(OutgoingReplyBase, table=True):
    __tablename__ = "outgoing_reply"

    id: int | None = Field(default=None, primary_key=True)
    state: str = Field(default="pending", max_length=16, index=True, description="pending | sending | sent | failed")
    attempts: int = 0
    last_error: str | None = Field(default=None, sa_column=Column(Text))
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None


# ---------------------------------------------------------------- audit trail
class AuditEvent(SQLModel, table=True):
    __tablename__ = "audit_event"

    id: int | None = Field(default=None, primary_key=True)
    message_id: int | None = Field(default=None, foreign_key="inbound_message.id", index=True)
    actor: str = Field(max_length=128)
    event: str = Field(max_length=64, index=True)
    from_state: str | None = Field(default=None, max_length=32)
    to_state: str | None = Field(default=None, max_length=32)
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    at: datetime = Field(default_factory=utcnow, index=True)


# ---------------------------------------------------------------- channel checkpoints and digests
class MailboxCheckpoint(SQLModel, table=True):
    __tablename__ = "mailbox_checkpoint"

    account: str = Field(primary_key=True, max_length=256)
    mailbox: str = Field(primary_key=True, max_length=256)
    uidvalidity: int | None = None
    last_uid: int = 0
    updated_at: datetime = Field(default_factory=utcnow)


class DigestRun(SQLModel, table=True):
    __tablename__ = "digest_run"

    iso_week: str = Field(primary_key=True, max_length=8)
    created_at: datetime = Field(default_factory=utcnow)
    figures: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    markdown_path: str | None = None
    html_path: str | None = None
    sent_at: datetime | None = None
