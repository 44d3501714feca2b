"""The fake servers, exercised through the REAL anthropic / slack_sdk / slack_bolt clients."""

from __future__ import annotations

import json
import re
import time

import anthropic
import httpx
import pytest
from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from tests.servers.anthropic_server import FakeAnthropicServer
from tests.servers.api_fixtures import anthropic_server, slack_server  # noqa: F401  (fixtures)
from tests.servers.slack_server import FakeSlackServer, SlackError
from tests.servers.slack_signing import (
    block_actions_payload,
    event_request,
    interaction_request,
    sign,
    to_bolt_request,
    url_verification_request,
    view_submission_payload,
)

MODEL = "claude-haiku-4-5"  # an older model: no thinking block, the stand-in's 4.5 rules
SECRET = "test-signing-secret"


def _client(server: FakeAnthropicServer, **kw) -> anthropic.Anthropic:
    kw.setdefault("max_retries", 0)
    return anthropic.Anthropic(base_url=server.url, api_key="test", **kw)


def _user(text: str):
    return [{"role": "user", "content": text}]


# --------------------------------------------------------------------------
# Anthropic
# --------------------------------------------------------------------------


def test_messages_create_returns_scripted_text(anthropic_server):
    anthropic_server.enqueue_text("Hallo Welt")
    msg = _client(anthropic_server).messages.create(model=MODEL, max_tokens=100, messages=_user("hi"))
    assert msg.type == "message" and msg.role == "assistant"
    assert msg.id.startswith("msg_")
    assert msg.model == MODEL
    assert msg.content[0].type == "text" and msg.content[0].text == "Hallo Welt"
    assert msg.stop_reason == "end_turn" and msg.stop_sequence is None
    assert msg.usage.input_tokens > 0 and msg.usage.output_tokens > 0
    assert msg.usage.cache_creation_input_tokens == 0 and msg.usage.cache_read_input_tokens == 0

    req = anthropic_server.requests[-1]
    assert req.path == "/v1/messages"
    assert req.api_key == "test"  # x-api-key, or Authorization: Bearer (anthropic SDK >= 2)
    assert req.headers["anthropic-version"]
    assert req.json["messages"] == _user("hi") and req.json["max_tokens"] == 100


def test_default_responder_echoes_and_is_replaceable(anthropic_server):
    client = _client(anthropic_server)
    msg = client.messages.create(model=MODEL, max_tokens=50, messages=_user("ping"))
    assert msg.content[0].text == "echo: ping"
    anthropic_server.set_responder(lambda req: {"content": [{"type": "text", "text": req["model"]}]})
    msg = client.messages.create(model=MODEL, max_tokens=50, messages=_user("ping"))
    assert msg.content[0].text == MODEL


def test_tool_use_block_is_parsed(anthropic_server):
    anthropic_server.enqueue_tool_use("lookup_person", {"name": "Ada"}, text="Let me check.")
    client = _client(anthropic_server)
    tools = [{"name": "lookup_person", "description": "x",
              "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}}}]
    msg = client.messages.create(model=MODEL, max_tokens=100, tools=tools, messages=_user("who is Ada?"))
    assert msg.stop_reason == "tool_use"
    assert [b.type for b in msg.content] == ["text", "tool_use"]
    tu = msg.content[1]
    assert tu.name == "lookup_person" and tu.input == {"name": "Ada"} and tu.id.startswith("toolu_")

    # a correct follow-up with tool_result is accepted ...
    anthropic_server.enqueue_text("Ada Lovelace.")
    history = _user("who is Ada?") + [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in msg.content]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tu.id, "content": "mathematician"}]},
    ]
    follow = client.messages.create(model=MODEL, max_tokens=100, tools=tools, messages=history)
    assert follow.content[0].text == "Ada Lovelace."
    # ... while a missing tool_result is a 400 like the real API
    anthropic_server.refusals_expected = True
    with pytest.raises(anthropic.BadRequestError) as ei:
        client.messages.create(model=MODEL, max_tokens=100, tools=tools,
                               messages=history[:2] + [{"role": "user", "content": "and?"}])
    assert "tool_result" in str(ei.value)
    assert ei.value.body["error"]["type"] == "invalid_request_error"
    assert anthropic_server.refusals == [("/v1/messages", 400, ei.value.body["error"]["message"])]


