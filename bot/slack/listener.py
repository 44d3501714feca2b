"""How Slack reaches orienta: Socket Mode (an outgoing WebSocket, nothing public) or HTTP behind waitress and an HTTPS proxy."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.errors import ChannelError
from pipeline.errors import ConfigurationError

if TYPE_CHECKING:
    from slack_bolt import App

    from bot.wiring.services import Services

log = logging.getLogger(__name__)


class SlackListener:
    """Starts and stops the Bolt app's receiver, as `ORIENTA_SLACK__SOCKET_MODE` says."""

    def __init__(self, services: "Services", bolt: "App | None" = None, *, send: "Callable[[], None] | None" = None) -> None:
        self.settings = services.settings.slack
        if self.settings.socket_mode and self.settings.app_token is None:
            raise ConfigurationError("Slack Socket Mode needs ORIENTA_SLACK__APP_TOKEN (an app-level token, xapp-..., with connections:write)")
        if bolt is None:
            from bot.slack.app import build_app

            bolt = build_app(services, send=send)
        self.bolt = bolt
        self.http_server = None
        self.socket_handler = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int | None:
        """The HTTP port actually bound (useful with port 0), None in Socket Mode."""
        return self.http_server.effective_port if self.http_server is not None else None

    def start(self) -> "SlackListener":
        if self.settings.socket_mode:
            from slack_bolt.adapter.socket_mode import SocketModeHandler

            # the Web API client of the Bolt app (its base_url) also opens the connection: apps.connections.open
            from slack_sdk.errors import SlackApiError

            self.socket_handler = SocketModeHandler(self.bolt, self.settings.app_token.get_secret_value())
            try:
                self.socket_handler.connect()
            except SlackApiError as exc:
                self.socket_handler.close()
                self.socket_handler = None
                raise ChannelError(f"Slack Socket Mode could not connect: {exc.response.get('error')} (ORIENTA_SLACK__APP_TOKEN must be an app-level token, xapp-..., with connections:write)") from exc
            log.info("Slack events over Socket Mode")
            return self
        import waitress
        from slack_bolt.adapter.wsgi import SlackRequestHandler

        s = self.settings
        self.http_server = waitress.create_server(SlackRequestHandler(self.bolt), host=s.host, port=s.port, threads=s.http_threads, ident="orienta")
        log.info("Slack events on http://%s:%s/slack/events (put an HTTPS reverse proxy in front)", s.host, self.port)
        self._thread = threading.Thread(target=self._serve, name="orienta-slack-http", daemon=True)
        self._thread.start()
        return self

    def _serve(self) -> None:
        try:
            self.http_server.run()
        except OSError:  # the listening socket was closed by stop()
            pass

    def stop(self, timeout: float = 10.0) -> None:
        if self.socket_handler is not None:
            self.socket_handler.close()
            self.socket_handler = None
        server, self.http_server = self.http_server, None
        if server is not None:
            for channel in list(server._map.values()):  # waitress has no public shutdown: close every channel, end the loop
                if channel is not server:
                    channel.close()
            server.close()
            server.task_dispatcher.shutdown()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
