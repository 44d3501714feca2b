"""Parse raw e-mail with the standard library (policy.default) into what orienta needs."""

from __future__ import annotations

import email
import codecs
import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email import errors, policy
from email.message import EmailMessage
from email.utils import getaddresses, parsedate_to_datetime

from bot.email.autoreply import automatic_reason
from bot.email.html_body import html_to_text, visible_text  # noqa: F401  (html_to_text: public name kept here)
from bot.errors import MalformedMessage
from review.safe_text import db_safe

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
_BROKEN_MIME = (errors.StartBoundaryNotFoundDefect, errors.NoBoundaryInMultipartDefect, errors.MultipartInvariantViolationDefect, errors.CloseBoundaryNotFoundDefect)


@dataclass
class ParsedEmail:
    """The parts of an inbound e-mail that orienta uses."""

    message_id: str | None
    sender: str | None
    sender_name: str | None
    subject: str
    date: datetime | None
    in_reply_to: str | None
    references: str | None
    body_text: str
    headers: dict[str, str]
    attachments: list[dict] = field(default_factory=list)
    return_path: str | None = None
    hidden_text: list[dict] = field(default_factory=list)  # text the HTML hid from the reader (kind, snippet): flagged, not in body_text
    mime_defects: list[str] = field(default_factory=list)  # a broken MIME structure whose text could still be read (flagged)

    @property
    def thread_ref(self) -> str | None:
        return self.references or self.in_reply_to