def test_usage_prompt_caching_semantics(anthropic_server):
    client = _client(anthropic_server)
    system = [{"type": "text", "text": "You are orienta. " * 1000, "cache_control": {"type": "ephemeral"}}]
    first = client.messages.create(model=MODEL, max_tokens=50, system=system, messages=_user("one"))
    u1 = first.usage
    assert u1.cache_creation_input_tokens > 0 and u1.cache_read_input_tokens == 0
    assert u1.cache_creation.ephemeral_5m_input_tokens == u1.cache_creation_input_tokens
    second = client.messages.create(model=MODEL, max_tokens=50, system=system, messages=_user("two!"))
    u2 = second.usage
    assert u2.cache_read_input_tokens == u1.cache_creation_input_tokens
    assert u2.cache_creation_input_tokens == 0
    assert 0 < u2.input_tokens < u2.cache_read_input_tokens  # only the uncached tail
    # a different prefix misses the cache
    other = [{**system[0], "text": "Different. " * 1600}]
    u3 = client.messages.create(model=MODEL, max_tokens=50, system=other, messages=_user("x")).usage
    assert u3.cache_read_input_tokens == 0 and u3.cache_creation_input_tokens > 0
    # scripted usage overrides computed values
    anthropic_server.enqueue_text("ok", usage={"output_tokens": 7})
    assert client.messages.create(model=MODEL, max_tokens=50, messages=_user("x")).usage.output_tokens == 7


def test_count_tokens(anthropic_server):
    r = _client(anthropic_server).messages.count_tokens(model=MODEL, messages=_user("a" * 400))
    assert r.input_tokens >= 100


def test_429_with_retry_after_is_retried_then_succeeds(anthropic_server):
    anthropic_server.enqueue_error(429, "rate_limit_error", "Number of request tokens has exceeded your rate limit",
                                   headers={"retry-after": "0.1"})
    anthropic_server.enqueue_text("after retry")
    t0 = time.monotonic()
    msg = _client(anthropic_server, max_retries=2).messages.create(model=MODEL, max_tokens=10, messages=_user("x"))
    assert msg.content[0].text == "after retry"
    assert len(anthropic_server.message_requests) == 2
    assert anthropic_server.requests[0].status == 429
    assert anthropic_server.requests[1].headers["x-stainless-retry-count"] == "1"
    assert time.monotonic() - t0 >= 0.1


def test_529_overloaded_raises_after_retries_exhausted(anthropic_server):
    for _ in range(3):
        anthropic_server.enqueue_error(529, "overloaded_error", "Overloaded", headers={"retry-after": "0.01"})
    with pytest.raises(anthropic.OverloadedError) as ei:  # an APIStatusError; a subclass of InternalServerError only from SDK 2.x on
        _client(anthropic_server, max_retries=2).messages.create(model=MODEL, max_tokens=10, messages=_user("x"))
    assert ei.value.status_code == 529 and isinstance(ei.value, anthropic.APIStatusError)
    assert ei.value.body["type"] == "error" and ei.value.body["error"]["type"] == "overloaded_error"
    assert ei.value.request_id and ei.value.request_id.startswith("req_")
    assert len(anthropic_server.message_requests) == 3


def test_timeout_raises_api_timeout_error(anthropic_server):
    anthropic_server.enqueue_delay(2.0)
    with pytest.raises(anthropic.APITimeoutError):
        _client(anthropic_server, timeout=0.3).messages.create(model=MODEL, max_tokens=10, messages=_user("x"))
    # with a retry, the second attempt gets the next scripted reply
    anthropic_server.enqueue_delay(2.0)
    anthropic_server.enqueue_text("second try")
    msg = _client(anthropic_server, timeout=0.3, max_retries=1).messages.create(
        model=MODEL, max_tokens=10, messages=_user("x"))
    assert msg.content[0].text == "second try"


