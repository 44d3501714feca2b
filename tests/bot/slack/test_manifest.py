"""bot/slack/manifest.yml against the code: every Web API method the code calls has its scope, every event handled is
subscribed, interactivity and App Home are on because handlers use them, and nothing more is asked for."""

from __future__ import annotations

import inspect
import re
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import pytest

yaml = pytest.importorskip("yaml", reason="PyYAML (test extra) reads the manifest")

ROOT = Path(__file__).resolve().parents[3]
MANIFEST = ROOT / "bot" / "slack" / "manifest.yml"

# Bot scopes each Web API method needs for the conversations orienta works in (public and private channels, DMs),
# from each method's page, https://docs.slack.dev/reference/methods/<method>.
METHOD_SCOPES: dict[str, set[str]] = {
    "auth.test": set(),  # Bolt checks the token at start
    "chat.postMessage": {"chat:write"},
    "chat.update": {"chat:write"},
    "chat.postEphemeral": {"chat:write"},
    "conversations.members": {"channels:read", "groups:read"},
    "conversations.info": {"channels:read", "groups:read"},  # orienta doctor: the review channel (public or private)
    "conversations.open": {"im:write"},
    "conversations.replies": {"channels:history", "groups:history", "im:history"},
    "files.getUploadURLExternal": {"files:write"},
    "files.completeUploadExternal": {"files:write"},
    "views.open": set(),
    "views.publish": set(),
}
# Scope each subscribed event needs, https://docs.slack.dev/reference/events/<event>.
EVENT_SCOPES: dict[str, set[str]] = {
    "app_home_opened": set(),
    "app_mention": {"app_mentions:read"},
    "message.channels": {"channels:history"},
    "message.groups": {"groups:history"},
    "message.im": {"im:history"},
}
# The message.* subscriptions the code's message handler serves: configured channels (public or private) and DMs.
MESSAGE_SUBSCRIPTIONS = {"message.channels", "message.groups", "message.im"}

CALL = re.compile(r"\bclient\.(\w+)\(|\.call\(\s*\"(\w+)\"")
EVENT = re.compile(r"\bapp\.event\(\s*\"(\w+)\"")
INTERACTION = re.compile(r"\bapp\.(action|view|shortcut|options)\(")


def _sources() -> dict[Path, str]:
    return {p: p.read_text() for p in (ROOT / "bot").rglob("*.py")}


@cache
def _api_methods(python_name: str) -> frozenset[str]:
    """The Web API methods one slack_sdk WebClient method calls (read from its source, following helpers)."""
    from slack_sdk import WebClient

    src = inspect.getsource(getattr(WebClient, python_name))
    found = set(re.findall(r"api_call\(\s*\"([\w.]+)\"", src))
    for helper in set(re.findall(r"self\.(\w+)\(", src)) - {python_name}:
        if hasattr(WebClient, helper) and not helper.startswith("_") and helper != "api_call":
            found |= _api_methods(helper)
    return frozenset(found)


def called_methods() -> dict[str, set[str]]:
    """Web API method -> the files that call it."""
    from slack_sdk import WebClient

    out: dict[str, set[str]] = {}
    for path, text in _sources().items():
        for a, b in CALL.findall(text):
            name = a or b
            if hasattr(WebClient, name):
                for method in _api_methods(name):
                    out.setdefault(method, set()).add(str(path.relative_to(ROOT)))
    out.setdefault("auth.test", set()).add("slack_bolt (token_verification_enabled)")
    return out


def handled_events() -> set[str]:
    return {e for text in _sources().values() for e in EVENT.findall(text)}


@pytest.fixture(scope="module")
def manifest() -> dict:
    return yaml.safe_load(MANIFEST.read_text())


def test_every_method_the_code_calls_has_its_scope(manifest):
    called = called_methods()
    assert {"chat.postMessage", "views.publish", "conversations.replies", "files.completeUploadExternal"} <= set(called)  # the scan sees the code
    unknown = sorted(set(called) - set(METHOD_SCOPES))
    assert not unknown, f"add the documented scopes of {unknown} (called in {[sorted(called[m]) for m in unknown]}) to METHOD_SCOPES and the manifest"
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    missing = {m: METHOD_SCOPES[m] - scopes for m in called if METHOD_SCOPES[m] - scopes}
    assert not missing, f"manifest lacks scopes for {missing}"


def test_every_event_handled_is_subscribed_and_nothing_else(manifest):
    handled = handled_events()
    assert handled == {"message", "app_mention", "app_home_opened"}, "a new event handler: subscribe it in the manifest and update this test"
    subscribed = set(manifest["settings"]["event_subscriptions"]["bot_events"])
    expected = (handled - {"message"}) | MESSAGE_SUBSCRIPTIONS
    assert subscribed == expected
    assert manifest["oauth_config"]["scopes"].get("user") is None  # orienta acts only as its bot


def test_scopes_are_exactly_what_methods_and_events_need(manifest):
    needed = set().union(*(METHOD_SCOPES[m] for m in called_methods()), *(EVENT_SCOPES[e] for e in manifest["settings"]["event_subscriptions"]["bot_events"]))
    scopes = manifest["oauth_config"]["scopes"]["bot"]
    assert len(scopes) == len(set(scopes))
    assert set(scopes) == needed, f"extra: {sorted(set(scopes) - needed)}, missing: {sorted(needed - set(scopes))}"


def test_interactivity_app_home_and_request_urls(manifest):
    texts = _sources().values()
    uses_interactions = any(INTERACTION.search(t) for t in texts)
    settings, home = manifest["settings"], manifest["features"]["app_home"]
    assert settings["interactivity"]["is_enabled"] is uses_interactions is True
    assert home["home_tab_enabled"] is ("app_home_opened" in handled_events()) is True
    assert home["messages_tab_enabled"] is True and home["messages_tab_read_only_enabled"] is False  # students write DMs
    for url in (settings["event_subscriptions"]["request_url"], settings["interactivity"]["request_url"]):
        parts = urlsplit(url)
        assert parts.scheme == "https" and parts.path == "/slack/events"  # Slack calls only HTTPS; Bolt's WSGI path
    assert settings["socket_mode_enabled"] is False  # HTTP as shipped; the header says how to switch


def test_socket_mode_variant_of_the_manifest_is_what_the_header_describes(manifest):
    """The documented edit (socket_mode_enabled: true, no request URLs) leaves events and interactivity intact."""
    text = MANIFEST.read_text()
    edited = yaml.safe_load(re.sub(r"^\s*request_url: .*\n", "", text, flags=re.M).replace("socket_mode_enabled: false", "socket_mode_enabled: true"))
    assert edited["settings"]["socket_mode_enabled"] is True
    assert "request_url" not in edited["settings"]["event_subscriptions"] and "request_url" not in edited["settings"]["interactivity"]
    assert edited["settings"]["event_subscriptions"]["bot_events"] == manifest["settings"]["event_subscriptions"]["bot_events"]
