"""``GET /v1/models/{id}`` and ``GET /v1/models`` of the stand-in: each model's lifecycle, limits and capabilities.

Shape: anthropic SDK 2.14 ``types/model_info.py`` (id, type "model", display_name, created_at, lifecycle
"active" | "deprecated" | "retired", deprecated_at, retires_at, max_input_tokens, max_tokens, capabilities;
a retired model "remains in the catalogue as the historical record of its retirement") and
``types/model_capabilities.py``; lifecycle terms: about-claude/model-deprecations. An id the API does not know is
a 404 ``not_found_error``. Capabilities are given for what the rules table knows (batch, citations, structured
outputs, effort levels, thinking types); the server-tool and context-management entries are left out.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Dict, Optional

from .rules import EFFORT_ORDER, MODELS, RETIRED, STRICTEST, ModelRules, RuleError

EPOCH = "1970-01-01T00:00:00Z"  # "May be set to an epoch value if the release date is unknown"


def _iso(day: Optional[dt.date]) -> Optional[str]:
    return f"{day.isoformat()}T00:00:00Z" if day else None


def _capabilities(rules: ModelRules) -> Dict[str, Any]:
    yes = lambda flag: {"supported": bool(flag)}  # noqa: E731
    return {
        "batch": yes(True),
        "citations": yes(True),
        "structured_outputs": yes(rules.structured_outputs),
        "image_input": yes(True),
        "pdf_input": yes(True),
        "effort": {"supported": bool(rules.efforts), **{level: yes(level in rules.efforts) for level in EFFORT_ORDER}},
        "thinking": {"supported": True, "types": {t: yes(t in rules.thinking_types) for t in ("adaptive", "between_tools", "disabled", "enabled")}},
    }


def model_info(model_id: str, today: dt.date, *, unknown: str = "reject") -> Dict[str, Any]:
    """The Models API object for ``model_id`` (RuleError 404 for an id the API does not know)."""
    if model_id in RETIRED:
        retired_on, _ = RETIRED[model_id]
        return {"type": "model", "id": model_id, "display_name": model_id, "created_at": EPOCH, "lifecycle": "retired",
                "deprecated_at": None, "retires_at": _iso(retired_on), "max_input_tokens": None, "max_tokens": None, "capabilities": None}
    rules = MODELS.get(model_id)
    if rules is None and unknown == "strictest" and model_id.startswith("claude-"):
        rules = STRICTEST
    if rules is None:
        raise RuleError(404, "not_found_error", f"model: {model_id}")
    lifecycle = "active" if rules.retires is None else "retired" if today >= rules.retires else "deprecated"
    return {
        "type": "model", "id": model_id, "display_name": model_id, "created_at": EPOCH, "lifecycle": lifecycle,
        "deprecated_at": None, "retires_at": _iso(rules.retires), "max_input_tokens": rules.context_window,
        "max_tokens": rules.max_output, "capabilities": _capabilities(rules),
    }


def model_list(today: dt.date) -> Dict[str, Any]:
    data = [model_info(m, today) for m in sorted(MODELS)]
    return {"data": data, "has_more": False, "first_id": data[0]["id"] if data else None, "last_id": data[-1]["id"] if data else None}
