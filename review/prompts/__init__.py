"""The judge's prompts, as Markdown files loaded by name."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pipeline.prompts import Prompt

_DIR = Path(__file__).resolve().parent


@lru_cache(maxsize=None)
def load_judge_prompt(name: str) -> Prompt:
    """Load `<name>.md` from review/prompts."""
    path = _DIR / f"{name}.md"
    if not path.exists():
        raise FileNotFoundError(f"no judge prompt named {name!r} in {_DIR}")
    return Prompt(name=name, text=path.read_text(encoding="utf-8"))
