"""The Bolt app: built from Services, listeners registered by kind (events, actions, views, home)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from pipeline.errors import ConfigurationError

if TYPE_CHECKING:
    from slack_bolt import App
    from slack_sdk import WebClient

    from bot.wiring.services import Services


def web_client(services: "Services") -> "WebClient":
    """The Slack Web API client for the configured bot token (and base URL, for local test servers)."""
    from slack_sdk import WebClient

    s = services.settings.slack
    if s.bot_token is None:
        raise ConfigurationError("Slack is not configured: set ORIENTA_SLACK__BOT_TOKEN")
    kwargs = {"token": s.bot_token.get_secret_value()}
    if s.base_url:
        kwargs["base_url"] = s.base_url
    return WebClient(**kwargs)


def bolt_logger() -> logging.Logger:
    """Bolt's base logger, held at WARNING even under `-v`: at INFO Bolt logs the bodies of rejected requests (students' messages)."""
    logger = logging.getLogger("orienta.slack.bolt")
    logger.setLevel(logging.WARNING)
    return logger


def build_app(services: "Services", *, client: "WebClient | None" = None, send: "Callable[[], None] | None" = None) -> "App":
    """A Bolt app wired to orienta's services (HTTP mode with the signing secret; Socket Mode needs none); `send` sends approved replies now."""
    from slack_bolt import App

    from bot.slack import listeners

    s = services.settings.slack
    if s.signing_secret is None and not s.socket_mode:
        raise ConfigurationError("Slack HTTP mode needs ORIENTA_SLACK__SIGNING_SECRET")
    app = App(
        signing_secret=s.signing_secret.get_secret_value() if s.signing_secret else None,
        client=client or web_client(services),
        process_before_response=False,
        token_verification_enabled=True,
        logger=bolt_logger(),
    )
    listeners.register(app, services, send)
    return app
