"""Serving the console with uvicorn: in the foreground (`orienta console`) or in a thread of `orienta run`."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.wiring.services import Services


def _server(services: "Services", *, host: str, port: int, bolt: Any = None, checks=None):
    import uvicorn

    from bot.console.app import create_app

    config = uvicorn.Config(create_app(services, bolt=bolt, checks=checks), host=host, port=port, proxy_headers=True, forwarded_allow_ips="127.0.0.1", log_level="warning", access_log=False)
    return uvicorn.Server(config)


def serve(services: "Services", *, host: str, port: int) -> None:
    """Serve until Ctrl-C."""
    _server(services, host=host, port=port).run()


class ConsoleThread:
    """The console in a daemon thread of the long-running app; `stop()` ends it."""

    def __init__(self, services: "Services", *, host: str, port: int, bolt: Any = None, checks=None) -> None:
        self.server = _server(services, host=host, port=port, bolt=bolt, checks=checks)
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]  (the main thread owns the signals)
        self.thread = threading.Thread(target=self.server.run, name="orienta-console", daemon=True)

    def start(self, timeout: float = 10.0) -> "ConsoleThread":
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        return self

    @property
    def port(self) -> int | None:
        servers = getattr(self.server, "servers", None) or []
        for s in servers:
            for sock in s.sockets:
                return sock.getsockname()[1]
        return None

    def stop(self, timeout: float = 10.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)
