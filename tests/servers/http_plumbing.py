"""The HTTP plumbing the local stand-ins share: a threaded server that dies with the test, and a handler that hands
every request to the stand-in's own `_handle(handler)` (the stand-in is `server.fake`)."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class StandInServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], fake: Any, *, name: str, methods: tuple[str, ...] = ("GET", "POST")) -> None:
        super().__init__(address, handler_for(name, methods))
        self.fake = fake


def handler_for(name: str, methods: tuple[str, ...]) -> type[BaseHTTPRequestHandler]:
    """A keep-alive request handler answering `methods` through `server.fake._handle`, without access logs."""

    def dispatch(self: BaseHTTPRequestHandler) -> None:
        self.server.fake._handle(self)  # type: ignore[attr-defined]

    def log_message(self: BaseHTTPRequestHandler, format: str, *args: Any) -> None:  # noqa: A002  (the base class's name)
        pass

    attrs: dict[str, Any] = {"protocol_version": "HTTP/1.1", "server_version": f"{name}/1.0", "log_message": log_message}
    attrs.update({f"do_{m}": dispatch for m in methods})
    return type(f"{name}Handler", (BaseHTTPRequestHandler,), attrs)
