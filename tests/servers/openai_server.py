"""A local OpenAI-compatible chat server (`POST /v1/chat/completions`) for driving OpenAICompatLLM.

Replies are scripted through a FIFO queue (``enqueue_text``, ``enqueue_tool_call``, ``enqueue_error``
with optional headers such as ``retry-after``, ``enqueue_raw``, ``enqueue_delay``); when the queue is
empty the server echoes the last user message. Every request is kept in ``server.requests`` (parsed
JSON bodies) and ``server.headers``. Usage is ~4 characters per token; ``cached_tokens`` can be set
per reply to mimic a server with prefix caching.

``json_schema=False`` mimics a server without structured outputs: a request carrying
``response_format: {type: json_schema}`` gets HTTP 400 naming ``response_format`` (as servers that do not
implement it answer); otherwise the schema is checked for the strict shape (``additionalProperties:
false`` on every object) that OpenAI's strict mode requires.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


def _tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class FakeOpenAIServer:
    """Threaded HTTP server on 127.0.0.1 speaking the chat-completions wire format."""

    def __init__(self, *, api_key: str | None = None, json_schema: bool = True) -> None:
        self.api_key = api_key
        self.json_schema = json_schema
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._queue: "queue.Queue[dict]" = queue.Queue()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.fake = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """Base URL including /v1, as Ollama and vLLM document it."""
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    # -- scripting --------------------------------------------------------
    def enqueue_text(self, text: str, *, finish_reason: str = "stop", cached_tokens: int = 0) -> None:
        self._queue.put({"kind": "message", "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason, "cached": cached_tokens})

    def enqueue_tool_call(self, name: str, arguments: dict | str, *, cached_tokens: int = 0) -> None:
        args = arguments if isinstance(arguments, str) else json.dumps(arguments)
        call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": args}}
        self._queue.put({"kind": "message", "message": {"role": "assistant", "content": None, "tool_calls": [call]}, "finish_reason": "tool_calls", "cached": cached_tokens})

    def enqueue_error(self, status: int, message: str = "error", headers: dict[str, str] | None = None) -> None:
        self._queue.put({"kind": "error", "status": status, "message": message, "headers": headers or {}})

    def enqueue_raw(self, status: int, body: bytes) -> None:
        self._queue.put({"kind": "raw", "status": status, "body": body})

    def enqueue_delay(self, seconds: float) -> None:
        self._queue.put({"kind": "delay", "seconds": seconds})

    # -- handling ---------------------------------------------------------
    def handle(self, h: "_Handler") -> None:
        body = h.rfile.read(int(h.headers.get("content-length") or 0))
        self.headers.append({k.lower(): v for k, v in h.headers.items()})
        if h.path.rstrip("/") != "/v1/chat/completions":
            return self._send(h, 404, {"error": {"message": f"not found: {h.path}"}})
        if self.api_key and h.headers.get("authorization") != f"Bearer {self.api_key}":
            return self._send(h, 401, {"error": {"message": "invalid api key", "type": "invalid_request_error"}})
        req = json.loads(body or b"{}")
        self.requests.append(req)
        fmt = req.get("response_format")
        if fmt is not None and fmt.get("type") == "json_schema":
            if not self.json_schema:
                return self._send(h, 400, {"error": {"message": "response_format json_schema is not supported by this server", "type": "invalid_request_error"}})
            problem = _strict_problem((fmt.get("json_schema") or {}).get("schema") or {})
            if problem:
                return self._send(h, 400, {"error": {"message": f"Invalid schema for response_format: {problem}", "type": "invalid_request_error"}})
        try:
            item = self._queue.get_nowait()
        except queue.Empty:
            last = next((m["content"] for m in reversed(req.get("messages", [])) if m.get("role") == "user"), "")
            item = {"kind": "message", "message": {"role": "assistant", "content": f"echo: {last[:200]}"}, "finish_reason": "stop", "cached": 0}
        if item["kind"] == "delay":
            time.sleep(item["seconds"])
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                item = {"kind": "message", "message": {"role": "assistant", "content": "late"}, "finish_reason": "stop", "cached": 0}
        if item["kind"] == "error":
            return self._send(h, item["status"], {"error": {"message": item["message"], "type": "server_error"}}, item["headers"])
        if item["kind"] == "raw":
            return self._send_bytes(h, item["status"], item["body"], {})
        prompt = sum(_tokens(m.get("content") or "") for m in req.get("messages", []))
        msg = item["message"]
        out = _tokens(msg.get("content") or json.dumps(msg.get("tool_calls") or ""))
        usage = {"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out, "prompt_tokens_details": {"cached_tokens": min(item["cached"], prompt)}}
        self._send(h, 200, {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": req.get("model"), "choices": [{"index": 0, "message": msg, "finish_reason": item["finish_reason"]}], "usage": usage})

    def _send(self, h, status: int, obj: dict, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(h, status, json.dumps(obj).encode(), headers or {})

    def _send_bytes(self, h, status: int, body: bytes, headers: dict[str, str]) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True


def _strict_problem(schema: dict, where: str = "schema") -> str | None:
    """Strict JSON-schema mode: objects must set additionalProperties false and list every property as required."""
    if schema.get("type") == "object":
        if schema.get("additionalProperties") is not False:
            return f"{where}: additionalProperties must be false"
        if set(schema.get("required") or []) != set(schema.get("properties") or {}):
            return f"{where}: every property must be required"
    for key, sub in (schema.get("properties") or {}).items():
        found = _strict_problem(sub, f"{where}.{key}")
        if found:
            return found
    if isinstance(schema.get("items"), dict):
        return _strict_problem(schema["items"], f"{where}[]")
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802
        self.server.fake.handle(self)  # type: ignore[attr-defined]

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def openai_server():
    """A fresh FakeOpenAIServer accepting the key "sk-local"."""
    server = FakeOpenAIServer(api_key="sk-local")
    try:
        yield server
    finally:
        server.stop()
