"""The operations endpoint of `orienta run`: /healthz (the process answers), /readyz (its dependencies), /metrics."""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from bot.ops import readiness
from bot.wiring import metrics

if TYPE_CHECKING:
    from bot.wiring.services import Services

log = logging.getLogger(__name__)


class OpsServer:
    """A small threaded HTTP server in a daemon thread; `stop()` closes it."""

    def __init__(self, svc: "Services", *, host: str, port: int, checks: list[readiness.Check]) -> None:
        self.checks = checks
        self.registry = metrics.registry_for(lambda: svc.engine)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                path = self.path.split("?", 1)[0]
                if path == "/healthz":
                    self._send(200, "text/plain; charset=utf-8", b"ok\n")
                elif path == "/readyz":
                    results = readiness.run_checks(server.checks)
                    ok = all(r["ok"] for r in results)
                    body = json.dumps({"ready": ok, "checks": results}, ensure_ascii=False).encode()
                    self._send(200 if ok else 503, "application/json", body)
                elif path == "/metrics":
                    self._send(200, CONTENT_TYPE_LATEST, generate_latest(server.registry))
                else:
                    self._send(404, "text/plain; charset=utf-8", b"not found\n")

            def _send(self, status: int, ctype: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:  # probes every few seconds: not worth a log line
                log.debug("ops http: " + format, *args)

        self.httpd = ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.host, self.port = self.httpd.server_address[:2]
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="orienta-ops-http", daemon=True)

    def start(self) -> "OpsServer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def start_ops(svc: "Services", *, extra_checks: list[readiness.Check] | None = None, port: int | None = None) -> OpsServer | None:
    """Serve /healthz, /readyz and /metrics on ops.http_host:ops.http_port (None when that port is 0; `port` overrides it, 0 there: any free port)."""
    ops = svc.settings.ops
    if port is None:
        if ops.http_port == 0:
            return None
        port = ops.http_port
    checks = readiness.default_checks(svc) + list(extra_checks or [])
    server = OpsServer(svc, host=ops.http_host, port=port, checks=checks).start()
    log.info("ops endpoint on http://%s:%s (/healthz /readyz /metrics)", server.host, server.port)
    return server
