"""`orienta doctor`: every dependency of a deployment checked once, read-only: nothing is sent, migrated or created."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.services import Services

log = logging.getLogger(__name__)
MANIFEST = Path(__file__).with_name("slack") / "manifest.yml"


@dataclass(frozen=True)
class Finding:
    check: str
    ok: bool
    detail: str

    def as_dict(self) -> dict:
        return {"check": self.check, "ok": self.ok, "detail": self.detail}


def check_config(svc: "Services") -> tuple[bool, str]:
    s = svc.settings
    data_dir = s.paths.data_dir
    if not data_dir.is_dir():
        return False, f"data dir {data_dir} does not exist"
    probe = data_dir / ".doctor-write-test"
    try:
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        return False, f"data dir {data_dir} is not writable: {exc}"
    missing = [str(p) for p in s.paths.documents if not Path(p).exists()]
    if missing:
        return False, f"document folders missing: {', '.join(missing)}"
    parts = [
        f"data dir {data_dir}",
        f"database {'server' if s.database.url else 'SQLite'}",
        f"Qdrant {'server' if s.qdrant.url else 'local'}",
        f"embedder {s.embedding.backend}:{s.embedding.model}",
        f"IMAP {'on' if s.imap.host else 'off'}",
        f"SMTP {'on' if s.smtp.host else 'off'}",
        f"Slack {'socket mode' if s.slack.socket_mode else 'HTTP' if s.slack.bot_token else 'off'}",
    ]
    return True, ", ".join(parts)


def check_database(svc: "Services") -> tuple[bool, str]:
    """Connect and compare the schema's Alembic revision with the packaged head (without migrating)."""
    from alembic.script import ScriptDirectory

    from review.db import _current_revision, alembic_config, make_engine

    url = svc.settings.database_url
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        return False, f"no SQLite database at {url.removeprefix('sqlite:///')} yet (`orienta ingest` or `orienta run` creates it)"
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            current = _current_revision(conn)
        head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    finally:
        engine.dispose()
    where = f"{engine.dialect.name} {engine.url.render_as_string(hide_password=True)}"
    if current != head:
        return False, f"{where}: schema at {current or 'no revision'}, code expects {head} (`orienta run` migrates at start)"
    return True, f"{where}: migrations at head ({head})"


def check_qdrant(svc: "Services") -> tuple[bool, str]:
    """Server version (servers only), the collection, and its dense vector size against the embedder's."""
    from pipeline.index import DENSE, SPARSE, check_server_version

    s = svc.settings
    index = svc.index
    where = f"server {s.qdrant.url}" if s.qdrant.url else f"local {s.paths.qdrant_dir}"
    if not s.qdrant.url and not s.paths.qdrant_dir.is_dir():
        return False, f"{where}: no index yet (run `orienta ingest`)"
    client = index.client  # a server older than the minimum is refused here, naming the minimum
    version = f"v{check_server_version(client)}, " if s.qdrant.url else ""
    if not client.collection_exists(s.qdrant.collection):
        return False, f"{where}: {version}no collection {s.qdrant.collection!r} yet (run `orienta ingest`)"
    params = client.get_collection(s.qdrant.collection).config.params
    vectors = params.vectors if isinstance(params.vectors, dict) else {}
    have = vectors[DENSE].size if DENSE in vectors else None
    want = svc.embedder.dim
    if have != want or SPARSE not in (params.sparse_vectors or {}):
        return False, f"{where}: collection {s.qdrant.collection!r} has dense size {have}, the embedder gives {want} (run `orienta ingest --reset`)"
    return True, f"{where}: {version}collection {s.qdrant.collection!r}, {index.count()} chunks, dense size {have} = embedder"


