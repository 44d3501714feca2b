"""pytest fixtures for the fake Anthropic / Slack servers.

Register with ``pytest_plugins = ["tests.servers.api_fixtures"]`` in a
conftest.py (or import the fixtures into a test module).
"""

from __future__ import annotations

import pytest

from tests.servers.anthropic_server import FakeAnthropicServer
from tests.servers.slack_server import FakeSlackServer


@pytest.fixture
def anthropic_server():
    """A fresh FakeAnthropicServer; ``anthropic.Anthropic(base_url=anthropic_server.url, api_key="test")``.

    The test fails if the product sent a request the real API would refuse (even one the
    product then swallowed, e.g. as a skipped item), unless it sets
    ``anthropic_server.refusals_expected = True`` because refusals are what it tests.
    """
    yield from serve_anthropic(FakeAnthropicServer())


def serve_anthropic(server: FakeAnthropicServer):
    """Yield the server, stop it, and fail the test on a refusal it did not expect (the anthropic_server fixture's body)."""
    try:
        yield server
    finally:
        server.stop()
    if server.refusals and not server.refusals_expected:
        pytest.fail("the Anthropic stand-in refused requests the real API would refuse too: "
                    + "; ".join(f"{path} {status}: {message}" for path, status, message in server.refusals[:3]), pytrace=False)


@pytest.fixture
def slack_server():
    """A fresh FakeSlackServer accepting token "xoxb-test";
    ``slack_sdk.WebClient(token="xoxb-test", base_url=slack_server.api_url)``."""
    server = FakeSlackServer()
    try:
        yield server
    finally:
        server.stop()
