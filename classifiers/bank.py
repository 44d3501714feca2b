"""The bundled bank of generic out-of-domain questions."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

BANK_PATH = Path(__file__).resolve().parent / "data" / "ood_bank.jsonl"


@lru_cache(maxsize=1)
def load_ood_bank(path: Path = BANK_PATH) -> tuple[dict, ...]:
    """Every out-of-domain example as {text, topic, lang, near_miss}."""
    with path.open(encoding="utf-8") as fh:
        return tuple(json.loads(line) for line in fh if line.strip())
