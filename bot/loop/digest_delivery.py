"""Deliver a weekly digest: summary blocks + chart to the Slack review channel, HTML e-mail to the recipients."""

from __future__ import annotations

import logging
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.errors import ConfigurationError
from pipeline.settings import SMTPSettings
from review.charts import summary_chart
from review.report import summary_lines

if TYPE_CHECKING:
    from slack_sdk import WebClient

    from bot.wiring.services import Services
    from review.digest import Digest

log = logging.getLogger(__name__)


@dataclass
class Delivery:
    """Where the digest went."""

    slack_ts: str | None = None
    slack_file: str | None = None
    emailed: list[str] = field(default_factory=list)
    outbox: str | None = None
    skipped: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return self.__dict__.copy()


def summary_blocks(digest: "Digest") -> list[dict[str, Any]]:
    """Block Kit for the digest: a header, the summary lines and a context footer."""
    lines = summary_lines(digest)
    return [
        {"type": "header", "text": {"type": "plain_text", "text": f"Resumen semanal de orienta — {digest.week}"}},
        {"type": "section", "text": {"type": "mrkdwn", "text": "\n".join(f"• {line}" for line in lines[:-1])}},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": f"{lines[-1]} · informe completo en HTML adjunto al correo y en el directorio de informes"}]},
    ]


def post_to_slack(client: "WebClient", channel: str, digest: "Digest") -> tuple[str, str | None]:
    """Post the summary, then upload the chart in its thread; returns (message ts, file id)."""
    text = f"Resumen semanal de orienta — {digest.week}"
    resp = client.chat_postMessage(channel=channel, text=text, blocks=summary_blocks(digest))
    ts = resp["ts"]
    up = client.files_upload_v2(channel=resp.get("channel") or channel, thread_ts=ts, content=summary_chart(digest.as_dict()), filename=f"orienta-{digest.week}.png", title=f"orienta {digest.week}")
    files = up.get("files") or [up.get("file") or {}]
    return ts, (files[0] or {}).get("id")


def build_email(*, from_addr: str, recipients: list[str], digest: "Digest", md: Path, html: Path) -> EmailMessage:
    """Markdown as the text part, the self-contained HTML report as the alternative."""
    msg = EmailMessage()
    msg["From"], msg["To"] = from_addr, ", ".join(recipients)
    msg["Subject"] = f"Resumen semanal de orienta — {digest.week}"
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = make_msgid(domain=parseaddr(from_addr)[1].split("@")[-1] or None)
    msg.set_content(md.read_text(encoding="utf-8"))
    msg.add_alternative(html.read_text(encoding="utf-8"), subtype="html")
    return msg


def send_smtp(settings: SMTPSettings, msg: EmailMessage, *, timeout: float = 30.0) -> None:
    """Send one message over SMTP with the configured security (ssl, starttls, none)."""
    if not settings.host:
        raise ConfigurationError("SMTP is not configured: set ORIENTA_SMTP__HOST")
    context = ssl.create_default_context()
    smtp_cls = smtplib.SMTP_SSL if settings.security == "ssl" else smtplib.SMTP
    kwargs: dict[str, Any] = {"timeout": timeout} | ({"context": context} if settings.security == "ssl" else {})
    with smtp_cls(settings.host, settings.port, **kwargs) as smtp:
        if settings.security == "starttls":
            smtp.starttls(context=context)
        if settings.user and settings.password is not None:
            smtp.login(settings.user, settings.password.get_secret_value())
        smtp.send_message(msg)


def deliver_digest(services: "Services", digest: "Digest", md: Path, html: Path, *, client: "WebClient | None" = None) -> Delivery:
    """Send to whatever is configured; with nothing configured the e-mail goes to the outbox Maildir."""
    s = services.settings
    out = Delivery()
    if s.slack.review_channel and (client is not None or s.slack.bot_token is not None):
        from bot.slack.app import web_client

        out.slack_ts, out.slack_file = post_to_slack(client or web_client(services), s.slack.review_channel, digest)
    else:
        out.skipped.append("slack: no hay canal de revisión ni token del bot configurados (ORIENTA_SLACK__REVIEW_CHANNEL, ORIENTA_SLACK__BOT_TOKEN)")
    recipients = list(s.digest.recipients)
    if not recipients:
        out.skipped.append("correo: no hay destinatarios configurados (ORIENTA_DIGEST__RECIPIENTS)")
        return out
    msg = build_email(from_addr=s.smtp.from_, recipients=recipients, digest=digest, md=md, html=html)
    if s.smtp.host:
        send_smtp(s.smtp, msg)
    else:
        from bot.email.maildir import OutboxMaildir

        OutboxMaildir(s.paths.outbox_dir).deliver(msg)
        out.outbox = str(s.paths.outbox_dir)
    out.emailed = recipients
    return out