def test_malformed_json_response(anthropic_server):
    anthropic_server.enqueue_raw(200, b'{"id": "msg_1", "type": "message", "content": [')
    with pytest.raises((anthropic.APIError, ValueError)):
        _client(anthropic_server).messages.create(model=MODEL, max_tokens=10, messages=_user("x"))


def test_auth_and_request_validation():
    with FakeAnthropicServer(api_keys={"good"}) as server:
        with pytest.raises(anthropic.AuthenticationError) as ei:
            _client(server).messages.create(model=MODEL, max_tokens=10, messages=_user("x"))
        assert ei.value.body["error"] == {"type": "authentication_error", "message": "invalid x-api-key"}
        r = httpx.post(server.url + "/v1/messages", json={"model": MODEL, "max_tokens": 1, "messages": _user("x")},
                       headers={"anthropic-version": "2023-06-01"})
        assert r.status_code == 401 and r.json()["error"]["message"] == "x-api-key header is required"
        ok = anthropic.Anthropic(base_url=server.url, api_key="good", max_retries=0)
        with pytest.raises(anthropic.BadRequestError):
            ok.messages.create(model=MODEL, max_tokens=10, messages=[])


def test_stop_sequences_and_max_tokens_are_honoured(anthropic_server):
    client = _client(anthropic_server)
    anthropic_server.enqueue_text("alpha END beta")
    msg = client.messages.create(model=MODEL, max_tokens=100, stop_sequences=["END"], messages=_user("x"))
    assert msg.content[0].text == "alpha " and msg.stop_reason == "stop_sequence" and msg.stop_sequence == "END"
    anthropic_server.enqueue_text("word " * 100)
    msg = client.messages.create(model=MODEL, max_tokens=5, messages=_user("x"))
    assert msg.stop_reason == "max_tokens" and msg.usage.output_tokens == 5


# --------------------------------------------------------------------------
# Slack Web API
# --------------------------------------------------------------------------


def _web(server: FakeSlackServer, **kw) -> WebClient:
    return WebClient(token="xoxb-test", base_url=server.api_url, **kw)


