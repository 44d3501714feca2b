"""Scripted replies for the Anthropic stand-in: text, tool use, JSON, errors, raw bytes, stop reasons."""

from __future__ import annotations

import json
import secrets
import string
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

# HTTP status for each documented error type.
ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
STATUS_ERROR_TYPE = {v: k for k, v in ERROR_STATUS.items()}

_ALNUM = string.ascii_letters + string.digits


def _rand_id(prefix: str, n: int = 24) -> str:
    return prefix + "".join(secrets.choice(_ALNUM) for _ in range(n))


# --------------------------------------------------------------------------
# Replies
# --------------------------------------------------------------------------


@dataclass
class Reply:
    """One scripted response.

    kind: "message" (``message`` holds a partial Message dict), "error"
    (``status``, ``error_type``, ``message``), or "raw" (``status``, ``body``).
    ``delay`` seconds are slept before answering; ``headers`` are added.
    ``auto_stop`` means stop_reason is derived (end_turn / max_tokens /
    stop_sequence) rather than taken verbatim.
    """

    kind: str
    message: Dict[str, Any] = field(default_factory=dict)
    status: int = 200
    error_type: str = ""
    error_message: str = ""
    body: bytes = b""
    content_type: str = "application/json"
    headers: Dict[str, str] = field(default_factory=dict)
    usage: Dict[str, Any] = field(default_factory=dict)
    delay: float = 0.0
    auto_stop: bool = False
    auto_json: bool = False  # text may be replaced by JSON generated from output_config.format


def text_reply(
    text: str,
    *,
    stop_reason: Optional[str] = None,
    usage: Optional[Dict[str, Any]] = None,
    model: Optional[str] = None,
    headers: Optional[Dict[str, str]] = None,
    delay: float = 0.0,
) -> Reply:
    """A plain text assistant reply.  ``stop_reason=None`` means automatic:
    "end_turn", or "max_tokens"/"stop_sequence" when the request's
    ``max_tokens``/``stop_sequences`` cut the text short (as the API would)."""
    msg: Dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if stop_reason is not None:
        msg["stop_reason"] = stop_reason
    if model:
        msg["model"] = model
    return Reply(
        "message",
        message=msg,
        usage=dict(usage or {}),
        headers=dict(headers or {}),
        delay=delay,
        auto_stop=stop_reason is None,
    )


def tool_use_reply(
    name: str,
    input: Dict[str, Any],
    *,
    text: Optional[str] = None,
    tool_use_id: Optional[str] = None,
    stop_reason: str = "tool_use",
    usage: Optional[Dict[str, Any]] = None,
    model: Optional[str] = None,
    headers: Optional[Dict[str, str]] = None,
    delay: float = 0.0,
) -> Reply:
    """An assistant turn calling one tool (optionally preceded by text)."""
    content: List[Dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    content.append(
        {
            "type": "tool_use",
            "id": tool_use_id or _rand_id("toolu_01", 22),
            "name": name,
            "input": input,
        }
    )
    msg: Dict[str, Any] = {"content": content, "stop_reason": stop_reason}
    if model:
        msg["model"] = model
    return Reply("message", message=msg, usage=dict(usage or {}), headers=dict(headers or {}), delay=delay)


def message_reply(
    content: List[Dict[str, Any]],
    *,
    stop_reason: str = "end_turn",
    stop_sequence: Optional[str] = None,
    usage: Optional[Dict[str, Any]] = None,
    model: Optional[str] = None,
    headers: Optional[Dict[str, str]] = None,
    delay: float = 0.0,
) -> Reply:
    """Arbitrary content blocks (e.g. several tool_use blocks).  tool_use
    blocks without an ``id`` get one."""
    blocks = []
    for b in content:
        b = dict(b)
        if b.get("type") == "tool_use" and not b.get("id"):
            b["id"] = _rand_id("toolu_01", 22)
        blocks.append(b)
    msg: Dict[str, Any] = {"content": blocks, "stop_reason": stop_reason, "stop_sequence": stop_sequence}
    if model:
        msg["model"] = model
    return Reply("message", message=msg, usage=dict(usage or {}), headers=dict(headers or {}), delay=delay)


def error_reply(
    status: int,
    error_type: Optional[str] = None,
    message: str = "error",
    *,
    headers: Optional[Dict[str, str]] = None,
    delay: float = 0.0,
) -> Reply:
    """An API error: body ``{"type":"error","error":{"type":..,"message":..},"request_id":..}``."""
    etype = error_type or STATUS_ERROR_TYPE.get(status, "api_error")
    return Reply(
        "error",
        status=status,
        error_type=etype,
        error_message=message,
        headers=dict(headers or {}),
        delay=delay,
    )


def raw_reply(
    status: int,
    body: Union[bytes, str],
    *,
    headers: Optional[Dict[str, str]] = None,
    content_type: str = "application/json",
    delay: float = 0.0,
) -> Reply:
    """Exact bytes on the wire (for malformed / truncated responses)."""
    if isinstance(body, str):
        body = body.encode()
    return Reply("raw", status=status, body=body, headers=dict(headers or {}), content_type=content_type, delay=delay)


def json_reply(value: Any, **kw: Any) -> Reply:
    """A structured-output reply: ``value`` serialized as the text (checked against the schema)."""
    return text_reply(json.dumps(value, ensure_ascii=False), **kw)


def refusal_reply(text: str = "", **kw: Any) -> Reply:
    """The safety classifiers declined: ``stop_reason: "refusal"`` (handling-stop-reasons)."""
    return message_reply([{"type": "text", "text": text}] if text else [], stop_reason="refusal", **kw)


def pause_turn_reply(text: str = "", **kw: Any) -> Reply:
    """A long server-tool turn paused: ``stop_reason: "pause_turn"``; send the reply back to continue."""
    return message_reply([{"type": "text", "text": text}] if text else [], stop_reason="pause_turn", **kw)


def context_window_exceeded_reply(text: str = "", **kw: Any) -> Reply:
    """Generation stopped at the model's context window: ``stop_reason: "model_context_window_exceeded"``."""
    return message_reply([{"type": "text", "text": text}] if text else [], stop_reason="model_context_window_exceeded", **kw)


def _coerce_reply(value: Any) -> Reply:
    if isinstance(value, Reply):
        return value
    if isinstance(value, str):
        return text_reply(value)
    if isinstance(value, dict):
        if value.get("type") == "error" and isinstance(value.get("error"), dict):
            err = value["error"]
            etype = err.get("type", "api_error")
            return error_reply(ERROR_STATUS.get(etype, 500), etype, err.get("message", ""))
        msg = dict(value)
        usage = msg.pop("usage", None) or {}
        auto = "stop_reason" not in msg
        return Reply("message", message=msg, usage=dict(usage), auto_stop=auto)
    raise TypeError(f"responder returned unsupported reply {value!r}")
