"""The Claude models table (models.toml): request rules, limits and prices per model, and deprecation checks."""

from __future__ import annotations

import logging
import re
import tomllib
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipeline.errors import ConfigurationError

log = logging.getLogger(__name__)
TABLE = Path(__file__).with_name("models.toml")
_warned: set[str] = set()


class ModelRetired(ConfigurationError):
    """The configured model is past its end-of-life date: the API no longer serves it."""


@dataclass(frozen=True)
class ModelInfo:
    """What one model accepts, its limits and prices (USD per million tokens)."""

    name: str
    family: str
    known: bool = True
    status: str = "active"
    sampling: bool = False
    forced_tool_choice: bool = False
    prefill: bool = False
    thinking: str = "adaptive"
    effort: tuple[str, ...] = ()
    default_effort: str | None = None
    structured_outputs: bool = True
    min_cache_tokens: int = 4096
    context_window: int = 200_000
    max_output: int = 8192
    prices: dict[str, float] = field(default_factory=dict)
    long_prompt: dict[str, float] = field(default_factory=dict)
    released: str | None = None
    retires: str | None = None
    replacement: str | None = None
    checked: str | None = None
    sources: tuple[str, ...] = ()

    def accepts_effort(self, level: str | None) -> bool:
        return level is None or level in self.effort

    def as_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    with TABLE.open("rb") as fh:
        return tomllib.load(fh)


def _build(name: str, row: dict[str, Any], *, known: bool) -> ModelInfo:
    fields = {k: v for k, v in row.items() if k in ModelInfo.__dataclass_fields__}
    fields["effort"] = tuple(fields.get("effort", ()))
    fields["sources"] = tuple(fields.get("sources", ()))
    return ModelInfo(name=name, known=known, **fields)


def known_models() -> dict[str, ModelInfo]:
    """Every model in the table, by id."""
    return {name: _build(name, row, known=True) for name, row in _table()["models"].items()}


def model_info(name: str) -> ModelInfo:
    """The row for `name` (exact, else the longest id it starts with, e.g. a dated snapshot); unknown ids get the strictest rules."""
    models = _table()["models"]
    if name in models:
        return _build(name, models[name], known=True)
    prefixes = [k for k in models if name.startswith(k + "-")]
    if prefixes:
        best = max(prefixes, key=len)
        return _build(name, models[best], known=True)
    if name not in _warned:
        _warned.add(name)
        log.warning("unknown Claude model %r: using the strictest request rules (no sampling parameters, no forced tools, no prefill, no effort)", name)
    return _build(name, _table()["unknown"], known=False)


def prices_for(name: str, *, batch: bool = False) -> dict[str, float] | None:
    """Prices in the shape Usage.cost() reads (input, output, cache_write, cache_read); batch: the Message Batches prices."""
    info = model_info(name)
    p = info.prices
    if not p:
        return None
    if not batch:
        return {"input": p["input"], "output": p["output"], "cache_write": p["cache_write_5m"], "cache_read": p["cache_read"]}
    ratio = p["batch_input"] / p["input"]
    return {"input": p["batch_input"], "output": p["batch_output"], "cache_write": p["cache_write_5m"] * ratio, "cache_read": p["cache_read"] * ratio}


def _sdk_deprecations() -> dict[str, str]:
    """model -> end-of-life date as the installed anthropic SDK lists it."""
    out: dict[str, str] = {}
    try:
        from anthropic.resources.messages.messages import DEPRECATED_MODELS as in_messages

        out.update(in_messages)
    except ImportError:  # pragma: no cover - older SDKs
        pass
    try:
        from anthropic._data import DEPRECATED_MODELS as in_data

        out.update(in_data)
    except ImportError:  # pragma: no cover
        pass
    return out


def _parse_eol(text: str) -> date | None:
    cleaned = re.sub(r"(\d+)(st|nd|rd|th)", r"\1", text.strip())
    for fmt in ("%B %d, %Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(cleaned, fmt).date()
        except ValueError:
            continue
    return None


def end_of_life(name: str) -> date | None:
    """The model's end-of-life date: the SDK's deprecation list first, then the table's `retires`."""
    sdk = _sdk_deprecations().get(name)
    if sdk:
        return _parse_eol(sdk)
    info = model_info(name)
    return _parse_eol(info.retires) if info.known and info.retires else None


def replacement_for(name: str) -> str:
    """The current model of the same family (the table's `replacement`, else its family's active model)."""
    info = model_info(name)
    if info.replacement:
        return info.replacement
    family = info.family if info.known else re.sub(r"^claude-([a-z]+).*$", r"\1", name)
    for other in known_models().values():
        if other.family == family and other.status == "active":
            return other.name
    return "claude-sonnet-5-5"


def check_model(name: str, *, today: date | None = None) -> str | None:
    """Refuse a model past its end of life (ModelRetired, naming a replacement); warn once about a deprecated one; return the warning."""
    eol = end_of_life(name)
    if eol is None:
        return None
    today = today or date.today()
    if today > eol:
        raise ModelRetired(f"the model {name!r} reached end of life on {eol.isoformat()} and is no longer served; set ORIENTA_LLM__MODEL (or the role's model) to {replacement_for(name)!r}")
    msg = f"the model {name!r} is deprecated and reaches end of life on {eol.isoformat()}; migrate to {replacement_for(name)!r}"
    if name not in _warned:
        _warned.add(name)
        log.warning(msg)
    return msg