def test_chat_post_message_update_permalink(slack_server):
    client = _web(slack_server)
    r1 = client.chat_postMessage(channel="C0CHAN001", text="hello")
    r2 = client.chat_postMessage(channel="C0CHAN001", text="reply", thread_ts=r1["ts"],
                                 blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": "*reply*"}}])
    assert r1["ok"] and r1["channel"] == "C0CHAN001"
    assert re.fullmatch(r"\d{10}\.\d{6}", r1["ts"]) and float(r2["ts"]) > float(r1["ts"])
    assert r1["message"]["text"] == "hello" and r1["message"]["bot_id"] == slack_server.bot_id
    posted = slack_server.messages["C0CHAN001"]
    assert [m["text"] for m in posted] == ["hello", "reply"]
    assert posted[1]["thread_ts"] == r1["ts"] and posted[0]["reply_count"] == 1

    up = client.chat_update(channel="C0CHAN001", ts=r1["ts"], text="hello (edited)")
    assert up["text"] == "hello (edited)" and posted[0]["text"] == "hello (edited)"
    link = client.chat_getPermalink(channel="C0CHAN001", message_ts=r2["ts"])["permalink"]
    assert link.startswith("https://orienta-test.slack.com/archives/C0CHAN001/p") and "thread_ts=" in link

    eph = client.chat_postEphemeral(channel="C0CHAN001", user="U0USER001", text="psst")
    assert eph["message_ts"] and slack_server.ephemeral[0]["text"] == "psst"

    call = slack_server.calls_to("chat.postMessage")[0]
    assert call.args["channel"] == "C0CHAN001" and call.status == 200 and call.token == "xoxb-test"


def test_dm_to_user_id_returns_im_channel(slack_server):
    r = _web(slack_server).chat_postMessage(channel="U0USER002", text="hi")
    assert r["channel"] == "D0USER002"


@pytest.mark.filterwarnings("ignore:The top-level `text` argument is missing:UserWarning")
def test_chat_post_message_argument_validation(slack_server):
    client = _web(slack_server)
    with pytest.raises(SlackApiError) as ei:
        client.chat_postMessage(channel="C1", text="")
    assert ei.value.response["error"] == "no_text"
    with pytest.raises(SlackApiError) as ei:
        client.chat_postMessage(channel="C1", text="x", blocks=[{"type": "divider"}] * 51)
    assert ei.value.response["error"] == "invalid_blocks"
    with pytest.raises(SlackApiError) as ei:  # form-encoded, blocks not a JSON list
        client.api_call("chat.postMessage", data={"channel": "C1", "text": "x", "blocks": "{not json"})
    assert ei.value.response["error"] == "invalid_blocks_format"
    with pytest.raises(SlackApiError) as ei:
        client.chat_postMessage(channel="C1", text="x" * 40001)
    assert ei.value.response["error"] == "msg_too_long"
    assert slack_server.messages.get("C1", []) == []


def test_auth_errors_and_unknown_method(slack_server):
    with pytest.raises(SlackApiError) as ei:
        WebClient(token="xoxb-wrong", base_url=slack_server.api_url).auth_test()
    assert ei.value.response["error"] == "invalid_auth"
    with pytest.raises(SlackApiError) as ei:
        WebClient(base_url=slack_server.api_url).chat_postMessage(channel="C1", text="x")
    assert ei.value.response["error"] == "not_authed"
    with pytest.raises(SlackApiError) as ei:
        _web(slack_server).api_call("nope.nothing")
    assert ei.value.response["error"] == "unknown_method" and ei.value.response.status_code == 404
    auth = _web(slack_server).auth_test()
    assert auth["user_id"] == slack_server.bot_user_id and auth["bot_id"] == slack_server.bot_id
    assert "chat:write" in auth.headers["x-oauth-scopes"]


def test_ratelimited_post_message_raises_429_with_retry_after():
    with FakeSlackServer(post_message_rate=1.0, post_message_burst=2) as server:
        client = _web(server)
        client.chat_postMessage(channel="C1", text="1")
        client.chat_postMessage(channel="C1", text="2")
        client.chat_postMessage(channel="C2", text="other channel has its own bucket")
        with pytest.raises(SlackApiError) as ei:
            client.chat_postMessage(channel="C1", text="3")
        resp = ei.value.response
        assert resp.status_code == 429 and resp["error"] == "ratelimited"
        assert int(resp.headers["Retry-After"]) >= 1
        assert server.calls_to("chat.postMessage")[-1].status == 429
        assert len(server.messages["C1"]) == 2

    # forced rate limiting + the SDK's own retry handler honouring Retry-After
    with FakeSlackServer() as server:
        server.ratelimit_next("chat.postMessage", retry_after=0)
        client = _web(server, retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)])
        assert client.chat_postMessage(channel="C1", text="eventually")["ok"]
        assert [c.status for c in server.calls_to("chat.postMessage")] == [429, 200]


