"""`orienta doctor`: every dependency of a deployment checked once, read-only: nothing is sent, migrated or created."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.wiring.services import Services

log = logging.getLogger(__name__)
MANIFEST = Path(__file__).resolve().parents[1] / "slack" / "manifest.yml"  # bot/slack/manifest.yml


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
        return False, f"la carpeta de datos {data_dir} no existe"
    probe = data_dir / ".doctor-write-test"
    try:
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        return False, f"no se puede escribir en la carpeta de datos {data_dir}: {exc}"
    missing = [str(p) for p in s.paths.documents if not Path(p).exists()]
    if missing:
        return False, f"faltan carpetas de documentos: {', '.join(missing)}"
    parts = [
        f"carpeta de datos {data_dir}",
        f"base de datos {'en servidor' if s.database.url else 'SQLite'}",
        f"Qdrant {'en servidor' if s.qdrant.url else 'local'}",
        f"embedder {s.embedding.backend}:{s.embedding.model}",
        f"IMAP {'sí' if s.imap.host else 'no'}",
        f"SMTP {'sí' if s.smtp.host else 'no'}",
        f"Slack {'socket mode' if s.slack.socket_mode else 'HTTP' if s.slack.bot_token else 'no'}",
    ]
    return True, ", ".join(parts)


def check_database(svc: "Services") -> tuple[bool, str]:
    """Connect and compare the schema's Alembic revision with the packaged head (without migrating)."""
    from alembic.script import ScriptDirectory

    from review.db import _current_revision, alembic_config, make_engine

    url = svc.settings.database_url
    if url.startswith("sqlite:///") and not Path(url.removeprefix("sqlite:///")).exists():
        return False, f"todavía no hay base SQLite en {url.removeprefix('sqlite:///')} (`orienta ingest` u `orienta run` la crean)"
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            current = _current_revision(conn)
        head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    finally:
        engine.dispose()
    where = f"{engine.dialect.name} {engine.url.render_as_string(hide_password=True)}"
    if current != head:
        return False, f"{where}: esquema en {current or 'ninguna revisión'}, el código espera {head} (`orienta run` migra al arrancar)"
    return True, f"{where}: migraciones al día ({head})"


def check_qdrant(svc: "Services") -> tuple[bool, str]:
    """Server version (servers only), the collection, and its dense vector size against the embedder's."""
    from pipeline.index import DENSE, SPARSE, check_server_version

    s = svc.settings
    index = svc.index
    where = f"servidor {s.qdrant.url}" if s.qdrant.url else f"local {s.paths.qdrant_dir}"
    if not s.qdrant.url and not s.paths.qdrant_dir.is_dir():
        return False, f"{where}: todavía no hay índice (corré `orienta ingest`)"
    client = index.client  # a server older than the minimum is refused here, naming the minimum
    version = f"v{check_server_version(client)}, " if s.qdrant.url else ""
    if not client.collection_exists(s.qdrant.collection):
        return False, f"{where}: {version}todavía no existe la colección {s.qdrant.collection!r} (corré `orienta ingest`)"
    params = client.get_collection(s.qdrant.collection).config.params
    vectors = params.vectors if isinstance(params.vectors, dict) else {}
    have = vectors[DENSE].size if DENSE in vectors else None
    want = svc.embedder.dim
    if have != want or SPARSE not in (params.sparse_vectors or {}):
        return False, f"{where}: la colección {s.qdrant.collection!r} tiene vectores densos de {have}, el embedder da {want} (corré `orienta ingest --reset`)"
    return True, f"{where}: {version}colección {s.qdrant.collection!r}, {index.count()} fragmentos, vectores densos de {have} = embedder"


