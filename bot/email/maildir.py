"""The embedded stand-ins for IMAP and SMTP: read a local Maildir, write replies to an outbox Maildir."""

from __future__ import annotations

import mailbox
from collections.abc import Iterator
from email import policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path


def iter_maildir(path: Path) -> Iterator[tuple[str, bytes]]:
    """(source key, raw bytes) for every message in the Maildir (new/ and cur/), in key order.

    A plain folder of .eml files is accepted too (the bundled samples ship that way)."""
    if (path / "cur").is_dir() or (path / "new").is_dir():
        box = mailbox.Maildir(path, factory=None, create=False)
        for key in sorted(box.keys()):
            with box.get_file(key) as fh:
                yield f"maildir:{path.name}:{key}", fh.read()
        return
    for file in sorted(path.glob("*.eml")):
        yield f"maildir:{path.name}:{file.name}", file.read_bytes()


def copy_to_maildir(files: list[Path], target: Path) -> Path:
    """Deliver .eml files into a Maildir (used by the demo to build its inbox)."""
    box = mailbox.Maildir(target, create=True)
    for f in sorted(files):
        box.add(f.read_bytes())
    box.flush()
    return target


def build_reply(*, from_addr: str, to_addr: str, subject: str, body: str, in_reply_to: str | None, references: str | None, domain: str | None = None, message_id: str | None = None) -> EmailMessage:
    """A reply e-mail threaded per RFC 5322 (In-Reply-To, References, Re: subject, our own Message-ID)."""
    msg = EmailMessage(policy=policy.SMTP)
    msg["From"] = from_addr
    msg["To"] = to_addr
    msg["Subject"] = subject if subject.lower().startswith("re:") else f"Re: {subject}"
    msg["Date"] = formatdate(localtime=False)
    msg["Message-ID"] = message_id or make_msgid(domain=domain or from_addr.rsplit("@", 1)[-1].strip(">"))
    if in_reply_to:
        msg["In-Reply-To"] = in_reply_to
    if references or in_reply_to:
        refs = (references or "").split()
        if in_reply_to and in_reply_to not in refs:
            refs.append(in_reply_to)
        msg["References"] = " ".join(refs)
    msg["Auto-Submitted"] = "auto-replied"  # approved by a human, but generated: other bots must not answer it
    msg.set_content(body)
    return msg


class OutboxMaildir:
    """Writes replies into <data dir>/outbox as a Maildir (the embedded stand-in for SMTP)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def find(self, our_message_id: str) -> bool:
        """Whether a reply with this Message-ID is already in the outbox (crash recovery)."""
        if not self.path.exists():
            return False
        box = mailbox.Maildir(self.path, factory=None, create=False)
        for key in box.keys():
            with box.get_file(key) as fh:
                head = fh.read(8192)
            if our_message_id.encode() in head:
                return True
        return False

    def remove(self, our_message_ids: set[str], *, older_than: float | None = None) -> int:
        """Delete the replies with these Message-IDs, and (retention) every file last written before `older_than` (epoch s)."""
        if not self.path.exists() or not ((self.path / "cur").is_dir() or (self.path / "new").is_dir()):
            return 0
        box = mailbox.Maildir(self.path, factory=None, create=False)
        removed = 0
        for key in list(box.keys()):
            path = self.path / box._lookup(key)  # noqa: SLF001 - the file's path gives its age
            with box.get_file(key) as fh:
                head = fh.read(8192)
            old = older_than is not None and path.stat().st_mtime < older_than
            if old or any(mid.encode() in head for mid in our_message_ids):
                box.remove(key)
                removed += 1
        return removed

    def deliver(self, msg: EmailMessage) -> str:
        # mailbox.Maildir(create=True) skips tmp/new/cur when the folder already exists (e.g. it holds slack.jsonl)
        for sub in ("tmp", "new", "cur"):
            (self.path / sub).mkdir(parents=True, exist_ok=True)
        box = mailbox.Maildir(self.path, create=True)
        key = box.add(msg.as_bytes())
        box.flush()
        return key
