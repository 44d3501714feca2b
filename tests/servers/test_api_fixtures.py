"""The anthropic_server fixture fails a test whose requests the real API would refuse."""

from __future__ import annotations

import os
from pathlib import Path

pytest_plugins = ["pytester"]

TEST = '''
import anthropic, pytest

def _ask(server, **kw):
    client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
    try:
        client.messages.create(model="claude-sonnet-5-5", max_tokens=64, messages=[{"role": "user", "content": "x"}], **kw)
    except anthropic.BadRequestError:
        pass  # a product that swallows the error still fails the test

def test_swallowed_refusal(anthropic_server):
    _ask(anthropic_server, extra_body={"temperature": 0.0})

def test_expected_refusal(anthropic_server):
    anthropic_server.refusals_expected = True
    _ask(anthropic_server, extra_body={"temperature": 0.0})

def test_compliant(anthropic_server):
    _ask(anthropic_server, output_config={"effort": "low"})
'''


def test_the_guard_fails_only_unexpected_refusals(pytester, monkeypatch):
    # The inner run starts in a temporary folder: it finds the fixture plugin through PYTHONPATH.
    root = str(Path(__file__).resolve().parents[2])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    pytester.makeconftest('pytest_plugins = ["tests.servers.api_fixtures"]')
    pytester.makepyfile(test_guard=TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(["*refused requests the real API would refuse too*`temperature` is deprecated for this model.*"])
