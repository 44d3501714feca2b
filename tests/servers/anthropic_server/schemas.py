"""`output_config.format` for the stand-in: which schemas the API takes, and replies that fit.

The accepted subset is the one documented on build-with-claude/structured-outputs
("JSON Schema limitations") and encoded in the anthropic SDK's own
`lib/_parse/_transform.py` (2.12), which rewrites pydantic schemas into it:
types object/array/string/integer/number/boolean/null, enum, const, anyOf, allOf,
$ref/$defs (not recursive), properties/required, `additionalProperties` which must be
`false` on every object, `items`, `minItems` of 0 or 1, string `format` from a fixed set,
`pattern`, `description`/`title`/`default`. Numerical and length constraints (minimum,
maximum, multipleOf, minLength, maxLength, maxItems, minProperties, maxProperties) and
the other keywords are refused with a 400.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Set

from .rules import RuleError

STRING_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6", "uuid"}
ALLOWED_KEYS = {
    "type", "enum", "const", "anyOf", "allOf", "$ref", "$defs", "definitions", "properties", "required",
    "additionalProperties", "items", "minItems", "format", "pattern", "description", "title", "default", "$schema",
}
_SAMPLE_STRINGS = {
    "date-time": "2026-01-01T00:00:00Z", "time": "00:00:00", "date": "2026-01-01", "duration": "P1D",
    "email": "persona@example.com", "hostname": "example.com", "uri": "https://example.com/", "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1", "uuid": "00000000-0000-4000-8000-000000000000",
}


def _bad(path: str, message: str) -> RuleError:
    return RuleError(400, "invalid_request_error", f"output_config.format.schema{path}: {message}")


def check_format(fmt: Any) -> Dict[str, Any]:
    """Validate `output_config.format`; return its schema or raise the API's 400."""
    if not isinstance(fmt, dict) or fmt.get("type") != "json_schema":
        raise RuleError(400, "invalid_request_error", "output_config.format.type: Input should be 'json_schema'")
    schema = fmt.get("schema")
    if not isinstance(schema, dict):
        raise RuleError(400, "invalid_request_error", "output_config.format.schema: Field required")
    defs = dict(schema.get("$defs") or {}, **(schema.get("definitions") or {}))
    _check(schema, "", defs, set())
    return schema


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _check(node: Any, path: str, defs: Dict[str, Any], visiting: Set[str]) -> None:
    if not isinstance(node, dict):
        raise _bad(path, "each schema must be an object")
    unknown = sorted(set(node) - ALLOWED_KEYS)
    if unknown:
        raise _bad(path, f"'{unknown[0]}' is not supported in structured outputs schemas")
    if "$ref" in node:
        name = _ref_name(str(node["$ref"]))
        if name not in defs:
            raise _bad(path, f"unresolved $ref '{node['$ref']}'")
        if name in visiting:
            raise _bad(path, "recursive schemas are not supported")
        _check(defs[name], f"{path}.$defs.{name}", defs, visiting | {name})
        return
    for key in ("$defs", "definitions"):
        for name, sub in (node.get(key) or {}).items():
            _check(sub, f"{path}.{key}.{name}", defs, visiting | {name})
    for key in ("anyOf", "allOf"):
        for i, sub in enumerate(node.get(key) or []):
            _check(sub, f"{path}.{key}.{i}", defs, visiting)
    types = node.get("type")
    types = types if isinstance(types, list) else [types] if types else []
    if "object" in types:
        if node.get("additionalProperties") is not False:
            raise _bad(path, "For 'object' type, 'additionalProperties' must be explicitly set to false")
        props = node.get("properties") or {}
        for name in node.get("required") or []:
            if name not in props:
                raise _bad(path, f"required property '{name}' is not defined in properties")
        for name, sub in props.items():
            _check(sub, f"{path}.properties.{name}", defs, visiting)
    if "array" in types:
        if "minItems" in node and node["minItems"] not in (0, 1):
            raise _bad(path, f"minItems: only 0 and 1 are supported, got {node['minItems']}")
        if "items" in node:
            _check(node["items"], f"{path}.items", defs, visiting)
    if "format" in node and node["format"] not in STRING_FORMATS:
        raise _bad(path, f"format '{node['format']}' is not supported")


# --------------------------------------------------------------------------
# instances
# --------------------------------------------------------------------------


def instance(schema: Dict[str, Any]) -> Any:
    """A small deterministic JSON value valid for ``schema`` (what the model would return)."""
    defs = dict(schema.get("$defs") or {}, **(schema.get("definitions") or {}))
    return _gen(schema, defs, "valor")


def _gen(node: Dict[str, Any], defs: Dict[str, Any], name: str) -> Any:
    if "$ref" in node:
        return _gen(defs[_ref_name(node["$ref"])], defs, name)
    if "const" in node:
        return node["const"]
    if node.get("enum"):
        return node["enum"][0]
    if node.get("anyOf"):
        options = [o for o in node["anyOf"] if o.get("type") != "null"] or node["anyOf"]
        return _gen(options[0], defs, name)
    if node.get("allOf"):
        merged: Dict[str, Any] = {}
        for part in node["allOf"]:
            part = defs[_ref_name(part["$ref"])] if "$ref" in part else part
            for k, v in part.items():
                if k == "properties":
                    merged.setdefault("properties", {}).update(v)
                elif k == "required":
                    merged.setdefault("required", []).extend(v)
                else:
                    merged.setdefault(k, v)
        return _gen(merged, defs, name)
    types = node.get("type")
    t: Optional[str] = next((x for x in types if x != "null"), "null") if isinstance(types, list) else types
    if t == "object":
        return {k: _gen(sub, defs, k) for k, sub in (node.get("properties") or {}).items()}
    if t == "array":
        count = max(1, int(node.get("minItems") or 0))
        items = node.get("items") or {"type": "string"}
        return [_gen(items, defs, f"{name}_{i + 1}") for i in range(count)]
    if t == "string":
        return _SAMPLE_STRINGS.get(node.get("format", ""), f"{name} de ejemplo")
    if t == "integer":
        return 1
    if t == "number":
        return 1.0
    if t == "boolean":
        return True
    return None


def fits(schema: Dict[str, Any], text: str) -> List[str]:
    """Errors of ``text`` (a reply) against ``schema``; [] when it is valid JSON for it."""
    import jsonschema

    try:
        value = json.loads(text)
    except ValueError as exc:
        return [f"not JSON: {exc}"]
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in validator.iter_errors(value)]