def test_views_open_update_push_publish(slack_server):
    client = _web(slack_server)
    modal = {"type": "modal", "callback_id": "feedback", "title": {"type": "plain_text", "text": "Feedback"},
             "submit": {"type": "plain_text", "text": "Send"},
             "blocks": [{"type": "input", "block_id": "b", "label": {"type": "plain_text", "text": "L"},
                         "element": {"type": "plain_text_input", "action_id": "a"}}]}
    trigger = slack_server.new_trigger_id()
    view = client.views_open(trigger_id=trigger, view=modal)["view"]
    assert view["id"].startswith("V") and view["callback_id"] == "feedback" and view["hash"]
    with pytest.raises(SlackApiError) as ei:
        client.views_open(trigger_id=trigger, view=modal)
    assert ei.value.response["error"] == "trigger_exchanged"
    stale = slack_server.new_trigger_id()
    slack_server.expire_trigger(stale)
    with pytest.raises(SlackApiError) as ei:
        client.views_open(trigger_id=stale, view=modal)
    assert ei.value.response["error"] == "expired_trigger_id"
    with pytest.raises(SlackApiError) as ei:
        client.views_open(trigger_id=slack_server.new_trigger_id(), view={**modal, "submit": None})
    assert ei.value.response["error"] == "invalid_arguments"

    upd = client.views_update(view_id=view["id"], hash=view["hash"], view={**modal, "private_metadata": "x"})
    assert upd["view"]["private_metadata"] == "x"
    with pytest.raises(SlackApiError) as ei:
        client.views_update(view_id=view["id"], hash=view["hash"], view=modal)  # stale hash
    assert ei.value.response["error"] == "hash_conflict"
    pushed = client.views_push(trigger_id=slack_server.new_trigger_id(), view=modal)["view"]
    assert pushed["previous_view_id"] == view["id"]
    home = client.views_publish(user_id="U0USER001", view={"type": "home", "blocks": []})
    assert slack_server.home_views["U0USER001"]["id"] == home["view"]["id"]


def test_conversations_and_users(slack_server):
    slack_server.add_channel("C0TEAM001", "team", members=[f"U{i:08d}" for i in range(5)])
    slack_server.add_user("U0ADA0001", "ada", real_name="Ada Lovelace", tz="Europe/London")
    client = _web(slack_server)
    members = []
    for page in client.conversations_members(channel="C0TEAM001", limit=2):
        members += page["members"]
    assert members == [f"U{i:08d}" for i in range(5)]
    assert len(slack_server.calls_to("conversations.members")) == 3
    info = client.conversations_info(channel="C0TEAM001")["channel"]
    assert info["name"] == "team" and info["is_channel"]
    user = client.users_info(user="U0ADA0001")["user"]
    assert user["real_name"] == "Ada Lovelace" and user["tz"] == "Europe/London"


def test_strict_mode_not_found_errors():
    with FakeSlackServer(strict=True) as server:
        client = _web(server)
        for call, err in [
            (lambda: client.chat_postMessage(channel="C404", text="x"), "channel_not_found"),
            (lambda: client.users_info(user="U404"), "user_not_found"),
            (lambda: client.conversations_info(channel="C404"), "channel_not_found"),
        ]:
            with pytest.raises(SlackApiError) as ei:
                call()
            assert ei.value.response["error"] == err


def test_files_upload_v2(slack_server):
    client = _web(slack_server)
    r = client.files_upload_v2(channel="C0CHAN001", content="a,b\n1,2\n", filename="report.csv",
                               title="Report", initial_comment="here you go")
    assert r["ok"] and r["file"]["name"] == "report.csv" and r["file"]["title"] == "Report"
    f = slack_server.files[r["file"]["id"]]
    assert f["content"] == b"a,b\n1,2\n" and f["length"] == len(b"a,b\n1,2\n") and f["channels"] == ["C0CHAN001"]
    msg = slack_server.messages["C0CHAN001"][-1]
    assert msg["text"] == "here you go" and msg["files"][0]["id"] == f["id"]
    assert [c.method for c in slack_server.calls] == [
        "files.getUploadURLExternal", "<upload>", "files.completeUploadExternal"]


def test_custom_handler_and_injected_failures(slack_server):
    def reactions_remove(args, call):
        if args.get("name") == "bad":
            raise SlackError("no_reaction")
        return {}

    slack_server.set_handler("reactions.remove", reactions_remove)
    client = _web(slack_server)
    assert client.reactions_remove(channel="C1", timestamp="1.0", name="ok")["ok"]
    slack_server.fail_next("chat.postMessage", "internal_error")
    with pytest.raises(SlackApiError) as ei:
        client.chat_postMessage(channel="C1", text="x")
    assert ei.value.response["error"] == "internal_error"
    assert client.chat_postMessage(channel="C1", text="x")["ok"]


