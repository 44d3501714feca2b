"""`search_result` content blocks and the citations a reply carries for them, as the Messages API takes and returns them.

Sources (read through the docs corpus on 2026-11-25):

- [SR] https://docs.anthropic.com/en/docs/build-with-claude/search-results ("Search results"): a
  ``search_result`` block has the required fields ``type`` ("search_result"), ``source`` (string), ``title``
  (string) and ``content`` (an array of text blocks, each with ``type: "text"`` and non-empty ``text``), and the
  optional ``citations`` ({"enabled": bool}) and ``cache_control``. It may stand as top-level content of a user
  message or inside a ``tool_result``. Claude's reply cites it with ``type: "search_result_location"`` citations
  carrying ``source``, ``title``, ``cited_text``, ``search_result_index``, ``start_block_index`` and
  ``end_block_index``. Citations are off unless enabled, and must be enabled on all search results of a request
  or on none (mixing them is refused).
- [SDK] anthropic 2.14 ``types/citations_search_result_location.py``: ``search_result_index`` is the 0-based
  index among all search_result blocks of the request in the order they appear across messages and tool results;
  ``end_block_index`` is exclusive (> start); ``cited_text`` is always ``content[start:end]`` joined (a text block
  is the minimal citable unit).
- [SO] build-with-claude/structured-outputs, "feature compatibility": citations cannot be combined with
  ``output_config.format`` (400); the prism-php/prism PR #967 removed its citation + structured-output tests
  because "this combination is incompatible at the Anthropic API level". The error wording below is ours.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from .replies import Reply, message_reply
from .rules import RuleError


def _bad(message: str) -> RuleError:
    return RuleError(400, "invalid_request_error", message)


def search_results(req: Dict[str, Any]) -> List[Tuple[str, Dict[str, Any]]]:
    """Every search_result block of the request with its path, in the order the API numbers them [SDK]."""
    found: List[Tuple[str, Dict[str, Any]]] = []
    for i, m in enumerate(req.get("messages") or []):
        content = m.get("content") if isinstance(m, dict) else None
        if not isinstance(content, list):
            continue
        for j, b in enumerate(content):
            if not isinstance(b, dict):
                continue
            if b.get("type") == "search_result":
                found.append((f"messages.{i}.content.{j}", b))
            elif b.get("type") == "tool_result" and isinstance(b.get("content"), list):
                for k, inner in enumerate(b["content"]):
                    if isinstance(inner, dict) and inner.get("type") == "search_result":
                        found.append((f"messages.{i}.content.{j}.content.{k}", inner))
    return found


def citations_enabled(req: Dict[str, Any]) -> bool:
    """Whether the request's search results ask for citations (all of them do, or none [SR])."""
    return any(bool((b.get("citations") or {}).get("enabled")) for _, b in search_results(req))


def check_request(req: Dict[str, Any]) -> None:
    """Raise the 400 the API gives for malformed search results, mixed citation settings or citations with a JSON format."""
    results = search_results(req)
    for path, b in results:
        for name in ("source", "title"):
            if not isinstance(b.get(name), str):
                raise _bad(f"{path}.{name}: Field required" if name not in b else f"{path}.{name}: Input should be a valid string")
        content = b.get("content")
        if not isinstance(content, list) or not content:
            raise _bad(f"{path}.content: Field required" if content is None else f"{path}.content: List should have at least 1 item after validation, not 0")
        for k, block in enumerate(content):
            if not isinstance(block, dict) or block.get("type") != "text":
                raise _bad(f"{path}.content.{k}.type: Input should be 'text'")
            if not isinstance(block.get("text"), str) or not block["text"]:
                raise _bad(f"{path}.content.{k}.text: text content blocks must be non-empty")
        cit = b.get("citations")
        if cit is not None and (not isinstance(cit, dict) or not isinstance(cit.get("enabled", False), bool)):
            raise _bad(f"{path}.citations.enabled: Input should be a valid boolean")
    flags = {bool((b.get("citations") or {}).get("enabled")) for _, b in results}
    if len(flags) > 1:
        raise _bad("search_result citations must be enabled for all or none of the search results in a request")
    oc = req.get("output_config")
    if flags == {True} and isinstance(oc, dict) and oc.get("format") is not None:
        raise _bad("Citations are not supported together with structured outputs (output_config.format); disable citations or remove the format.")


def location(req: Dict[str, Any], index: int, start: int = 0, end: Optional[int] = None) -> Dict[str, Any]:
    """The citation the API returns for blocks ``start:end`` of the request's search result ``index`` [SR] [SDK]."""
    _, b = search_results(req)[index]
    end = start + 1 if end is None else end
    return {
        "type": "search_result_location",
        "source": b["source"],
        "title": b.get("title"),
        "cited_text": "".join(block["text"] for block in b["content"][start:end]),
        "search_result_index": index,
        "start_block_index": start,
        "end_block_index": end,
    }


def check_reply(req: Dict[str, Any], content: List[Dict[str, Any]]) -> List[str]:
    """Problems of a scripted reply's citations against the request (a citation the real API could not return)."""
    results = search_results(req)
    enabled = citations_enabled(req)
    problems: List[str] = []
    for n, block in enumerate(content):
        for c in block.get("citations") or []:
            if not enabled:
                problems.append(f"content.{n}: citations in a reply to a request without citations enabled")
                continue
            if c.get("type") != "search_result_location":
                problems.append(f"content.{n}: citation type {c.get('type')!r} is not search_result_location")
                continue
            idx, start, end = c.get("search_result_index"), c.get("start_block_index"), c.get("end_block_index")
            if not isinstance(idx, int) or not 0 <= idx < len(results):
                problems.append(f"content.{n}: search_result_index {idx!r} out of range (0..{len(results) - 1})")
                continue
            want = location(req, idx, start, end) if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(results[idx][1]["content"]) else None
            if want is None:
                problems.append(f"content.{n}: block range {start!r}:{end!r} outside search result {idx}")
            elif c != want:
                problems.append(f"content.{n}: citation differs from what the API returns for that range: {c!r} != {want!r}")
    return problems


Part = Union[str, Tuple[str, int]]


def cited_reply(*parts: Part, **kw: Any) -> Callable[[Dict[str, Any]], Reply]:
    """A reply whose text blocks cite the request's search results: ``"text"`` is an uncited block,
    ``("text", i)`` a block citing search result ``i`` (its first content block), as the API returns them [SR]."""

    def build(req: Dict[str, Any]) -> Reply:
        content = []
        for p in parts:
            if isinstance(p, tuple):
                text, idx = p
                content.append({"type": "text", "text": text, "citations": [location(req, idx)]})
            else:
                content.append({"type": "text", "text": p})
        return message_reply(content, **kw)

    return build


def auto_reply(req: Dict[str, Any]) -> List[Dict[str, Any]]:
    """What the default responder says to a request with citations on: the first result's first block, cited."""
    cit = location(req, 0)
    return [{"type": "text", "text": "Según la documentación: "}, {"type": "text", "text": cit["cited_text"][:300], "citations": [cit]}]
