"""The stand-in's Message Batches API, driven by the real anthropic SDK."""

from __future__ import annotations

import anthropic
import pytest

from tests.servers.anthropic_server import FakeAnthropicServer
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)


@pytest.fixture(autouse=True)
def _refusals_are_the_subject(request):
    """These tests send refused requests on purpose: the fixture's guard against them is off."""
    if "anthropic_server" in request.fixturenames:
        request.getfixturevalue("anthropic_server").refusals_expected = True


def _client(server):
    return anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=0)


def _req(cid, model="claude-sonnet-5-5", **params):
    body = {"model": model, "max_tokens": 256, "messages": [{"role": "user", "content": f"pregunta {cid}"}], **params}
    return {"custom_id": cid, "params": body}


def test_batch_lifecycle_results_and_counts(anthropic_server):
    client = _client(anthropic_server)
    batch = client.messages.batches.create(requests=[_req("a"), _req("b", temperature=0.0), _req("c", "claude-haiku-4-5", temperature=0.0)])
    assert batch.processing_status == "in_progress" and batch.results_url is None
    assert batch.request_counts.processing == 3
    assert client.messages.batches.retrieve(batch.id).processing_status == "in_progress"
    ended = client.messages.batches.retrieve(batch.id)
    assert ended.processing_status == "ended" and ended.results_url.endswith(f"/v1/messages/batches/{batch.id}/results")
    assert (ended.request_counts.succeeded, ended.request_counts.errored) == (2, 1)
    results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert results["a"].type == "succeeded" and results["a"].message.content[0].type == "thinking"
    assert results["b"].type == "errored"
    assert results["b"].error.error.type == "invalid_request_error"
    assert results["b"].error.error.message == "`temperature` is deprecated for this model."
    assert results["c"].type == "succeeded"  # older model still takes temperature
    assert [b.id for b in client.messages.batches.list()] == [batch.id]
    assert client.messages.batches.delete(batch.id).type == "message_batch_deleted"


def test_results_before_the_end_are_refused(anthropic_server):
    client = _client(anthropic_server)
    batch = client.messages.batches.create(requests=[_req("a")])
    with pytest.raises(anthropic.AnthropicError):
        client.messages.batches.results(batch.id)
    with pytest.raises(anthropic.BadRequestError):
        client.messages.batches.delete(batch.id)


@pytest.mark.parametrize("requests,part", [
    ([], "at least 1 item"),
    ([_req("a"), _req("a")], "Duplicate custom_id"),
    ([_req("with space")], "String should match pattern"),
    ([_req("x" * 65)], "String should match pattern"),
    ([{"custom_id": "a", "params": {**_req("a")["params"], "stream": True}}], "streaming is not supported"),
])
def test_invalid_batches_are_refused_at_create(anthropic_server, requests, part):
    with pytest.raises(anthropic.BadRequestError) as info:
        _client(anthropic_server).messages.batches.create(requests=requests)
    assert part in info.value.body["error"]["message"]
    assert anthropic_server.batches.creates == 0


def test_cancel_and_expiry(anthropic_server):
    client = _client(anthropic_server)
    canceled = client.messages.batches.create(requests=[_req("a"), _req("b")])
    assert client.messages.batches.cancel(canceled.id).processing_status == "canceling"
    done = client.messages.batches.retrieve(canceled.id)
    assert done.processing_status == "ended" and done.request_counts.canceled == 2
    expired = client.messages.batches.create(requests=[_req("c")])
    anthropic_server.batches.expire(expired.id)
    assert [r.result.type for r in client.messages.batches.results(expired.id)] == ["expired"]


def test_polls_to_end_is_configurable():
    with FakeAnthropicServer(batch_polls_to_end=3) as server:
        client = _client(server)
        batch = client.messages.batches.create(requests=[_req("a")])
        statuses = [client.messages.batches.retrieve(batch.id).processing_status for _ in range(4)]
        assert statuses == ["in_progress"] * 3 + ["ended"]


def test_scripted_replies_and_errors_flow_into_results(anthropic_server):
    anthropic_server.enqueue_text("uno")
    anthropic_server.enqueue_error(529, "overloaded_error", "Overloaded")
    client = _client(anthropic_server)
    batch = client.messages.batches.create(requests=[_req("a", "claude-haiku-4-5"), _req("b", "claude-haiku-4-5")])
    client.messages.batches.retrieve(batch.id)
    client.messages.batches.retrieve(batch.id)
    results = {r.custom_id: r.result for r in client.messages.batches.results(batch.id)}
    assert results["a"].message.content[0].text == "uno"
    assert results["b"].type == "errored" and results["b"].error.error.type == "overloaded_error"
