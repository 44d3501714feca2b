"""Slack review fixtures: services on a fresh SQLite database, talking to the local Slack server."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from bot.wiring.services import Services

SIGNING_SECRET = "test-signing-secret-0123456789"
REVIEW_CHANNEL = "CREVIEW01"


@pytest.fixture
def services(settings, slack_server):
    """Services whose Slack settings point at `slack_server`, reviewers U0ANA and U0BETO."""
    settings.slack.bot_token = SecretStr("xoxb-test")
    settings.slack.signing_secret = SecretStr(SIGNING_SECRET)
    settings.slack.base_url = slack_server.api_url
    settings.slack.review_channel = REVIEW_CHANNEL
    settings.slack.reviewers = ["U0ANA", "U0BETO"]
    svc = Services(settings)
    try:
        yield svc
    finally:
        svc.close()


@pytest.fixture
def pg_services(services):
    """The same services on a private schema of the local PostgreSQL server."""
    import secrets

    from sqlalchemy import text

    from review.db import make_engine
    from tests.review.databases import PG_URL, postgres_available

    if not postgres_available():
        pytest.skip(f"PostgreSQL not reachable at {PG_URL}")
    schema = f"t_{secrets.token_hex(6)}"
    admin = make_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    services.settings.database.url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    services.settings.paths.data_dir.mkdir(parents=True, exist_ok=True)  # OutboxMaildir does not create its parent
    try:
        yield services
    finally:
        if "engine" in services.__dict__:
            services.engine.dispose()
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()
