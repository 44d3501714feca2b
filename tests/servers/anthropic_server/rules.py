"""What each Claude model accepts, as the real Messages API enforces it.

The models orienta knows are read from the product's own table, pipeline/llm/models.toml: one
source of truth, where every value names its documentation page or is marked a guess with a
reason (issue 25: the stand-in and the table had drifted apart on Sonnet 5.5's cache minimum and
on Haiku 5.5's forced tool choice, effort levels and thinking display). The rows below are the
stand-in's own, for models orienta does not configure (Fable, Mythos, Opus 4.x, Sonnet 4.6, Opus
4.5), kept so the stand-in can answer the SDK for them; their sources:

Sources (platform.claude.com/docs/en/..., read through the docs corpus on 2026-11-23):

- [S55] models/sonnet-5-5/migration-guide: "leaves out five settings that return a 400
  error: thinking budgets, sampling parameters, assistant prefill, forced tool choice,
  and thinking: {"type": "disabled"}"; thinking runs by default; accepted thinking.type
  values "adaptive" and "between_tools" (between_tools replaces disabled).
- [O55] models/opus-5-5/whats-new-opus-5-5 and migration-guide: thinking cannot be
  disabled ("thinking.type.disabled" / "thinking.type.enabled" is not supported for this
  model ...), forced tool use returns an error; "the first three also apply to Claude
  Fable 5.1"; effort default medium.
- [F51] models/fable-5-1/migration-guide, models/fable-5/migration-guide: thinking
  configuration: both {type: disabled} and {type: enabled, budget_tokens} return 400.
- [H55] models/haiku-5-5/migration-guide (checklist): budget_tokens -> adaptive, remove
  temperature/top_p/top_k, end with a user turn (no prefill). Thinking on by default and
  can be disabled at effort high or lower (docs.apiyi.com thinking-guide refresh,
  2026-11, and @ai-sdk/anthropic 2.0.109 notes, which agree).
- [THINK] build-with-claude/thinking-troubleshooting: extended thinking (enabled +
  budget_tokens) is rejected on Claude 4.7 and later, deprecated but accepted on 4.6, the
  only thinking mode on 4.5 and earlier. [EXT] extended-thinking: tool_choice any/tool is
  incompatible with thinking ("Thinking may not be enabled when tool_choice forces tool
  use."), temperature/top_k are incompatible with thinking.
- [SAMP] The always-reject list for non-default temperature/top_p/top_k (Fable 5.1,
  Mythos 5.1, Fable 5, Mythos 5, Opus 5.5, Opus 5, Opus 4.8, Opus 4.7, Sonnet 5.5,
  Sonnet 5, Haiku 5.5) is from the thinking docs' "Sampling parameters" section as
  quoted by docs.memberjunction.org (RejectsSamplingParams); the message text
  "`temperature` is deprecated for this model" is what two projects recorded from the
  live API (braintrustdata/lingua#335, simstudioai/sim#5328). temperature=1 (the default)
  alone is accepted there; top_p/top_k are refused at any value (their documented
  defaults are not values a client sends). Claude 4.5 migration guide
  (about-claude/models/migrating-to-claude-4): "Use only temperature OR top_p, not both".
- [PREFILL] benchr.org/errors/anthropic-invalid-request-error (verified against the API
  error docs): prefill is refused on Fable 5, Mythos 5, Opus 4.8/4.7/4.6, Sonnet 4.6
  with "Prefilling assistant messages is not supported for this model."; the 5.5
  migration guides add Sonnet/Opus/Haiku 5.5 and Fable 5.1.
- [EFFORT] build-with-claude/effort: low/medium/high/xhigh/max; LangChain's reference
  (deepagents reasoning_effort) lists xhigh as 4.7+/Sonnet 5 only, no effort on Sonnet 4.5.
- [DEPR] about-claude/model-deprecations + anthropic SDK 2.12 `_data.DEPRECATED_MODELS`:
  claude-sonnet-4-5 retires 2026-11-30, claude-mythos-preview retired 2026-06-30;
  Sonnet 4 / Opus 4 retired 2026-06-15 (release notes); 3.5 Sonnet retired 2025-10-28;
  3.7 Sonnet retired 2026-02-19. Requests to a retired or unknown id: 404 not_found_error
  "model: <id>".
- [CACHE] build-with-claude/prompt-caching, minimum cacheable prefix (a shorter prefix
  is silently not cached): 4096 Opus 4.6/4.5 and Haiku 4.5; 1024 Sonnet 4.6/4.5
  (the page as quoted in anthropic-sdk-python#1194; docs.orq.ai says 2048 for Sonnet 4.6,
  the platform page is followed); 2048 Opus 4.7; 1024 Opus 4.8 and Sonnet 5; 512 Opus 5,
  Fable 5, Mythos 5 (dev.to "Claude's prompt cache fails silently below 1,024 tokens",
  docs.litellm.ai prompt_caching). No page found gives the 5.5 models' figure: each
  takes its predecessor's (Sonnet 5.5 1024, Opus 5.5 512, Fable 5.1 512) and Haiku 5.5
  takes Haiku 4.5's 4096, the strictest reading.
Where pages disagree (e.g. Sonnet 5's disabled thinking, not stated on its own page),
the stricter reading that a current page states is used and noted on the row.
"""

