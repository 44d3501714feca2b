"""The embedded stand-in for posting Slack replies: one JSON line per reply under <data dir>/outbox/slack.jsonl."""

from __future__ import annotations

import json
from pathlib import Path


class SlackOutboxFile:
    """Writes approved Slack replies as chat.postMessage payloads (thread_ts set) to a JSONL file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def find(self, reply_key: str) -> bool:
        if not self.path.exists():
            return False
        return any(json.loads(line).get("client_msg_id") == reply_key for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip())

    def post(self, *, channel: str, thread_ts: str, text: str, reply_key: str) -> str:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"channel": channel, "thread_ts": thread_ts, "text": text, "client_msg_id": reply_key}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return reply_key
