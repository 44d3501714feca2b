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

    def remove(self, reply_keys: set[str]) -> int:
        """Drop the lines of these replies (retention); returns how many went."""
        if not self.path.exists() or not reply_keys:
            return 0
        lines = [line for line in self.path.read_text(encoding="utf-8").splitlines() if line.strip()]
        keep = [line for line in lines if json.loads(line).get("client_msg_id") not in reply_keys]
        if len(keep) != len(lines):
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text("".join(line + "\n" for line in keep), encoding="utf-8")
            tmp.replace(self.path)
        return len(lines) - len(keep)

    def post(self, *, channel: str, thread_ts: str, text: str, reply_key: str) -> str:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"channel": channel, "thread_ts": thread_ts, "text": text, "client_msg_id": reply_key}
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(payload, ensure_ascii=False) + "\n")
        return reply_key


class SlackReplyPoster:
    """Posts approved replies in the student's thread with the Web API; each post carries its reply key as metadata."""

    EVENT_TYPE = "orienta_reply"

    def __init__(self, client) -> None:
        self.client = client

    def find(self, *, channel: str, thread_ts: str, reply_key: str) -> str | None:
        """The ts of an earlier post of this reply in the thread (crash recovery), or None."""
        resp = self.client.conversations_replies(channel=channel, ts=thread_ts, include_all_metadata=True, limit=200)
        for msg in resp.get("messages", []):
            meta = msg.get("metadata") or {}
            if meta.get("event_type") == self.EVENT_TYPE and (meta.get("event_payload") or {}).get("reply_key") == reply_key:
                return msg.get("ts")
        return None

    def post(self, *, channel: str, thread_ts: str, text: str, reply_key: str) -> str:
        resp = self.client.chat_postMessage(
            channel=channel, thread_ts=thread_ts or None, text=text, unfurl_links=False,
            metadata={"event_type": self.EVENT_TYPE, "event_payload": {"reply_key": reply_key}},
        )
        return resp["ts"]
