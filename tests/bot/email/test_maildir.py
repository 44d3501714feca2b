"""The embedded outbox Maildir and reply threading."""

from __future__ import annotations

import email
import mailbox
from email import policy

from bot.email.maildir import OutboxMaildir, build_reply


def test_outbox_delivers_into_an_existing_folder_without_maildir_subfolders(tmp_path):
    outbox_dir = tmp_path / "outbox"
    outbox_dir.mkdir()
    (outbox_dir / "slack.jsonl").write_text("{}\n")  # the Slack stand-in shares the folder
    msg = build_reply(from_addr="Oficina <of@ing.example.edu>", to_addr="ana@example.com", subject="Becas", body="Hola", in_reply_to="<q1@example.com>", references="<q0@example.com> <q1@example.com>")
    outbox = OutboxMaildir(outbox_dir)
    outbox.deliver(msg)
    assert outbox.find(msg["Message-ID"])
    box = mailbox.Maildir(outbox_dir, create=False)
    [key] = box.keys()
    stored = email.message_from_bytes(box.get_bytes(key), policy=policy.default)
    assert stored["Subject"] == "Re: Becas" and stored["In-Reply-To"] == "<q1@example.com>"
    assert stored["References"].split()[-1] == "<q1@example.com>"
