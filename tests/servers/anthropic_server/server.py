"""A local stand-in for the Anthropic Messages API, for driving the real SDK.

``FakeAnthropicServer`` is a threaded HTTP server on 127.0.0.1 that speaks the
wire format of ``POST /v1/messages``, ``POST /v1/messages/count_tokens``
(build-with-claude/token-counting: the same body without ``max_tokens``, validated
the same way; ``enqueue_count_error`` makes the next count fail) and
``GET /v1/models[/{id}]`` (``models_api.py``), so ``anthropic.Anthropic(base_url=server.url, api_key="test")`` works
unchanged: JSON in, JSON out, errors as
``{"type": "error", "error": {"type": ..., "message": ...}, "request_id": ...}``
with the matching HTTP status (400, 401, 403, 404, 413, 429, 500, 529).

Replies are scripted through a FIFO queue::

    server.enqueue_text("hello", usage={"output_tokens": 3})
    server.enqueue_tool_use("lookup", {"q": "x"})
    server.enqueue_error(429, "rate_limit_error", "slow down", headers={"retry-after": "1"})
    server.enqueue_delay(2.0)            # this request sleeps 2 s (client timeout)
    server.enqueue_raw(200, b"{not json")  # malformed body

When the queue is empty the ``responder`` callable is used
(``responder(request_json) -> reply``); the default echoes the last user text.
A responder (or ``enqueue(callable)``) may return a ``str`` (text reply), a
``dict`` (a partial or complete Message; missing fields are filled in), or a
reply built with ``text_reply`` / ``tool_use_reply`` / ``message_reply`` /
``error_reply`` / ``raw_reply``.

``search_result`` content blocks and the ``search_result_location`` citations of a
reply follow ``citations.py`` (build-with-claude/search-results): malformed results,
citations on some results only, and citations with ``output_config.format`` are 400s;
a scripted reply whose citations the API could not return is a stand-in error (500),
and ``cited_reply(...)`` builds the citations the API would return.

Per-model rules (``rules.py``; the models orienta knows come from pipeline/llm/models.toml,
where each value names its documentation page):
a request the real API refuses for its model gets the same 400
``invalid_request_error`` (sampling parameters, forced ``tool_choice``, assistant
prefill, thinking types and budgets, effort levels, ``max_tokens`` over the model's
limit) and an unknown or retired model id gets 404 ``not_found_error``.
``output_config.format`` schemas are checked against the documented subset
(``schemas.py``); the reply's text is JSON generated from the schema, or, when a script
supplies the text, it is validated against the schema (a script that does not fit is a
500 ``api_error`` starting with "stand-in:" and is listed in ``server.script_errors``).
Models that think by default return a ``thinking`` block (with a ``signature``) before
the text, counted in ``output_tokens``.  The Message Batches endpoints live in
``batches.py`` (``server.batches``).

Usage is computed from the request: roughly one token per 4 characters, with
prompt-caching semantics: every ``cache_control`` marker (on a tool, a system
block, a message content block, or the top-level ``cache_control``) is a
breakpoint; the prefix up to the last breakpoint is written to the cache the
first time (``cache_creation_input_tokens``) and read on later identical
prefixes (``cache_read_input_tokens``), keyed by model + a hash of the prefix,
with 5 minute (or ``ttl: "1h"``) expiry.  ``input_tokens`` counts only what
follows the last breakpoint, as the real API does.

Every request is recorded in ``server.requests`` (``RecordedRequest``).
Authentication: the key may arrive as ``x-api-key`` or as
``Authorization: Bearer <key>`` (what anthropic SDK 2.x sends for
``api_key=``); a request with neither gets 401 ``authentication_error``.
"""

from __future__ import annotations

import hashlib
import json
import math
import queue
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Dict, List, Optional, Tuple, Union
from urllib.parse import parse_qs

import datetime as dt

from . import citations, models_api
from . import rules as model_rules
from . import schemas
from ..http_plumbing import StandInServer

from .batches import BatchStore
from .rules import RuleError, ThinkingPlan