from __future__ import annotations

import datetime as dt
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, FrozenSet, Optional, Tuple

TABLE = Path(__file__).resolve().parents[3] / "pipeline" / "llm" / "models.toml"

EFFORT_ORDER = ("low", "medium", "high", "xhigh", "max")
ALL_EFFORTS = EFFORT_ORDER
NO_XHIGH = ("low", "medium", "high", "max")


@dataclass(frozen=True)
class ModelRules:
    """What one model accepts; every refusal below is a 400 invalid_request_error."""

    family: str
    source: str
    sampling: str  # "free" | "one_of" (temperature XOR top_p) | "default_only"
    forced_tool: str  # "accepted" (unless thinking is on) | "refused"
    prefill: bool
    thinking_default: str  # "adaptive" (on when thinking is omitted) | "off"
    thinking_types: FrozenSet[str]
    disabled_up_to_effort: Optional[str] = None  # thinking disabled only at effort <= this
    efforts: Tuple[str, ...] = ()  # () = the effort parameter is refused
    default_effort: Optional[str] = None
    display_default: str = "summarized"  # "omitted": thinking text empty, signature only
    max_output: int = 128_000
    context_window: int = 1_000_000
    retires: Optional[dt.date] = None
    replacement: Optional[str] = None
    structured_outputs: bool = True
    min_cache_tokens: int = 1024  # [CACHE]


_CURRENT_STRICT = dict(sampling="default_only", forced_tool="refused", prefill=False, thinking_default="adaptive")

FABLE_5_1 = ModelRules("fable-5.1", "[F51] [O55]", **_CURRENT_STRICT, thinking_types=frozenset({"adaptive"}),
                       efforts=ALL_EFFORTS, default_effort="high", min_cache_tokens=512)
# Fable 5: thinking always on, so forced tool choice fails with the thinking message [F51] [EXT].
FABLE_5 = ModelRules("fable-5", "[F51] [EXT]", sampling="default_only", forced_tool="accepted", prefill=False,
                     thinking_default="adaptive", thinking_types=frozenset({"adaptive"}), efforts=ALL_EFFORTS, default_effort="high",
                     min_cache_tokens=512)
OPUS_4_8 = ModelRules("opus-4.8", "[THINK] [SAMP] [PREFILL]", sampling="default_only", forced_tool="accepted", prefill=False,
                      thinking_default="off", thinking_types=frozenset({"adaptive", "disabled"}), efforts=ALL_EFFORTS, default_effort="high")
OPUS_4_7 = ModelRules("opus-4.7", OPUS_4_8.source, sampling="default_only", forced_tool="accepted", prefill=False,
                      thinking_default="off", thinking_types=frozenset({"adaptive", "disabled"}), efforts=ALL_EFFORTS, default_effort="high",
                      min_cache_tokens=2048)
CLAUDE_4_6 = ModelRules("4.6", "[THINK] [PREFILL] [EFFORT]", sampling="one_of", forced_tool="accepted", prefill=False,
                        thinking_default="off", thinking_types=frozenset({"adaptive", "enabled", "disabled"}),
                        efforts=NO_XHIGH, default_effort="high", min_cache_tokens=4096)
SONNET_4_6 = ModelRules("4.6", CLAUDE_4_6.source, sampling="one_of", forced_tool="accepted", prefill=False,
                        thinking_default="off", thinking_types=frozenset({"adaptive", "enabled", "disabled"}),
                        efforts=NO_XHIGH, default_effort="high", max_output=64_000)
OPUS_4_5 = ModelRules("4.5", "[THINK] [SAMP] migrating-to-claude-4 [EFFORT]", sampling="one_of", forced_tool="accepted", prefill=True,
                      thinking_default="off", thinking_types=frozenset({"enabled", "disabled"}), efforts=("low", "medium", "high"),
                      default_effort="high", max_output=64_000, context_window=200_000, min_cache_tokens=4096)
