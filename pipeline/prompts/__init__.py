"""Prompts live as Markdown files in this folder and are loaded by name."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    text: str

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()[:16]


@lru_cache(maxsize=None)
def load_prompt(name: str) -> Prompt:
    """Load `<name>.md` from the prompts folder."""
    path = _DIR / f"{name}.md"
    if not path.exists():
        raise FileNotFoundError(f"no prompt named {name!r} in {_DIR}")
    return Prompt(name=name, text=path.read_text(encoding="utf-8"))
