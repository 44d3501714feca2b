"""Slack listeners grouped by kind; each sub-package has one `register(app, services, send)`
(`send`: sends approved replies now, given by whoever runs the loop; None leaves them to its next sending pass)."""

from __future__ import annotations

import importlib

KINDS = ("events", "actions", "views", "home")


def register(app, services, send=None) -> None:
    for kind in KINDS:
        try:
            module = importlib.import_module(f"bot.slack.listeners.{kind}")
        except ModuleNotFoundError as exc:
            if exc.name != f"bot.slack.listeners.{kind}":
                raise
            continue
        module.register(app, services, send)