__all__ = [
    "FakeAnthropicServer",
    "RecordedRequest",
    "Reply",
    "text_reply",
    "tool_use_reply",
    "message_reply",
    "error_reply",
    "raw_reply",
    "estimate_tokens",
    "json_reply",
    "refusal_reply",
    "pause_turn_reply",
    "context_window_exceeded_reply",
]

from .replies import (  # noqa: E402,F401  (re-exported)
    ERROR_STATUS,
    STATUS_ERROR_TYPE,
    Reply,
    _coerce_reply,
    _rand_id,
    context_window_exceeded_reply,
    error_reply,
    json_reply,
    message_reply,
    pause_turn_reply,
    raw_reply,
    refusal_reply,
    text_reply,
    tool_use_reply,
)


def estimate_tokens(text: str) -> int:
    """Plausible token estimate: ~3.5 characters per token (the docs' rule of thumb, and what the
    product and benchmarks/llm_cost.py assume), at least 1."""
    if not text:
        return 0
    return max(1, math.ceil(len(text) / 3.5))


# --------------------------------------------------------------------------
# Recording
# --------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: Dict[str, str]  # lower-cased names
    body: bytes
    json: Any  # parsed body, or None if not JSON
    time: float
    status: Optional[int] = None  # status of the response sent
    response: Any = None  # JSON sent back (None for raw / unsent)

    @property
    def api_key(self) -> Optional[str]:
        """The credential sent: ``x-api-key``, else the ``Authorization: Bearer``
        token (anthropic SDK 2.x sends ``api_key`` as a Bearer token)."""
        key = self.headers.get("x-api-key")
        if key:
            return key
        auth = self.headers.get("authorization", "")
        return auth[7:].strip() or None if auth.lower().startswith("bearer ") else None

    @property
    def anthropic_version(self) -> Optional[str]:
        return self.headers.get("anthropic-version")


class _ApiError(Exception):
    def __init__(self, status: int, error_type: str, message: str):
        super().__init__(message)
        self.status = status
        self.error_type = error_type
        self.message = message


# --------------------------------------------------------------------------
# Server
# --------------------------------------------------------------------------


def _default_responder(req: Dict[str, Any]) -> Reply:
    last = ""
    for m in reversed(req.get("messages") or []):
        if m.get("role") != "user":
            continue
        c = m.get("content")
        if isinstance(c, str):
            last = c
        elif isinstance(c, list):
            last = " ".join(
                b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text"
            )
        break
    reply = text_reply(f"echo: {last[:200]}" if last else "echo")
    reply.auto_json = True
    return reply


