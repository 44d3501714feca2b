"""A local stand-in for the Anthropic Messages API (see ``server.py``), with the real per-model rules."""

from .server import (  # noqa: F401
    ERROR_STATUS,
    FakeAnthropicServer,
    RecordedRequest,
    Reply,
    context_window_exceeded_reply,
    error_reply,
    estimate_tokens,
    json_reply,
    message_reply,
    pause_turn_reply,
    raw_reply,
    refusal_reply,
    text_reply,
    tool_use_reply,
)
from .batches import BatchStore  # noqa: F401
from .citations import cited_reply  # noqa: F401
from .rules import MODELS, RETIRED, ModelRules  # noqa: F401