def check_mailbox(svc: "Services") -> tuple[bool, str]:
    """Log in, select the inbox read-only (UIDVALIDITY, message count) and find the Sent folder when copies go there."""
    from bot.email.imap import connect

    s = svc.settings
    if not s.imap.host:
        maildir = s.paths.maildir
        if maildir is None:
            return True, "no mailbox configured (ORIENTA_IMAP__HOST unset)"
        return maildir.is_dir(), f"embedded Maildir {maildir}" + ("" if maildir.is_dir() else " does not exist")
    conn = connect(s.imap)
    try:
        typ, data = conn.select(f'"{s.imap.mailbox}"', readonly=True)
        if typ != "OK":
            return False, f"{s.imap.account}: folder {s.imap.mailbox!r} cannot be opened: {data!r}"
        exists = int(data[0]) if data and data[0] else 0
        _, uv = conn.response("UIDVALIDITY")
        uidvalidity = uv[0].decode() if uv and uv[0] else "?"
        detail = f"{s.imap.account} ({s.imap.security}, {s.imap.auth}): {s.imap.mailbox} UIDVALIDITY {uidvalidity}, {exists} messages"
        if s.smtp.host and s.smtp.append_to_sent:
            typ, found = conn.list('""', f'"{s.imap.sent_mailbox}"')
            if typ != "OK" or not [f for f in found if f]:
                return False, f"{detail}; Sent folder {s.imap.sent_mailbox!r} not found (ORIENTA_IMAP__SENT_MAILBOX)"
            detail += f"; Sent folder {s.imap.sent_mailbox!r} present"
        return True, detail
    finally:
        try:
            conn.logout()
        except Exception:  # noqa: BLE001 - the check is done; a failed goodbye changes nothing
            pass


def check_smtp(svc: "Services") -> tuple[bool, str]:
    """Connect, EHLO, TLS and authenticate as configured, then QUIT: no mail is sent."""
    from bot.email.smtp import SmtpSender

    s = svc.settings
    if not s.smtp.host:
        return True, f"no SMTP server configured: replies go to the outbox Maildir {s.paths.outbox_dir}"
    client = SmtpSender(s.smtp, s.imap)._open()
    try:
        client.ehlo_or_helo_if_needed()
        name = (client.ehlo_resp or b"").decode(errors="replace").splitlines()[0] if client.ehlo_resp else "?"
        auth = "XOAUTH2" if s.smtp.auth == "xoauth2" else "password" if s.smtp.user else "no auth"
        return True, f"{s.smtp.host}:{s.smtp.port} ({s.smtp.security}, {auth}): {name}"
    finally:
        try:
            client.quit()
        except Exception:  # noqa: BLE001
            client.close()


def manifest_scopes(path: Path = MANIFEST) -> set[str]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return set(data["oauth_config"]["scopes"]["bot"])


def check_slack(svc: "Services") -> tuple[bool, str]:
    """auth.test, the token's scopes against bot/slack/manifest.yml, and the review channel."""
    from slack_sdk.errors import SlackApiError

    from bot.slack.app import web_client

    s = svc.settings.slack
    if s.bot_token is None:
        return True, "Slack not configured (ORIENTA_SLACK__BOT_TOKEN unset)"
    client = web_client(svc)
    try:
        auth = client.auth_test()
    except SlackApiError as exc:
        return False, f"auth.test refused the bot token: {exc.response.get('error')}"
    granted = {x.strip() for x in (auth.headers.get("x-oauth-scopes") or auth.headers.get("X-OAuth-Scopes") or "").split(",") if x.strip()}
    missing = sorted(manifest_scopes() - granted)
    detail = f"team {auth.get('team')}, bot {auth.get('user_id')}"
    if missing:
        return False, f"{detail}; the token lacks scopes of bot/slack/manifest.yml: {', '.join(missing)} (reinstall the app from the manifest)"
    if s.socket_mode and s.app_token is None:
        return False, f"{detail}; socket mode needs ORIENTA_SLACK__APP_TOKEN (xapp-...)"
    if not s.review_channel:
        return False, f"{detail}; ORIENTA_SLACK__REVIEW_CHANNEL is unset: review cards have nowhere to go"
    try:
        channel = client.conversations_info(channel=s.review_channel)["channel"]
    except SlackApiError as exc:
        return False, f"{detail}; review channel {s.review_channel}: {exc.response.get('error')}"
    if channel.get("is_archived"):
        return False, f"{detail}; review channel {s.review_channel} is archived"
    if channel.get("is_member") is False:
        return False, f"{detail}; the bot is not a member of review channel {s.review_channel} (/invite @orienta there)"
    return True, f"{detail}; scopes match the manifest; review channel #{channel.get('name', s.review_channel)}"