class FakeAnthropicServer:
    """Local HTTP server speaking the Anthropic Messages API wire format.

    Constructor options (all keyword):
      host / port         bind address (port 0 = pick a free port)
      api_keys            iterable of accepted keys (x-api-key header or Authorization: Bearer);
                          None = any non-empty key
      responder           callable(request_json) -> reply, used when the queue is empty
      validate            check request bodies like the API (400 invalid_request_error)
      require_version     reject a missing ``anthropic-version`` header
      min_cache_tokens    prefixes shorter than this are not cached; default None = the
                          model's documented minimum (rules.py [CACHE]), 0 for no minimum
      token_counter       callable(str) -> int (default: chars/4)
      clock               callable() -> seconds, for cache TTLs, batch times and model
                          retirement dates (default time.time)
      enforce_models      apply the per-model rules of rules.py (default True; needs validate)
      batch_polls_to_end  retrieves a batch answers ``in_progress`` before it ends (default 1)
      unknown_models      "reject" (default: 404 like the API) or "strictest" (an unlisted
                          claude-* id is served with every current refusal, rules.STRICTEST)
      start               start serving immediately (default True)
    Use as a context manager or call ``stop()``.
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        api_keys: Optional[Any] = None,
        responder: Optional[Callable[[Dict[str, Any]], Any]] = None,
        validate: bool = True,
        require_version: bool = True,
        min_cache_tokens: Optional[int] = None,
        token_counter: Callable[[str], int] = estimate_tokens,
        clock: Callable[[], float] = time.time,
        start: bool = True,
        enforce_models: bool = True,
        batch_polls_to_end: int = 1,
        unknown_models: str = "reject",
    ) -> None:
        self.api_keys = set(api_keys) if api_keys is not None else None
        self.responder: Callable[[Dict[str, Any]], Any] = responder or _default_responder
        self.validate = validate
        self.require_version = require_version
        self.min_cache_tokens = min_cache_tokens
        self.token_counter = token_counter
        self.clock = clock
        self.enforce_models = enforce_models
        self.unknown_models = unknown_models
        self.script_errors: List[str] = []
        # requests the real API would refuse (validation / per-model rules), as (path, status, message);
        # the ``anthropic_server`` fixture fails a test that leaves any here unless it sets refusals_expected
        self.refusals: List[Tuple[str, int, str]] = []
        self.refusals_expected = False
        self._count_errors: "queue.Queue[Reply]" = queue.Queue()  # scripted failures of /v1/messages/count_tokens
        self.batches = BatchStore(answer=self._answer, clock=clock, polls_to_end=batch_polls_to_end)
        self.requests: List[RecordedRequest] = []
        self._queue: "queue.Queue[Any]" = queue.Queue()
        self._lock = threading.RLock()
        self._cache: Dict[str, float] = {}  # prefix key -> expiry
        self._stopping = threading.Event()
        self._httpd = StandInServer((host, port), self, name="fake-anthropic", methods=("GET", "POST", "PUT", "DELETE"))
        self._thread: Optional[threading.Thread] = None
        if start:
            self.start()

    # -- lifecycle --------------------------------------------------------
    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """Base URL for ``anthropic.Anthropic(base_url=server.url)``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "FakeAnthropicServer":
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="fake-anthropic", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(5)
            self._thread = None
        self._httpd.server_close()

    close = stop

    def __enter__(self) -> "FakeAnthropicServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- scripting --------------------------------------------------------
    def enqueue(self, reply: Any) -> None:
        """Queue a Reply, str, dict, or callable(request_json) -> reply."""
        self._queue.put(reply)

    def enqueue_text(self, text: str, *, stop_reason: Optional[str] = None, usage: Optional[Dict[str, Any]] = None, **kw: Any) -> None:
        self.enqueue(text_reply(text, stop_reason=stop_reason, usage=usage, **kw))

    def enqueue_tool_use(self, name: str, input: Dict[str, Any], **kw: Any) -> None:
        self.enqueue(tool_use_reply(name, input, **kw))

    def enqueue_message(self, content: List[Dict[str, Any]], **kw: Any) -> None:
        self.enqueue(message_reply(content, **kw))

    def enqueue_error(
        self,
        status: int,
        error_type: Optional[str] = None,
        message: str = "error",
        headers: Optional[Dict[str, str]] = None,
        *,
        delay: float = 0.0,
    ) -> None:
        self.enqueue(error_reply(status, error_type, message, headers=headers, delay=delay))

    def enqueue_count_error(self, status: int, error_type: Optional[str] = None, message: str = "error") -> None:
        """The next ``/v1/messages/count_tokens`` request fails with this error (the Messages queue is untouched)."""
        self._count_errors.put(error_reply(status, error_type, message))

    def enqueue_delay(self, seconds: float, reply: Any = None) -> None:
        """The next request sleeps ``seconds`` before answering with ``reply``
        (default: the responder).  Does not consume a further queue item, so a
        client retry after its timeout gets whatever is queued next."""
        self.enqueue(("delay", seconds, reply))

    def enqueue_raw(self, status: int, body: Union[bytes, str], headers: Optional[Dict[str, str]] = None, *, content_type: str = "application/json") -> None:
        self.enqueue(raw_reply(status, body, headers=headers, content_type=content_type))

    def set_responder(self, responder: Callable[[Dict[str, Any]], Any]) -> None:
        self.responder = responder

    @property
    def pending(self) -> int:
        """Number of scripted replies not yet consumed."""
        return self._queue.qsize()

    def reset(self) -> None:
        """Forget requests, queued replies and the prompt cache."""
        with self._lock:
            self.requests.clear()
            self._cache.clear()
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    # -- inspection -------------------------------------------------------
    @property
    def message_requests(self) -> List[RecordedRequest]:
        return [r for r in self.requests if r.path == "/v1/messages"]

    @property
    def last_request(self) -> Optional[RecordedRequest]:
        return self.requests[-1] if self.requests else None

    # -- token accounting -------------------------------------------------
    def _segments(self, req: Dict[str, Any]) -> List[Tuple[str, Optional[Dict[str, Any]]]]:
        """Ordered (text, cache_control) pieces: tools, system, messages."""
        segs: List[Tuple[str, Optional[Dict[str, Any]]]] = []

        def strip(d: Dict[str, Any]) -> Dict[str, Any]:
            return {k: v for k, v in d.items() if k != "cache_control"}

        for tool in req.get("tools") or []:
            if isinstance(tool, dict):
                segs.append((json.dumps(strip(tool), sort_keys=True), tool.get("cache_control")))
        system = req.get("system")
        if isinstance(system, str) and system:
            segs.append(("system:" + system, None))
        elif isinstance(system, list):
            for b in system:
                if isinstance(b, dict):
                    segs.append(("system:" + str(b.get("text", "")), b.get("cache_control")))
        for m in req.get("messages") or []:
            if not isinstance(m, dict):
                continue
            role = m.get("role", "")
            c = m.get("content")
            if isinstance(c, str):
                segs.append((f"{role}:{c}", None))
            elif isinstance(c, list):
                for b in c:
                    if not isinstance(b, dict):
                        continue
                    t = b.get("type")
                    if t == "text":
                        body = str(b.get("text", ""))
                    elif t == "image" or t == "document":
                        body = "x" * 3500  # ~1000 tokens per image/document
                    elif t == "search_result":  # its title, source and text blocks are what the model reads (citations.py [SR])
                        body = "\n".join([str(b.get("title", "")), str(b.get("source", ""))] + [str(x.get("text", "")) for x in b.get("content") or [] if isinstance(x, dict)])
                    elif t == "tool_result":
                        rc = b.get("content")
                        body = rc if isinstance(rc, str) else json.dumps(rc, sort_keys=True)
                        body = f"{b.get('tool_use_id')}:{body}"
                    else:
                        body = json.dumps(strip(b), sort_keys=True)
                    segs.append((f"{role}:{t}:{body}", b.get("cache_control")))
        if isinstance(req.get("cache_control"), dict) and segs:
            # automatic caching: breakpoint on the last cacheable block
            text, cc = segs[-1]
            segs[-1] = (text, cc or req["cache_control"])
        return segs

    def count_input_tokens(self, req: Dict[str, Any]) -> int:
        return sum(self.token_counter(t) for t, _ in self._segments(req))

    def _usage(self, req: Dict[str, Any], output_tokens: int) -> Dict[str, Any]:
        segs = self._segments(req)
        model = str(req.get("model", ""))
        counts = [self.token_counter(t) for t, _ in segs]
        cum: List[int] = []
        running = 0
        for c in counts:
            running += c
            cum.append(running)
        total = running
        h = hashlib.sha256(model.encode())
        keys: List[str] = []
        for text, _ in segs:
            h.update(b"\x00" + text.encode())
            keys.append(h.hexdigest())
        bps = [
            i
            for i, (_, cc) in enumerate(segs)
            if isinstance(cc, dict) and cum[i] >= self._min_cache(model)
        ]
        creation = read = 0
        created_1h = 0
        if bps:
            now = self.clock()
            last = bps[-1]
            with self._lock:
                hit = -1
                for i in reversed(bps):
                    exp = self._cache.get(keys[i])
                    if exp is not None and exp > now:
                        hit = i
                        break
                read = cum[hit] if hit >= 0 else 0
                creation = cum[last] - read
                for i in bps:
                    cc = segs[i][1] or {}
                    ttl = 3600.0 if cc.get("ttl") == "1h" else 300.0
                    self._cache[keys[i]] = max(self._cache.get(keys[i], 0.0), now + ttl)
                if creation and (segs[last][1] or {}).get("ttl") == "1h":
                    created_1h = creation
            uncached = total - cum[last]
        else:
            uncached = total
        return {
            "input_tokens": uncached,
            "cache_creation_input_tokens": creation,
            "cache_read_input_tokens": read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": creation - created_1h,
                "ephemeral_1h_input_tokens": created_1h,
            },
            "output_tokens": output_tokens,
            "service_tier": "standard",
        }

    # -- validation -------------------------------------------------------
    def _validate(self, req: Any, *, count_only: bool) -> None:
        def bad(msg: str) -> None:
            raise _ApiError(400, "invalid_request_error", msg)

        if not isinstance(req, dict):
            bad("Input should be an object")
        if not req.get("model"):
            bad("model: Field required")
        if not count_only:
            mt = req.get("max_tokens")
            if mt is None:
                bad("max_tokens: Field required")
            if not isinstance(mt, int) or isinstance(mt, bool) or mt < 1:
                bad("max_tokens: Input should be greater than or equal to 1")
        msgs = req.get("messages")
        if msgs is None:
            bad("messages: Field required")
        if not isinstance(msgs, list):
            bad("messages: Input should be a valid list")
        if not msgs:
            bad("messages: at least one message is required")
        sysv = req.get("system")
        if sysv is not None and not isinstance(sysv, (str, list)):
            bad("system: Input should be a valid string or list")
        prev_tool_ids: List[str] = []
        for i, m in enumerate(msgs):
            if not isinstance(m, dict):
                bad(f"messages.{i}: Input should be a valid dictionary")
            role = m.get("role")
            if role not in ("user", "assistant"):
                bad(f"messages.{i}.role: Input should be 'user' or 'assistant'")
            content = m.get("content")
            if content is None:
                bad(f"messages.{i}.content: Field required")
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            if isinstance(content, list) and not content and not (role == "assistant" and i == len(msgs) - 1):
                bad(f"messages.{i}: all messages must have non-empty content except for the optional final assistant message")
            result_ids: List[str] = []
            tool_ids: List[str] = []
            for j, b in enumerate(blocks):
                if not isinstance(b, dict) or "type" not in b:
                    bad(f"messages.{i}.content.{j}.type: Field required")
                t = b["type"]
                if t == "text" and not isinstance(b.get("text"), str):
                    bad(f"messages.{i}.content.{j}.text: Field required")
                if t == "text" and isinstance(b.get("text"), str) and not b["text"] and role == "user":
                    bad(f"messages.{i}.content.{j}.text: text content blocks must be non-empty")
                if t == "tool_use":
                    if role != "assistant":
                        bad(f"messages.{i}.content.{j}: tool_use blocks may only appear in assistant messages")
                    tool_ids.append(str(b.get("id")))
                if t == "tool_result":
                    if role != "user":
                        bad(f"messages.{i}.content.{j}: tool_result blocks may only appear in user messages")
                    result_ids.append(str(b.get("tool_use_id")))
            if role == "user":
                unexpected = [r for r in result_ids if r not in prev_tool_ids]
                if unexpected:
                    bad(
                        f"messages.{i}.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
                        f"{unexpected[0]}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                    )
            missing = [t for t in prev_tool_ids if t not in result_ids]
            if prev_tool_ids and missing:
                bad(
                    f"messages.{i - 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                    f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
                )
            prev_tool_ids = tool_ids if role == "assistant" else []
        if prev_tool_ids and not count_only:
            # last message is an assistant turn with tool_use: API rejects it too
            bad(
                f"messages.{len(msgs) - 1}: `tool_use` ids were found without `tool_result` blocks immediately after: "
                f"{', '.join(prev_tool_ids)}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
            )
        oc = req.get("output_config")
        if oc is not None and not isinstance(oc, dict):
            bad("output_config: Input should be a valid dictionary")
        if isinstance(oc, dict) and oc.get("format") is not None:
            try:
                schemas.check_format(oc["format"])
            except RuleError as e:
                raise _ApiError(e.status, e.error_type, e.message) from None
        try:
            citations.check_request(req)  # search_result blocks and their citations (citations.py [SR] [SO])
        except RuleError as e:
            raise _ApiError(e.status, e.error_type, e.message) from None
        if self.enforce_models:
            try:
                rules = model_rules.rules_for(req.get("model"), self.today(), unknown=self.unknown_models)
                model_rules.check_request(req, rules, count_only=count_only)
            except RuleError as e:
                raise _ApiError(e.status, e.error_type, e.message) from None

    def _min_cache(self, model: str) -> int:
        if self.min_cache_tokens is not None:
            return self.min_cache_tokens
        if not self.enforce_models:
            return 0
        try:
            return model_rules.rules_for(model, self.today(), unknown=self.unknown_models).min_cache_tokens
        except RuleError:
            return 0

    def _checked(self, req: Any, path: str, *, count_only: bool) -> None:
        try:
            self._validate(req, count_only=count_only)
        except _ApiError as e:
            with self._lock:
                self.refusals.append((path, e.status, e.message))
            raise

    def today(self) -> dt.date:
        """The server's date (from ``clock``), for model retirement dates."""
        return dt.datetime.fromtimestamp(self.clock(), dt.timezone.utc).date()

    def _thinking_plan(self, req: Dict[str, Any]) -> ThinkingPlan:
        if not self.enforce_models:
            return ThinkingPlan(on=False, omitted=True)
        try:
            rules = model_rules.rules_for(req.get("model"), self.today(), unknown=self.unknown_models)
        except RuleError:
            return ThinkingPlan(on=False, omitted=True)
        return ThinkingPlan.for_request(req, rules)

    # -- request handling -------------------------------------------------
    def _next_reply(self, req: Dict[str, Any]) -> Tuple[Reply, float]:
        delay = 0.0
        try:
            item = self._queue.get_nowait()
        except queue.Empty:
            item = self.responder
            return _coerce_reply(item(req)), delay
        if isinstance(item, tuple) and item and item[0] == "delay":
            _, delay, inner = item
            item = inner if inner is not None else self.responder
        if callable(item) and not isinstance(item, Reply):
            item = item(req)
        reply = _coerce_reply(item)
        return reply, delay + reply.delay

    def _build_message(self, reply: Reply, req: Dict[str, Any]) -> Dict[str, Any]:
        msg = dict(reply.message)
        content = [dict(b) for b in msg.get("content") or []]
        stop_reason = msg.get("stop_reason", "end_turn")
        stop_sequence = msg.get("stop_sequence")
        plan = self._thinking_plan(req)
        max_tokens = max(1, (req.get("max_tokens") or 0) - plan.tokens) if req.get("max_tokens") else 0
        fmt = (req.get("output_config") or {}).get("format") if isinstance(req.get("output_config"), dict) else None
        if isinstance(fmt, dict) and isinstance(fmt.get("schema"), dict):
            schema = fmt["schema"]
            if reply.auto_json:
                content = [{"type": "text", "text": json.dumps(schemas.instance(schema), ensure_ascii=False)}]
            elif stop_reason not in ("refusal", "max_tokens", "pause_turn", "model_context_window_exceeded"):
                text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
                problems = schemas.fits(schema, text)
                if problems:
                    note = f"stand-in: scripted reply does not fit output_config.format: {'; '.join(problems[:3])}"
                    self.script_errors.append(note)
                    raise _ApiError(500, "api_error", note)
        if citations.citations_enabled(req) and reply.auto_json:
            content = citations.auto_reply(req)
        problems = citations.check_reply(req, content)
        if problems:
            note = f"stand-in: scripted reply's citations are not what the API returns: {'; '.join(problems[:3])}"
            self.script_errors.append(note)
            raise _ApiError(500, "api_error", note)
        if reply.auto_stop:
            stop_reason, stop_sequence = "end_turn", None
            seqs = [s for s in req.get("stop_sequences") or [] if isinstance(s, str) and s]
            for b in content:
                if b.get("type") == "text" and seqs:
                    txt = b["text"]
                    hits = [(txt.find(s), s) for s in seqs if s in txt]
                    if hits:
                        pos, seq = min(hits)
                        b["text"] = txt[:pos]
                        stop_reason, stop_sequence = "stop_sequence", seq
            out = sum(self.token_counter(b.get("text", "")) for b in content if b.get("type") == "text")
            if max_tokens and out > max_tokens:
                budget = int(max_tokens * 3.5)
                for b in content:
                    if b.get("type") == "text":
                        b["text"] = b["text"][:budget]
                        budget -= len(b["text"])
                stop_reason, stop_sequence = "max_tokens", None
        output_tokens = 0
        for b in content:
            if b.get("type") == "text":
                output_tokens += self.token_counter(b.get("text", ""))
            elif b.get("type") == "tool_use":
                output_tokens += self.token_counter(json.dumps(b.get("input", {}))) + 10
            else:
                output_tokens += self.token_counter(json.dumps(b))
        output_tokens = max(1, output_tokens)
        if max_tokens and reply.auto_stop:
            output_tokens = min(output_tokens, max_tokens)
        if plan.on and not any(b.get("type") in ("thinking", "redacted_thinking") for b in content):
            # adaptive thinking: the thinking block comes first and is billed as output
            thought = "" if plan.omitted else "Reviso la consulta y los extractos antes de responder."
            content.insert(0, {"type": "thinking", "thinking": thought, "signature": _rand_id("sig_", 40)})
            output_tokens += plan.tokens
        usage = self._usage(req, output_tokens)
        usage.update(reply.usage)
        return {
            "id": msg.get("id") or _rand_id("msg_01"),
            "type": "message",
            "role": "assistant",
            "model": msg.get("model") or req.get("model"),
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": stop_sequence,
            "usage": usage,
        }

    def _answer(self, params: Dict[str, Any]) -> Tuple[int, Dict[str, Any]]:
        """One Messages request as a batch runs it: ``(200, message)`` or ``(status, error body)``."""
        request_id = _rand_id("req_01")
        try:
            if self.validate:
                self._checked(params, "/v1/messages/batches", count_only=False)
            reply, _ = self._next_reply(params)
            if reply.kind == "error":
                raise _ApiError(reply.status, reply.error_type, reply.error_message)
            if reply.kind == "raw":
                raise _ApiError(500, "api_error", "Internal server error")
            return 200, self._build_message(reply, params)
        except _ApiError as e:
            return e.status, {"type": "error", "error": {"type": e.error_type, "message": e.message}, "request_id": request_id}

    def _route_batches(self, handler: "BaseHTTPRequestHandler", rec: "RecordedRequest", path: str, query: Dict[str, List[str]], request_id: str) -> None:
        parts = path[len("/v1/messages/batches"):].strip("/").split("/") if path != "/v1/messages/batches" else []
        verb = handler.command
        hdrs = {"request-id": request_id}
        if not parts and verb == "POST":
            if rec.json is None:
                raise _ApiError(400, "invalid_request_error", "Request body is not valid JSON")
            obj = self.batches.create(rec.json, len(rec.body))
            obj["results_url"] = None
            return self._send_json(handler, rec, 200, obj, hdrs)
        if not parts and verb == "GET":
            limit = int((query.get("limit") or ["20"])[0])
            after = (query.get("after_id") or [None])[0]
            return self._send_json(handler, rec, 200, self.batches.list(self.url, limit=limit, after_id=after), hdrs)
        if len(parts) == 1 and verb == "GET":
            return self._send_json(handler, rec, 200, self.batches.retrieve(parts[0], self.url), hdrs)
        if len(parts) == 1 and verb == "DELETE":
            return self._send_json(handler, rec, 200, self.batches.delete(parts[0]), hdrs)
        if len(parts) == 2 and parts[1] == "cancel" and verb == "POST":
            return self._send_json(handler, rec, 200, self.batches.cancel(parts[0], self.url), hdrs)
        if len(parts) == 2 and parts[1] == "results" and verb == "GET":
            return self._send(handler, rec, 200, self.batches.results_jsonl(parts[0]), "application/binary", hdrs)
        raise _ApiError(404, "not_found_error", f"Not Found: {verb} {path}")

    def _handle(self, handler: "BaseHTTPRequestHandler") -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in handler.headers.items()}
        path = handler.path.split("?", 1)[0]
        query = parse_qs(handler.path.split("?", 1)[1]) if "?" in handler.path else {}
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        rec = RecordedRequest(handler.command, path, headers, body, parsed, time.time())
        with self._lock:
            self.requests.append(rec)
        request_id = _rand_id("req_01")
        try:
            is_batches = path == "/v1/messages/batches" or path.startswith("/v1/messages/batches/")
            is_models = handler.command == "GET" and (path == "/v1/models" or path.startswith("/v1/models/"))
            if not is_batches and not is_models and (handler.command != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens")):
                raise _ApiError(404, "not_found_error", f"Not Found: {handler.command} {path}")
            key = rec.api_key
            if not key:
                raise _ApiError(401, "authentication_error", "x-api-key header is required")
            if self.api_keys is not None and key not in self.api_keys:
                raise _ApiError(401, "authentication_error", "invalid x-api-key")
            if self.require_version and not headers.get("anthropic-version"):
                raise _ApiError(400, "invalid_request_error", "anthropic-version: header is required")
            if is_models:  # models_api.py: lifecycle, limits and capabilities
                try:
                    obj = models_api.model_list(self.today()) if path == "/v1/models" else models_api.model_info(path[len("/v1/models/"):], self.today(), unknown=self.unknown_models)
                except RuleError as e:
                    raise _ApiError(e.status, e.error_type, e.message) from None
                return self._send_json(handler, rec, 200, obj, {"request-id": request_id})
            if is_batches:
                try:
                    return self._route_batches(handler, rec, path, query, request_id)
                except RuleError as e:
                    raise _ApiError(e.status, e.error_type, e.message) from None
            if parsed is None:
                raise _ApiError(400, "invalid_request_error", "Request body is not valid JSON")
            # build-with-claude/token-counting: count_tokens takes the same body (without max_tokens)
            # and is validated like a message request, so a refused request cannot be counted either
            count_only = path.endswith("/count_tokens")
            if self.validate:
                self._checked(parsed, path, count_only=count_only)
            if count_only:
                try:
                    failure = self._count_errors.get_nowait()
                except queue.Empty:
                    failure = None
                if failure is not None:
                    raise _ApiError(failure.status, failure.error_type, failure.error_message)
                self._send_json(handler, rec, 200, {"input_tokens": self.count_input_tokens(parsed)}, {"request-id": request_id})
                return
            reply, delay = self._next_reply(parsed)
        except _ApiError as e:
            self._send_error(handler, rec, e.status, e.error_type, e.message, {}, request_id)
            return
        if delay and self._stopping.wait(delay):
            return
        hdrs = {"request-id": request_id, **reply.headers}
        if reply.kind == "error":
            self._send_error(handler, rec, reply.status, reply.error_type, reply.error_message, hdrs, request_id)
        elif reply.kind == "raw":
            self._send(handler, rec, reply.status, reply.body, reply.content_type, hdrs)
        else:
            try:
                message = self._build_message(reply, parsed)
            except _ApiError as e:
                self._send_error(handler, rec, e.status, e.error_type, e.message, {}, request_id)
                return
            self._send_json(handler, rec, 200, message, hdrs)

    def _send_error(self, handler, rec, status, etype, message, headers, request_id) -> None:
        body = {"type": "error", "error": {"type": etype, "message": message}, "request_id": request_id}
        self._send_json(handler, rec, status, body, {"request-id": request_id, **headers})

    def _send_json(self, handler, rec, status, obj, headers) -> None:
        rec.response = obj
        self._send(handler, rec, status, json.dumps(obj).encode(), "application/json", headers)

    def _send(self, handler, rec, status, body: bytes, content_type: str, headers: Dict[str, str]) -> None:
        rec.status = status
        try:
            handler.send_response(status, "Overloaded" if status == 529 else None)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                handler.send_header(k, str(v))
            handler.end_headers()
            handler.wfile.write(body)
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            handler.close_connection = True