# --------------------------------------------------------------------------
# Bolt + signed requests
# --------------------------------------------------------------------------


def _app(server: FakeSlackServer) -> App:
    return App(signing_secret=SECRET, client=_web(server), process_before_response=True)


def test_sign_matches_slack_sdk_verifier():
    from slack_sdk.signature import SignatureVerifier

    body, headers = event_request(SECRET, {"type": "app_mention", "text": "hi"}, "Ev1")
    assert headers["X-Slack-Signature"] == sign(SECRET, headers["X-Slack-Request-Timestamp"], body)
    assert SignatureVerifier(SECRET).is_valid_request(body, headers)
    assert not SignatureVerifier("other").is_valid_request(body, headers)


def test_bolt_app_accepts_signed_event_and_rejects_bad_ones(slack_server):
    app = _app(slack_server)
    assert slack_server.successful_calls("auth.test")  # Bolt verified the token at startup

    @app.event("app_mention")
    def on_mention(event, say):
        say(text=f"you said: {event['text']}", thread_ts=event["ts"])

    event = {"type": "app_mention", "user": "U0USER001", "text": "<@U0BOT0001> hello",
             "ts": "1700000001.000100", "channel": "C0CHAN001"}
    body, headers = event_request(SECRET, event, "Ev0001")
    resp = app.dispatch(to_bolt_request(body, headers))
    assert resp.status == 200
    calls = slack_server.wait_for_calls("chat.postMessage", 1)
    assert calls[0].args["text"] == "you said: <@U0BOT0001> hello"
    assert slack_server.messages["C0CHAN001"][-1]["thread_ts"] == "1700000001.000100"

    # retry delivery carries the retry headers and is still correctly signed
    body, headers = event_request(SECRET, event, "Ev0001", retry_num=1)
    assert headers["X-Slack-Retry-Num"] == "1" and headers["X-Slack-Retry-Reason"] == "http_timeout"
    assert app.dispatch(to_bolt_request(body, headers)).status == 200

    body, headers = event_request("wrong-secret", event, "Ev0002")
    assert app.dispatch(to_bolt_request(body, headers)).status == 401
    stale = int(time.time()) - 6 * 60
    body, headers = event_request(SECRET, event, "Ev0003", ts=stale)
    assert app.dispatch(to_bolt_request(body, headers)).status == 401
    body, headers = event_request(SECRET, event, "Ev0004")
    tampered = body.replace(b"hello", b"HELLO")
    assert app.dispatch(to_bolt_request(tampered, headers)).status == 401
    assert len(slack_server.successful_calls("chat.postMessage")) == 2


def test_bolt_url_verification_and_interactions(slack_server):
    app = _app(slack_server)
    body, headers = url_verification_request(SECRET, "challenge-123")
    resp = app.dispatch(to_bolt_request(body, headers))
    assert resp.status == 200 and "challenge-123" in resp.body

    clicked = []

    @app.action("approve")
    def on_approve(ack, body, client):
        ack()
        clicked.append(body["actions"][0]["value"])
        client.views_open(trigger_id=body["trigger_id"],
                          view={"type": "modal", "title": {"type": "plain_text", "text": "Hi"}, "blocks": []})

    @app.view("feedback")
    def on_submit(ack, view):
        ack(response_action="errors", errors={"b": "too short"}) if len(
            view["state"]["values"]["b"]["a"]["value"]) < 3 else ack()

    body, headers = interaction_request(SECRET, block_actions_payload("approve", "yes"))
    assert headers["Content-Type"] == "application/x-www-form-urlencoded"
    assert body.startswith(b"payload=")
    assert app.dispatch(to_bolt_request(body, headers)).status == 200
    assert clicked == ["yes"] and slack_server.successful_calls("views.open")

    payload = view_submission_payload("feedback", {"b": {"a": {"type": "plain_text_input", "value": "no"}}})
    resp = app.dispatch(to_bolt_request(*interaction_request(SECRET, payload)))
    assert resp.status == 200 and json.loads(resp.body)["response_action"] == "errors"