# A model launched after this table, for tests of how a client treats an id it does not know:
# the union of every current refusal (FakeAnthropicServer(unknown_models="strictest")).
STRICTEST = ModelRules("unknown", "union of [S55] [O55] [F51] [H55]", **_CURRENT_STRICT, thinking_types=frozenset({"adaptive"}),
                       efforts=ALL_EFFORTS, default_effort="high", display_default="omitted", min_cache_tokens=4096)

def _from_table(name: str, row: Dict[str, Any]) -> ModelRules:
    """A models.toml row as the rules the API enforces for it."""
    retires = row.get("retires")
    return ModelRules(
        name, "pipeline/llm/models.toml",
        sampling="one_of" if row["sampling"] else "default_only",  # true: temperature OR top_p (migrating-to-claude-4)
        forced_tool="refused" if row["forced_tool_choice"] == "refused" else "accepted",  # "accepted" = unless thinking is on
        prefill=row["prefill"],
        thinking_default="adaptive" if row["thinking"] == "adaptive" else "off",
        thinking_types=frozenset(row["thinking_types"]),
        disabled_up_to_effort=row.get("thinking_off_up_to") or None,
        efforts=tuple(row["effort"]),
        default_effort=row.get("default_effort"),
        display_default=row["thinking_display"],
        max_output=row["max_output"],
        context_window=row["context_window"],
        retires=dt.date.fromisoformat(retires) if retires else None,
        replacement=row.get("replacement"),
        structured_outputs=row["structured_outputs"],
        min_cache_tokens=row["min_cache_tokens"],
    )


with TABLE.open("rb") as _fh:
    _TABLE = tomllib.load(_fh)

MODELS: Dict[str, ModelRules] = {
    "claude-fable-5-2": FABLE_5_1,
    "claude-mythos-5-2": FABLE_5_1,
    "claude-fable-5-1": FABLE_5_1,
    "claude-mythos-5-1": FABLE_5_1,
    "claude-fable-5": FABLE_5,
    "claude-mythos-5": FABLE_5,
    "claude-opus-4-8": OPUS_4_8,
    "claude-opus-4-7": OPUS_4_7,
    "claude-opus-4-6": CLAUDE_4_6,
    "claude-sonnet-4-6": SONNET_4_6,
    "claude-opus-4-5": OPUS_4_5,
    "claude-opus-4-5-20251101": OPUS_4_5,
    **{name: _from_table(name, row) for name, row in _TABLE["models"].items()},
}
# dated snapshots of the table's models (model overview pages)
MODELS["claude-haiku-4-5-20251001"] = MODELS["claude-haiku-4-5"]
MODELS["claude-sonnet-4-5-20250929"] = MODELS["claude-sonnet-4-5"]

# Retired ids (the table's [retired] rows, model-deprecations page): id -> (retirement date, replacement). Requests fail with 404.
RETIRED: Dict[str, Tuple[dt.date, str]] = {
    k: (dt.date.fromisoformat(v["retired"]), v["replacement"]) for k, v in _TABLE["retired"].items() if k != "source"
}


class RuleError(Exception):
    """A request the real API refuses: HTTP status, error type, message."""

    def __init__(self, status: int, error_type: str, message: str) -> None:
        super().__init__(message)
        self.status, self.error_type, self.message = status, error_type, message


def _bad(message: str) -> RuleError:
    return RuleError(400, "invalid_request_error", message)


def rules_for(model: Any, today: dt.date, *, unknown: str = "reject") -> ModelRules:
    """The model's rules; a retired, past-retirement or unknown id is a 404 [DEPR]
    (with ``unknown="strictest"`` an id missing from both tables gets STRICTEST instead)."""
    name = str(model or "")
    rules = MODELS.get(name)
    if rules is None and unknown == "strictest" and name.startswith("claude-") and name not in RETIRED:
        return STRICTEST
    if rules is None or (rules.retires is not None and today >= rules.retires):
        raise RuleError(404, "not_found_error", f"model: {name}")
    return rules


def thinking_on(req: Dict[str, Any], rules: ModelRules) -> bool:
    """Whether the request runs with up-front thinking on this model."""
    thinking = req.get("thinking")
    if not isinstance(thinking, dict):
        return rules.thinking_default == "adaptive"
    return thinking.get("type") in ("adaptive", "enabled")


def effort_of(req: Dict[str, Any], rules: ModelRules) -> Optional[str]:
    oc = req.get("output_config")
    effort = oc.get("effort") if isinstance(oc, dict) else None
    return effort or rules.default_effort


