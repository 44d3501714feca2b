"""The bundled sample office: documents, e-mails and Slack messages of a fictional faculty."""

from __future__ import annotations

import json
from pathlib import Path

SAMPLE_DIR = Path(__file__).resolve().parent / "sample_office"


def docs_dir() -> Path:
    return SAMPLE_DIR / "docs"


def emails_dir() -> Path:
    return SAMPLE_DIR / "emails"


def followup_emails_dir() -> Path:
    """Replies in the threads of the sample e-mails (follow-ups and closings), delivered after the office answered."""
    return SAMPLE_DIR / "emails" / "followups"


def week2_emails_dir() -> Path:
    """The second week's e-mails: mostly the first week's questions again, in other words."""
    return SAMPLE_DIR / "emails" / "week2"


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def slack_repeats() -> list[dict]:
    """Slack messages that repeat earlier sample questions; the demo delivers them after its review round."""
    return _jsonl(SAMPLE_DIR / "slack" / "repeats.jsonl")


def slack_messages() -> list[dict]:
    return _jsonl(SAMPLE_DIR / "slack" / "messages.jsonl")


def slack_followups() -> list[dict]:
    """Replies in the threads of the sample Slack messages (thread_ts)."""
    return _jsonl(SAMPLE_DIR / "slack" / "followups.jsonl")


def slack_week2() -> list[dict]:
    """The second week's Slack messages."""
    return _jsonl(SAMPLE_DIR / "slack" / "week2.jsonl")


def expected() -> dict:
    return json.loads((SAMPLE_DIR / "expected.json").read_text(encoding="utf-8"))


def expectations() -> dict[str, dict]:
    """Every sample message's expectation by sample key: e-mail file name (`followups/…`, `week2/…`) or Slack ts."""
    exp = expected()
    threads, week2 = exp.get("followups", {}), exp.get("week2", {})
    by_key = dict(exp["emails"])
    by_key |= {f"followups/{k}": v for k, v in threads.get("emails", {}).items()}
    by_key |= {f"week2/{k}": v for k, v in week2.get("emails", {}).items()}
    by_key |= {e["ts"]: e for e in exp.get("slack", []) + threads.get("slack", []) + week2.get("slack", [])}
    return by_key


def intent(key: str, by_key: dict[str, dict]) -> str:
    """The first sample message that asked what `key` asks (following `repeat_of`)."""
    seen = {key}
    while (earlier := by_key.get(key, {}).get("repeat_of")) and earlier not in seen:
        key = earlier
        seen.add(key)
    return key
