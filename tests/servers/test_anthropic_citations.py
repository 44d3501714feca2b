"""The stand-in takes search_result blocks and returns search_result_location citations as the Messages API does
(build-with-claude/search-results), driven by the real anthropic SDK; it refuses what the API refuses."""

from __future__ import annotations

import anthropic
import pytest

from tests.servers.anthropic_server import cited_reply, message_reply
from tests.servers.api_fixtures import anthropic_server  # noqa: F401  (fixture)

MODEL = "claude-sonnet-5-5"


def result(title: str, *texts: str, cite: bool = True, source: str = "https://fing.example/doc") -> dict:
    return {"type": "search_result", "source": source, "title": title, "content": [{"type": "text", "text": x} for x in texts], "citations": {"enabled": cite}}


def ask(server, content, **kw):
    client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
    return client.messages.create(model=MODEL, max_tokens=1024, messages=[{"role": "user", "content": content}], **kw)


def refused(server, content, part: str, **kw) -> None:
    server.refusals_expected = True
    with pytest.raises(anthropic.BadRequestError) as info:
        ask(server, content, **kw)
    assert part in info.value.body["error"]["message"]


def test_a_cited_reply_points_at_the_passage_in_the_sdks_types(anthropic_server):
    anthropic_server.enqueue(cited_reply("Según el reglamento, ", ("cierra el 22 de enero.", 1)))
    msg = ask(anthropic_server, [result("Becas", "Del 1 al 28 de febrero."), result("Exámenes", "Inscripción hasta el 22 de enero.", "Solo por el SIGE."), {"type": "text", "text": "¿Cuándo cierra?"}])
    texts = [b for b in msg.content if b.type == "text"]
    assert texts[0].citations is None
    cit = texts[1].citations[0]
    assert isinstance(cit, anthropic.types.CitationsSearchResultLocation)
    assert (cit.search_result_index, cit.start_block_index, cit.end_block_index) == (1, 0, 1)
    assert cit.cited_text == "Inscripción hasta el 22 de enero." and cit.title == "Exámenes" and cit.source == "https://fing.example/doc"


def test_the_default_reply_cites_the_first_result_and_count_tokens_takes_the_same_body(anthropic_server):
    content = [result("Exámenes", "Inscripción hasta el 22 de enero."), {"type": "text", "text": "¿Cuándo?"}]
    msg = ask(anthropic_server, content)
    assert any(b.type == "text" and b.citations and b.citations[0].search_result_index == 0 for b in msg.content)
    client = anthropic.Anthropic(base_url=anthropic_server.url, api_key="k", max_retries=0)
    assert client.messages.count_tokens(model=MODEL, messages=[{"role": "user", "content": content}]).input_tokens > 0


def test_results_inside_tool_results_are_numbered_in_request_order(anthropic_server):
    tool = {"name": "buscar", "description": "busca", "input_schema": {"type": "object", "properties": {}}}
    messages = [
        {"role": "user", "content": [result("Primero", "uno"), {"type": "text", "text": "buscá"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "buscar", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [result("Segundo", "dos")]}]},
    ]
    anthropic_server.enqueue(cited_reply(("dos", 1)))
    client = anthropic.Anthropic(base_url=anthropic_server.url, api_key="k", max_retries=0)
    msg = client.messages.create(model=MODEL, max_tokens=1024, messages=messages, tools=[tool])
    cit = next(b for b in msg.content if b.type == "text").citations[0]
    assert cit.title == "Segundo" and cit.cited_text == "dos"


@pytest.mark.parametrize("bad,part", [
    ({"type": "search_result", "source": "s", "content": [{"type": "text", "text": "x"}]}, ".title: Field required"),
    ({"type": "search_result", "title": "t", "content": [{"type": "text", "text": "x"}]}, ".source: Field required"),
    ({"type": "search_result", "source": "s", "title": "t", "content": []}, "at least 1 item"),
    ({"type": "search_result", "source": "s", "title": "t", "content": [{"type": "text", "text": ""}]}, "must be non-empty"),
    ({"type": "search_result", "source": "s", "title": "t", "content": [{"type": "image", "source": {}}]}, "Input should be 'text'"),
])
def test_malformed_search_results_are_refused(anthropic_server, bad, part):
    refused(anthropic_server, [bad, {"type": "text", "text": "?"}], part)


def test_citations_on_some_results_only_are_refused(anthropic_server):
    refused(anthropic_server, [result("a", "x", cite=True), result("b", "y", cite=False), {"type": "text", "text": "?"}], "all or none")


def test_citations_with_a_json_output_format_are_refused_but_plain_results_are_not(anthropic_server):
    fmt = {"format": {"type": "json_schema", "schema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": False}}}
    refused(anthropic_server, [result("a", "x"), {"type": "text", "text": "?"}], "structured outputs", output_config=fmt)
    anthropic_server.refusals.clear()
    msg = ask(anthropic_server, [result("a", "x", cite=False), {"type": "text", "text": "?"}], output_config=fmt)
    assert msg.content[-1].type == "text"


def test_a_script_citing_what_the_api_could_not_return_is_a_stand_in_error(anthropic_server):
    anthropic_server.refusals_expected = True
    anthropic_server.enqueue(message_reply([{"type": "text", "text": "x", "citations": [{"type": "search_result_location", "source": "s", "title": "a", "cited_text": "x", "search_result_index": 3, "start_block_index": 0, "end_block_index": 1}]}]))
    with pytest.raises(anthropic.InternalServerError):
        ask(anthropic_server, [result("a", "x"), {"type": "text", "text": "?"}])
    anthropic_server.enqueue(cited_reply(("x", 0)))
    with pytest.raises(anthropic.InternalServerError):
        ask(anthropic_server, [result("a", "x", cite=False), {"type": "text", "text": "?"}])  # citations were not enabled
    assert len(anthropic_server.script_errors) == 2