def check_mailbox(svc: "Services") -> tuple[bool, str]:
    """Log in, select the inbox read-only (UIDVALIDITY, message count) and find the Sent folder when copies go there."""
    from bot.email.imap import connect

    s = svc.settings
    if not s.imap.host:
        maildir = s.paths.maildir
        if maildir is None:
            return True, "sin buzón configurado (ORIENTA_IMAP__HOST sin definir)"
        return maildir.is_dir(), f"Maildir local {maildir}" + ("" if maildir.is_dir() else " no existe")
    conn = connect(s.imap)
    try:
        typ, data = conn.select(f'"{s.imap.mailbox}"', readonly=True)
        if typ != "OK":
            return False, f"{s.imap.account}: no se puede abrir la carpeta {s.imap.mailbox!r}: {data!r}"
        exists = int(data[0]) if data and data[0] else 0
        _, uv = conn.response("UIDVALIDITY")
        uidvalidity = uv[0].decode() if uv and uv[0] else "?"
        detail = f"{s.imap.account} ({s.imap.security}, {s.imap.auth}): {s.imap.mailbox} UIDVALIDITY {uidvalidity}, {exists} mensajes"
        if s.smtp.host and s.smtp.append_to_sent:
            typ, found = conn.list('""', f'"{s.imap.sent_mailbox}"')
            if typ != "OK" or not [f for f in found if f]:
                return False, f"{detail}; no se encontró la carpeta de enviados {s.imap.sent_mailbox!r} (ORIENTA_IMAP__SENT_MAILBOX)"
            detail += f"; carpeta de enviados {s.imap.sent_mailbox!r} presente"
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
        return True, f"sin servidor SMTP: las respuestas van al Maildir de salida {s.paths.outbox_dir}"
    client = SmtpSender(s.smtp, s.imap)._open()
    try:
        client.ehlo_or_helo_if_needed()
        name = (client.ehlo_resp or b"").decode(errors="replace").splitlines()[0] if client.ehlo_resp else "?"
        auth = "XOAUTH2" if s.smtp.auth == "xoauth2" else "contraseña" if s.smtp.user else "sin autenticación"
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
        return True, "Slack sin configurar (ORIENTA_SLACK__BOT_TOKEN sin definir)"
    client = web_client(svc)
    try:
        auth = client.auth_test()
    except SlackApiError as exc:
        return False, f"auth.test rechazó el token del bot: {exc.response.get('error')}"
    granted = {x.strip() for x in (auth.headers.get("x-oauth-scopes") or auth.headers.get("X-OAuth-Scopes") or "").split(",") if x.strip()}
    missing = sorted(manifest_scopes() - granted)
    detail = f"equipo {auth.get('team')}, bot {auth.get('user_id')}"
    if missing:
        return False, f"{detail}; al token le faltan scopes de bot/slack/manifest.yml: {', '.join(missing)} (reinstalá la app desde el manifiesto)"
    if s.socket_mode and s.app_token is None:
        return False, f"{detail}; socket mode necesita ORIENTA_SLACK__APP_TOKEN (xapp-...)"
    if not s.review_channel:
        return False, f"{detail}; ORIENTA_SLACK__REVIEW_CHANNEL sin definir: las tarjetas de revisión no tienen adónde ir"
    try:
        channel = client.conversations_info(channel=s.review_channel)["channel"]
    except SlackApiError as exc:
        return False, f"{detail}; canal de revisión {s.review_channel}: {exc.response.get('error')}"
    if channel.get("is_archived"):
        return False, f"{detail}; el canal de revisión {s.review_channel} está archivado"
    if channel.get("is_member") is False:
        return False, f"{detail}; el bot no es miembro del canal de revisión {s.review_channel} (/invite @orienta en ese canal)"
    return True, f"{detail}; scopes iguales a los del manifiesto; canal de revisión #{channel.get('name', s.review_channel)}"


def check_llm(svc: "Services", *, call: bool = False) -> tuple[bool, str]:
    """The drafting/judge/synthetic models known and not deprecated or retired; one tiny call when asked."""
    from pipeline.llm import provider_of, role_model
    from pipeline.llm.models import ModelRetired, check_model, model_info

    llm = svc.settings.llm
    provider = provider_of(llm)
    if provider == "extractive":
        return True, "sin LLM: borradores extractivos sin conexión (definí ANTHROPIC_API_KEY para Claude)"
    models = sorted({role_model(llm, role) for role in ("draft", "judge", "synthetic")})
    problems: list[str] = []
    if provider == "anthropic":
        for model in models:
            if not model_info(model).known:
                problems.append(f"{model} no está en la tabla de modelos (pipeline/llm/models.toml)")
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
        return True, detail + " (sin llamada; --llm-call prueba una)"
    response = svc.llm.complete(system="Respondé con una sola palabra.", user="¿Funciona? Respondé OK.", max_tokens=1024)  # type: ignore[union-attr]
    return True, f"{detail}; una llamada: {response.usage.input_tokens}+{response.usage.output_tokens} tokens, {response.latency_ms:.0f} ms, fin {response.stop_reason}"


def check_gate(svc: "Services") -> tuple[bool, str]:
    from classifiers.errors import GateNotTrained

    if not svc.settings.gate.enabled:
        return True, "gate desactivado (ORIENTA_GATE__ENABLED=false)"
    try:
        gate = svc.gate
    except GateNotTrained:
        return False, "sin entrenar: corré `orienta gate train`"
    if gate.is_stale(svc.corpus_hash()):
        return False, f"desactualizado: los documentos cambiaron desde que se entrenó ({gate.model}); corré `orienta gate train`"
    return True, f"entrenado con los documentos actuales ({gate.model}, {gate.features}, umbral {gate.threshold:.3f})"


def check_disk(svc: "Services") -> tuple[bool, str]:
    path = svc.settings.paths.data_dir
    while not path.exists() and path != path.parent:
        path = path.parent
    free_mb = shutil.disk_usage(path).free / 2**20
    need = svc.settings.ops.min_free_disk_mb
    return free_mb >= need, f"{free_mb:,.0f} MB libres en {path} (mínimo {need} MB, ORIENTA_OPS__MIN_FREE_DISK_MB)"


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
            ok, detail = False, f"falló de forma inesperada ({type(exc).__name__}: {text})"
        findings.append(Finding(name, bool(ok), detail))
    return findings