def content_hash(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _single_byte_latin(charset: str) -> bool:
    try:
        name = codecs.lookup(charset).name
    except LookupError:
        return False
    return name in ("latin-1", "iso8859-1", "cp1252", "iso8859-15", "iso8859-9", "mac-roman", "cp850")


def _decode_part(part: EmailMessage) -> str:
    """Text of a part, tolerant of wrong or missing charset declarations."""
    payload = part.get_payload(decode=True) or b""
    declared = part.get_content_charset() or "utf-8"
    if _single_byte_latin(declared) and not payload.isascii():
        try:  # UTF-8 declared as Latin-1 (a common client bug): Latin-1 text with accents is almost never valid UTF-8
            return payload.decode("utf-8")
        except UnicodeDecodeError:
            pass
    for charset in (declared, "utf-8", "cp1252", "latin-1"):
        try:
            return payload.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("utf-8", errors="replace")


def _body(msg: EmailMessage) -> tuple[str, list[dict], list[dict]]:
    """(text, attachments, hidden text): the plain part, or the HTML's visible text when there is no plain part or the HTML hides text."""
    attachments: list[dict] = []
    plain: list[str] = []
    html: list[str] = []
    parts = msg.walk() if msg.is_multipart() else [msg]
    for part in parts:
        if part.is_multipart():
            continue
        ctype = part.get_content_type()
        disposition = part.get_content_disposition()
        filename = part.get_filename()
        if disposition == "attachment" or (filename and ctype not in ("text/plain", "text/html")):
            payload = part.get_payload(decode=True) or b""
            attachments.append({"name": filename or "(sin nombre)", "type": ctype, "size": len(payload)})
            continue
        if ctype == "text/plain":
            plain.append(_decode_part(part))
        elif ctype == "text/html":
            html.append(_decode_part(part))
        elif ctype in ("message/delivery-status", "message/rfc822"):
            continue
    rendered = [visible_text(h) for h in html]
    hidden = [h for r in rendered for h in r.hidden]
    if any(p.strip() for p in plain) and not (hidden and any(r.text.strip() for r in rendered)):
        return "\n\n".join(p.strip() for p in plain), attachments, hidden  # the plain part could carry what the HTML hides: then the HTML is read
    if rendered:
        return "\n\n".join(r.text for r in rendered), attachments, hidden
    return "", attachments, hidden


def _clean_header(value: object) -> str:
    return re.sub(r"\s+", " ", str(value or "")).strip()


def parse_email(raw: bytes, *, max_bytes: int = DEFAULT_MAX_BYTES) -> ParsedEmail:
    """Parse raw bytes; raise MalformedMessage with a reason when it is not a usable e-mail."""
    if not raw or not raw.strip():
        raise MalformedMessage("empty message")
    if len(raw) > max_bytes:
        raise MalformedMessage(f"message too large ({len(raw)} bytes > {max_bytes})")
    try:
        msg = email.message_from_bytes(raw, policy=policy.default)
        headers = {k.lower(): db_safe(_clean_header(v)) for k, v in msg.items()}
    except Exception as exc:  # the parser and header registry raise many kinds of errors on garbage
        raise MalformedMessage(f"unparseable message: {type(exc).__name__}: {exc}") from exc
    if not headers.get("from"):
        raise MalformedMessage("no From header")
    if len(msg.get_all("from") or []) > 1:
        raise MalformedMessage("more than one From header (the reply address is ambiguous)")
    try:
        addresses = getaddresses([headers["from"]])
    except Exception as exc:
        raise MalformedMessage(f"unparseable From header: {exc}") from exc
    name, addr = addresses[0] if addresses else ("", "")
    if len([a for _, a in addresses if a]) > 1:
        raise MalformedMessage("more than one address in the From header (the reply address is ambiguous)")
    if "@" not in addr:
        raise MalformedMessage(f"From header has no address: {headers['from'][:80]!r}")
    try:
        body, attachments, hidden = _body(msg)  # type: ignore[arg-type]
        body = db_safe(body)
    except Exception as exc:
        raise MalformedMessage(f"unreadable body: {type(exc).__name__}: {exc}") from exc
    broken = [type(d).__name__ for d in msg.defects if isinstance(d, _BROKEN_MIME)]
    for part in msg.walk() if msg.is_multipart() else ():
        broken += [type(d).__name__ for d in part.defects if isinstance(d, _BROKEN_MIME) and type(d).__name__ not in broken]
    if broken and not re.search(r"[^\W\d_]{2,}", body):  # nothing readable was recovered: quarantined with the reason
        raise MalformedMessage(f"broken MIME structure: {', '.join(broken)}")
    date = None
    if headers.get("date"):
        try:
            date = parsedate_to_datetime(headers["date"])
            date = (date if date.tzinfo else date.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
        except (TypeError, ValueError, OverflowError):  # e.g. "31 Dec 9999 23:59:59 -2359" overflows when moved to UTC
            date = None
    return ParsedEmail(
        message_id=headers.get("message-id") or None,
        sender=addr.lower(),
        sender_name=name or None,
        subject=headers.get("subject", ""),
        date=date,
        in_reply_to=headers.get("in-reply-to") or None,
        references=headers.get("references") or None,
        body_text=body,
        headers=headers,
        attachments=attachments,
        return_path=headers.get("return-path"),
        hidden_text=hidden,
        mime_defects=broken,
    )


_NO_REPLY = re.compile(r"^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|noreply|bounces?)([+.\-@]|$)", re.IGNORECASE)
_DAEMON = re.compile(r"^(mailer-daemon|postmaster)$", re.IGNORECASE)


def skip_reason(parsed: ParsedEmail, *, own_message_ids: frozenset[str] = frozenset()) -> str | None:
    """Why this e-mail must not get a reply ("category: detail"; bounce, auto_reply, mailing_list, automated_sender, loop), or None."""
    h = parsed.headers
    local = (parsed.sender or "").split("@")[0]
    if parsed.message_id and parsed.message_id in own_message_ids:
        return "loop: our own message"
    if parsed.return_path is not None and parsed.return_path.strip() in ("<>", ""):
        return "bounce: empty Return-Path"
    if "multipart/report" in h.get("content-type", "").lower():
        return "bounce: delivery report"
    if _DAEMON.match(local):
        return f"bounce: sent by {parsed.sender}"
    auto = h.get("auto-submitted", "").lower()
    if auto and not auto.startswith("no"):
        return f"auto_reply: Auto-Submitted {auto}"
    if h.get("x-autoreply") or h.get("x-autorespond"):
        return "auto_reply: X-Autoreply"
    if "x-auto-response-suppress" in h:
        return "auto_reply: X-Auto-Response-Suppress"
    list_headers = [k for k in h if k.startswith("list-")]
    if list_headers:
        return f"mailing_list: {list_headers[0]}"
    if h.get("precedence", "").lower() in ("bulk", "list", "junk"):
        return f"mailing_list: Precedence {h['precedence'].lower()}"
    if _NO_REPLY.match(local):
        return f"automated_sender: {parsed.sender}"
    automatic = automatic_reason(parsed.subject, parsed.body_text)  # no RFC 3834 header: told by its words
    if automatic:
        return automatic
    if parsed.in_reply_to and parsed.in_reply_to in own_message_ids and auto:
        return "loop: automatic reply to our message"
    return None
