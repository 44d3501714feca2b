"""Scoring of redaction: recall by type, precision of placeholders, false positives on an office's documents."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from pipeline import redaction

_COURSE_CODE = re.compile(r"(?im)^\s*(?:codigo|código|area|prerequisitos)\s*:.*$")
_DATE = re.compile(r"\b\d{1,2}[/-]\d{1,2}[/-]\d{2,4}\b|\b\d{1,2}\s+de\s+[a-záéíóú]+(?:\s+de\s+\d{4})?\b", re.IGNORECASE)


def leaked(value: str, kind: str, out: str) -> bool:
    """Whether any identifying part of `value` survives in `out` (the whole value, a 3+ digit run or a capitalised word)."""
    if value in out:
        return True
    digits = re.findall(r"\d{3,}", value)
    if any(d in re.findall(r"\d+", out) or d in out for d in digits):
        return True
    if kind in ("NOMBRE", "EMAIL"):
        words = [w for w in re.findall(r"[\wÁÉÍÓÚáéíóúñÑ.]+", value) if len(w) >= 3 and w.lower() not in ("arroba", "punto", "dot", "com", "gmail", "hotmail", "yahoo", "outlook")]
        return any(re.search(rf"(?<![\w]){re.escape(w)}(?![\w])", out) for w in words)
    return False


def _redact(text: str, names: list[str]) -> redaction.Redaction:
    if "names" in inspect.signature(redaction.redact).parameters:  # the rules before issue 14 took no names
        return redaction.redact(text, names=names)
    return redaction.redact(text)


def evaluate(cases: list[dict]) -> dict:
    """Recall per type (value gone and a placeholder of its type present) and precision of the emitted placeholders."""
    per_type: dict[str, dict[str, int]] = {}
    emitted = true_pos = 0
    misses, false_pos = [], []
    for case in cases:
        result = _redact(case["text"], case.get("names", []))
        for kind, values in case["items"].items():
            row = per_type.setdefault(kind, {"items": 0, "found": 0})
            for value in values:
                row["items"] += 1
                if not leaked(value, kind, result.text) and f"[{kind}]" in result.text:
                    row["found"] += 1
                else:
                    misses.append({"type": kind, "value": value, "output": result.text})
        for kind, n in result.counts.items():
            emitted += n
            good = min(n, len(case["items"].get(kind, [])))
            true_pos += good
            if n > good:
                false_pos.append({"type": kind, "extra": n - good, "text": case["text"], "output": result.text})
    items = sum(r["items"] for r in per_type.values())
    found = sum(r["found"] for r in per_type.values())
    return {
        "cases": len(cases),
        "items": items,
        "recall": round(found / items, 4) if items else None,
        "recall_by_type": {k: round(v["found"] / v["items"], 3) for k, v in sorted(per_type.items())},
        "items_by_type": {k: v["items"] for k, v in sorted(per_type.items())},
        "precision": round(true_pos / emitted, 4) if emitted else None,
        "placeholders": emitted,
        "misses": misses,
        "false_positives": false_pos,
    }


def fiusac_false_positives(folder: Path) -> dict | None:
    """Course-code lines and dates of the FIUSAC documents that redaction would change (they carry no personal data)."""
    if not folder.is_dir():
        return None
    checked = changed = 0
    examples = []
    for path in sorted(folder.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        snippets = [m.group(0) for m in _COURSE_CODE.finditer(text)] + [m.group(0) for m in _DATE.finditer(text)]
        for s in snippets:
            checked += 1
            out = _redact(s, []).text
            if out != s:
                changed += 1
                if len(examples) < 20:
                    examples.append({"file": path.name, "text": s, "output": out})
    return {"snippets": checked, "changed": changed, "examples": examples}
