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
    """What one model accepts, its limits and prices (USD per million tokens), and where each value came from."""

    name: str
    family: str
    known: bool = True
    status: str = "active"
    sampling: bool = False
    forced_tool_choice: str = "refused"  # "refused" | "without_thinking"
    prefill: bool = False
    thinking: str = "adaptive"
    thinking_types: tuple[str, ...] = ("adaptive",)
    thinking_off_up_to: str = ""
    thinking_display: str = "omitted"
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
    source: dict[str, str] = field(default_factory=dict)  # field -> documentation page (URL)
    guess: dict[str, str] = field(default_factory=dict)  # field -> why this figure, where no page states it

    def accepts_effort(self, level: str | None) -> bool:
        return level is None or level in self.effort

    def documented(self, name: str) -> bool:
        """Whether a documentation page states this field's value (not a guess)."""
        return name in self.source and name not in self.guess and "*" not in self.guess

    def as_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    with TABLE.open("rb") as fh:
        return tomllib.load(fh)


DATA_FIELDS = tuple(f for f in ModelInfo.__dataclass_fields__ if f not in ("name", "known", "source", "guess"))


def _build(name: str, row: dict[str, Any], *, known: bool) -> ModelInfo:
    fields = {k: v for k, v in row.items() if k in ModelInfo.__dataclass_fields__}
    for key in ("effort", "thinking_types"):
        if key in fields:
            fields[key] = tuple(fields[key])
    pages = _table()["pages"]
    fields["source"] = {k: pages[v] for k, v in row.get("source", {}).items()}
    fields["guess"] = dict(row.get("guess", {}))
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


def prices_for(name: str, *, batch: bool = False, prompt_tokens: int = 0) -> dict[str, float] | None:
    """Prices in the shape Usage.cost() reads (input, output, cache_write, cache_read); batch: the Message Batches prices.

    A request whose prompt (input + cache writes + cache reads) exceeds the model's long-prompt threshold is priced
    at the long-prompt band for all its tokens (pricing#long-context-pricing). With prompt_tokens=0 the row also
    carries the band (`long_prompt`), so Usage.cost() picks it per request from the usage it prices.
    """
    info = model_info(name)
    p = info.prices
    if not p:
        return None
    ratio = p["batch_input"] / p["input"] if batch else 1.0

    def shaped(rates: dict[str, float]) -> dict[str, float]:
        return {"input": rates["input"] * ratio, "output": rates["output"] * ratio, "cache_write": rates["cache_write_5m"] * ratio, "cache_read": rates["cache_read"] * ratio}

    band = info.long_prompt
    if band and prompt_tokens > band["threshold_tokens"]:
        return shaped(band)
    out = shaped(p)
    if batch:
        out["input"], out["output"] = p["batch_input"], p["batch_output"]
    if band and not prompt_tokens:
        out["long_prompt"] = shaped(band) | {"threshold_tokens": band["threshold_tokens"]}
    return out


def _parse_eol(text: str) -> date | None:
    cleaned = re.sub(r"(\d+)(st|nd|rd|th)", r"\1", text.strip())
    for fmt in ("%B %d, %Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(cleaned, fmt).date()
        except ValueError:
            continue
    return None


def retired_models() -> dict[str, tuple[date, str]]:
    """Ids the API no longer serves: id -> (retirement date, replacement), from the table's [retired] rows."""
    return {k: (date.fromisoformat(v["retired"]), v["replacement"]) for k, v in _table()["retired"].items() if k != "source"}


def end_of_life(name: str) -> date | None:
    """The model's end-of-life date, from the table (`retires`, or a [retired] row; the model-deprecations page)."""
    if name in retired_models():
        return retired_models()[name][0]
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


def api_lifecycle(client, name: str) -> tuple[str, date | None] | None:
    """(lifecycle, retirement date) as the Models API states it now (GET /v1/models/{id}: "active", "deprecated" or
    "retired", and `retires_at`; an id it does not know is "retired" for orienta: requests to it fail); None when
    the API cannot be asked, and the table's dates stand."""
    import anthropic

    try:
        info = client.models.retrieve(name)
    except anthropic.NotFoundError:
        return "retired", None
    except anthropic.APIError as exc:
        log.warning("the Models API did not answer for %s (%s): the models table's dates are used", name, type(exc).__name__)
        return None
    lifecycle = getattr(info, "lifecycle", None)  # older SDKs keep the field as an extra attribute
    retires = getattr(info, "retires_at", None)
    if isinstance(retires, str):
        retires = datetime.fromisoformat(retires.replace("Z", "+00:00"))
    return (str(lifecycle), retires.date() if isinstance(retires, datetime) else None) if lifecycle else None


def check_lifecycle(name: str, lifecycle: tuple[str, date | None] | None, *, today: date | None = None) -> str | None:
    """check_model with the Models API's word first: retired (or unknown to it) is refused, deprecated warns."""
    if lifecycle is None:
        return check_model(name, today=today)
    state, retires = lifecycle
    if state == "retired":
        when = f" on {retires.isoformat()}" if retires else ""
        raise ModelRetired(f"the Models API lists {name!r} as retired{when} (or does not know it); set ORIENTA_LLM__MODEL (or the role's model) to {replacement_for(name)!r}")
    if state == "deprecated":
        eol = retires or end_of_life(name)
        msg = f"the model {name!r} is deprecated" + (f" and reaches end of life on {eol.isoformat()}" if eol else "") + f"; migrate to {replacement_for(name)!r}"
        if name not in _warned:
            _warned.add(name)
            log.warning(msg)
        return msg
    return None