def check_llm(svc: "Services", *, call: bool = False) -> tuple[bool, str]:
    """The drafting/judge/synthetic models known and not deprecated or retired; one tiny call when asked."""
    from pipeline.llm import provider_of, role_model
    from pipeline.llm.models import ModelRetired, check_model, model_info

    llm = svc.settings.llm
    provider = provider_of(llm)
    if provider == "extractive":
        return True, "no LLM configured: offline extractive drafts (set ANTHROPIC_API_KEY for Claude)"
    models = sorted({role_model(llm, role) for role in ("draft", "judge", "synthetic")})
    problems: list[str] = []
    if provider == "anthropic":
        for model in models:
            if not model_info(model).known:
                problems.append(f"{model} is not in the models table (pipeline/llm/models.toml)")
                continue
            try:
                warning = check_model(model)
            except ModelRetired as exc:
                problems.append(str(exc))
                continue
            if warning:
                problems.append(warning)
    if problems:
        return False, "; ".join(problems)
    detail = f"{provider}: {', '.join(models)}"
    if not call:
        return True, detail + " (no call made; --llm-call tries one)"
    response = svc.llm.complete(system="Respondé con una sola palabra.", user="¿Funciona? Respondé OK.", max_tokens=1024)  # type: ignore[union-attr]
    return True, f"{detail}; one call: {response.usage.input_tokens}+{response.usage.output_tokens} tokens, {response.latency_ms:.0f} ms, stop {response.stop_reason}"


def check_gate(svc: "Services") -> tuple[bool, str]:
    from classifiers.errors import GateNotTrained

    if not svc.settings.gate.enabled:
        return True, "gate disabled (ORIENTA_GATE__ENABLED=false)"
    try:
        gate = svc.gate
    except GateNotTrained:
        return False, "not trained: run `orienta gate train`"
    if gate.is_stale(svc.corpus_hash()):
        return False, f"stale: the documents changed since it was trained ({gate.model}); run `orienta gate train`"
    return True, f"trained on the current documents ({gate.model}, {gate.features}, threshold {gate.threshold:.3f})"


def check_disk(svc: "Services") -> tuple[bool, str]:
    path = svc.settings.paths.data_dir
    while not path.exists() and path != path.parent:
        path = path.parent
    free_mb = shutil.disk_usage(path).free / 2**20
    need = svc.settings.ops.min_free_disk_mb
    return free_mb >= need, f"{free_mb:,.0f} MB free in {path} (minimum {need} MB, ORIENTA_OPS__MIN_FREE_DISK_MB)"


def checks(*, llm_call: bool = False) -> list[tuple[str, Callable[["Services"], tuple[bool, str]]]]:
    return [
        ("config", check_config),
        ("database", check_database),
        ("qdrant", check_qdrant),
        ("mailbox", check_mailbox),
        ("smtp", check_smtp),
        ("slack", check_slack),
        ("llm", lambda svc: check_llm(svc, call=llm_call)),
        ("gate", check_gate),
        ("disk", check_disk),
    ]


def run_doctor(svc: "Services", *, llm_call: bool = False) -> list[Finding]:
    """Every check in order; a check that raises fails with the error's first line (secrets never appear in it)."""
    findings = []
    for name, fn in checks(llm_call=llm_call):
        try:
            ok, detail = fn(svc)
        except Exception as exc:  # noqa: BLE001 - a doctor reports every failure and goes on
            log.debug("doctor check %s failed", name, exc_info=True)
            text = str(exc).splitlines()[0] if str(exc) else ""
            ok, detail = False, f"{type(exc).__name__}: {text}"
        findings.append(Finding(name, bool(ok), detail))
    return findings
