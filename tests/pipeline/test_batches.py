"""BatchRunner against the Anthropic stand-in's Message Batches API, through the real SDK."""

from __future__ import annotations

import json

import anthropic
import pytest

from pipeline.llm.batches import BatchError, BatchItem, BatchRunner
from tests.servers.anthropic_server import FakeAnthropicServer
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)

MODEL = "claude-sonnet-5-5"


def _client(server):
    return anthropic.Anthropic(base_url=server.url, api_key="test", max_retries=0)


def _item(cid, text="¿Cuándo cierra la inscripción?", **extra):
    return BatchItem(cid, {"model": MODEL, "max_tokens": 512, "messages": [{"role": "user", "content": text}], **extra})


class Crash(Exception):
    """The process dies while waiting."""


def test_submit_poll_and_map_results_by_custom_id(tmp_path):
    sleeps: list[float] = []
    with FakeAnthropicServer(batch_polls_to_end=2) as server:
        server.set_responder(lambda req: req["messages"][0]["content"].upper())
        runner = BatchRunner(client=_client(server), state_dir=tmp_path, poll_interval_s=7.0, sleep=sleeps.append)
        out = runner.run("judge-2026-W47", [_item("q1", "uno"), _item("q2", "dos"), _item("q3", "tres")])
    assert list(out) == ["q1", "q2", "q3"]
    assert {o.status for o in out.values()} == {"succeeded"}
    texts = {cid: next(b.text for b in o.message.content if b.type == "text") for cid, o in out.items()}
    assert texts == {"q1": "UNO", "q2": "DOS", "q3": "TRES"}
    assert sleeps == [7.0, 7.0]
    assert server.batches.creates == 1
    assert not (tmp_path / "judge-2026-W47.json").exists()  # finished jobs leave no state


def test_a_restart_resumes_polling_instead_of_submitting_again(tmp_path):
    with FakeAnthropicServer(batch_polls_to_end=3) as server:
        items = [_item("a"), _item("b")]

        def die(_seconds):
            raise Crash()

        with pytest.raises(Crash):
            BatchRunner(client=_client(server), state_dir=tmp_path, sleep=die).run("weekly", items)
        state = json.loads((tmp_path / "weekly.json").read_text())
        assert sorted(state["custom_ids"]) == ["a", "b"] and len(state["batches"]) == 1

        out = BatchRunner(client=_client(server), state_dir=tmp_path, sleep=lambda s: None).run("weekly", items)
    assert server.batches.creates == 1
    assert [o.status for o in out.values()] == ["succeeded", "succeeded"]
    assert not (tmp_path / "weekly.json").exists()


def test_state_of_another_item_set_is_not_reused(tmp_path, anthropic_server):
    (tmp_path / "weekly.json").write_text(json.dumps({"job": "weekly", "custom_ids": ["x"], "batches": [{"id": "msgbatch_x", "custom_ids": ["x"], "ended": False}]}))
    with pytest.raises(BatchError, match="unfinished state for other items"):
        BatchRunner(client=_client(anthropic_server), state_dir=tmp_path, sleep=lambda s: None).run("weekly", [_item("a")])
    assert anthropic_server.batches.creates == 0


def test_refused_requests_come_back_errored_with_the_api_message(tmp_path, anthropic_server):
    anthropic_server.refusals_expected = True
    runner = BatchRunner(client=_client(anthropic_server), state_dir=tmp_path, sleep=lambda s: None)
    out = runner.run("mixed", [_item("ok"), _item("hot", temperature=0.0), _item("forced", tools=[{"name": "t", "input_schema": {"type": "object"}}], tool_choice={"type": "any"})])
    assert out["ok"].status == "succeeded" and out["ok"].error is None
    assert out["hot"].status == "errored" and out["hot"].message is None
    assert out["hot"].error == "invalid_request_error: `temperature` is deprecated for this model."
    assert out["forced"].status == "errored" and "forced tool use" in out["forced"].error


def test_expired_and_missing_items_are_reported(tmp_path, anthropic_server):
    anthropic_server.batches.expired_custom_ids.add("late")
    anthropic_server.batches.omitted_custom_ids.add("lost")
    out = BatchRunner(client=_client(anthropic_server), state_dir=tmp_path, sleep=lambda s: None).run("faults", [_item("late"), _item("lost"), _item("fine")])
    assert out["late"].status == "expired" and "24-hour" in out["late"].error
    assert out["lost"].status == "errored" and out["lost"].error == "missing from the batch results"
    assert out["fine"].status == "succeeded"


@pytest.mark.parametrize("ids,part", [(["ok", "ok"], "more than once"), (["has space"], "must match"), (["x" * 65], "must match")])
def test_custom_ids_are_checked_before_anything_is_sent(tmp_path, anthropic_server, ids, part):
    with pytest.raises(BatchError, match=part):
        BatchRunner(client=_client(anthropic_server), state_dir=tmp_path, sleep=lambda s: None).run("bad", [_item(i) for i in ids])
    assert anthropic_server.requests == []


def test_more_items_than_a_batch_holds_are_split(tmp_path, anthropic_server):
    runner = BatchRunner(client=_client(anthropic_server), state_dir=tmp_path, sleep=lambda s: None)
    runner.MAX_REQUESTS = 2
    out = runner.run("split", [_item(f"q{i}") for i in range(5)])
    assert anthropic_server.batches.creates == 3
    assert [o.status for o in out.values()] == ["succeeded"] * 5


def test_giving_up_after_max_wait_keeps_the_state_for_a_later_run(tmp_path):
    with FakeAnthropicServer(batch_polls_to_end=100) as server:
        runner = BatchRunner(client=_client(server), state_dir=tmp_path, poll_interval_s=10, max_wait_s=30, sleep=lambda s: None)
        with pytest.raises(BatchError, match="not finished after 30 s"):
            runner.run("slow", [_item("a")])
        assert (tmp_path / "slow.json").exists()
        server.batches.polls_to_end = 0
        out = BatchRunner(client=_client(server), state_dir=tmp_path, sleep=lambda s: None).run("slow", [_item("a")])
    assert out["a"].status == "succeeded" and server.batches.creates == 1
