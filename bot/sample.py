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


def expected() -> dict:
    return json.loads((SAMPLE_DIR / "expected.json").read_text(encoding="utf-8"))
