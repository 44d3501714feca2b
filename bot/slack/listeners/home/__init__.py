"""App Home: the review queue at a glance (pending, oldest pending age, my decisions today)."""

from __future__ import annotations

from bot.slack import reviewing


def register(app, services, send=None) -> None:
    @app.event("app_home_opened")
    def home_opened(event, client) -> None:
        if event.get("tab", "home") == "home":
            reviewing.publish_home(services, client, user_id=event["user"])