def check_request(req: Dict[str, Any], rules: ModelRules, *, count_only: bool = False) -> None:
    """Raise the 400 the real API gives for a request this model refuses."""
    thinking = req.get("thinking")
    ttype = thinking.get("type") if isinstance(thinking, dict) else None
    oc = req.get("output_config") if isinstance(req.get("output_config"), dict) else {}
    effort = oc.get("effort")

    # effort [EFFORT]
    if effort is not None:
        if not rules.efforts:
            raise _bad("output_config.effort: this model does not support the effort parameter.")
        if effort not in rules.efforts:
            raise _bad(f"output_config.effort: \"{effort}\" is not supported for this model. Supported values: {', '.join(rules.efforts)}.")

    # thinking [THINK] [O55] [S55] [F51] [H55]
    if thinking is not None:
        if ttype not in ("adaptive", "enabled", "disabled", "between_tools"):
            raise _bad("thinking.type: Input should be 'enabled', 'disabled', 'adaptive' or 'between_tools'")
        if ttype not in rules.thinking_types:
            raise _bad(f"\"thinking.type.{ttype}\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.")
        if ttype == "enabled":
            budget = thinking.get("budget_tokens")
            if not isinstance(budget, int) or budget < 1024:
                raise _bad("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024")
            if not count_only and isinstance(req.get("max_tokens"), int) and req["max_tokens"] <= budget:
                raise _bad("`max_tokens` must be greater than `thinking.budget_tokens`.")
        if ttype == "disabled" and rules.disabled_up_to_effort:
            level = effort_of(req, rules)
            if level and EFFORT_ORDER.index(level) > EFFORT_ORDER.index(rules.disabled_up_to_effort):
                raise _bad(f"\"thinking.type.disabled\" is only supported at effort \"{rules.disabled_up_to_effort}\" or lower for this model.")
    on = thinking_on(req, rules)

    # sampling parameters [SAMP]
    present = [p for p in ("temperature", "top_p", "top_k") if req.get(p) is not None]
    if rules.sampling == "default_only":
        for p in present:
            if p == "temperature" and req[p] == 1:
                continue
            raise _bad(f"`{p}` is deprecated for this model.")
    else:
        if rules.sampling == "one_of" and "temperature" in present and "top_p" in present:
            raise _bad("`temperature` and `top_p` cannot both be specified for this model. Please use only one.")
        if on and "temperature" in present and req["temperature"] != 1:
            raise _bad("`temperature` may only be set to 1 when thinking is enabled or in interleaved thinking mode. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking")
        if on and "top_k" in present:
            raise _bad("`top_k` is not supported when thinking is enabled.")
        if on and "top_p" in present and not (0.95 <= float(req["top_p"]) <= 1):
            raise _bad("`top_p` must be between 0.95 and 1 when thinking is enabled.")

    # forced tool choice [S55] [O55] [EXT]
    tc = req.get("tool_choice")
    if isinstance(tc, dict) and tc.get("type") in ("any", "tool"):
        if rules.forced_tool == "refused":
            raise _bad(f"tool_choice.type \"{tc.get('type')}\" (forced tool use) is not supported for this model. Use tool_choice \"auto\" or \"none\", or output_config.format for structured output.")
        if on:
            raise _bad("Thinking may not be enabled when tool_choice forces tool use.")

    # assistant prefill [PREFILL]
    msgs = req.get("messages") or []
    if not rules.prefill and msgs and isinstance(msgs[-1], dict) and msgs[-1].get("role") == "assistant":
        raise _bad("Prefilling assistant messages is not supported for this model.")

    # max_tokens against the model's output limit (model overview pages)
    mt = req.get("max_tokens")
    if not count_only and isinstance(mt, int) and mt > rules.max_output:
        raise _bad(f"max_tokens: {mt} > {rules.max_output}, which is the maximum allowed number of output tokens for {req.get('model')}")

    # structured outputs need a model that supports them
    if isinstance(oc.get("format"), dict) and not rules.structured_outputs:
        raise _bad("output_config.format: structured outputs are not supported for this model.")


@dataclass
class ThinkingPlan:
    """Whether the reply carries a thinking block, and its token count."""

    on: bool
    omitted: bool
    tokens: int = 0
    _sizes: Dict[str, int] = field(default_factory=lambda: {"low": 8, "medium": 16, "high": 32, "xhigh": 64, "max": 128})

    @classmethod
    def for_request(cls, req: Dict[str, Any], rules: ModelRules) -> "ThinkingPlan":
        thinking = req.get("thinking") if isinstance(req.get("thinking"), dict) else {}
        display = thinking.get("display") or rules.display_default
        plan = cls(on=thinking_on(req, rules), omitted=display == "omitted")
        if plan.on:
            plan.tokens = plan._sizes.get(effort_of(req, rules) or "high", 32)
        return plan
