"""Fuzz the derivation parser and validator with malformed model outputs: a valid tree or a clear error, never a crash."""

from __future__ import annotations

import copy
import json
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# benchmarks/ holds scripts named like stdlib modules (queue.py): keep it off the import path
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
sys.path.insert(0, str(ROOT))

from pipeline.derivation import parse_text, steps_from_data, validate  # noqa: E402
from pipeline.errors import DerivationError  # noqa: E402
from pipeline.prompts import load_prompt  # noqa: E402

N_CHUNKS = 3


def examples() -> list[dict]:
    text = load_prompt("derivation").text
    out = []
    for part in text.split("### Ejemplo ")[1:]:
        out.append(json.loads(part[part.index('{"steps"') :].strip()))
    return out


def as_lines(data: dict) -> str:
    return "\n".join(f"{s['id']} | {s['rule']} | {', '.join(s['premises']) or '-'} | {s['conclusion']} | {'sí' if s['is_final'] else 'no'}" for s in data["steps"])


def mutate_data(rng: random.Random, data: dict) -> tuple[str, object]:
    d = copy.deepcopy(data)
    steps = d["steps"]
    s = rng.choice(steps)
    kind = rng.choice(["drop_key", "wrong_type", "bad_rule", "bad_premise", "forward_ref", "dup_id", "two_finals", "no_final", "shuffle", "empty", "not_list", "nulls", "int_premises", "h_premises", "extra_keys"])
    if kind == "drop_key":
        s.pop(rng.choice(list(s)))
    elif kind == "wrong_type":
        s[rng.choice(["premises", "is_final", "conclusion", "rule"])] = rng.choice([None, 3, {"x": 1}, ["a"], ""])
    elif kind == "bad_rule":
        s["rule"] = rng.choice(["Deduce", "EXTRACTION", "", "extract", "no-info"])
    elif kind == "bad_premise":
        s["premises"] = [rng.choice(["0", "99", "sX", "", "h0"])]
    elif kind == "forward_ref":
        steps[0]["premises"] = [steps[-1]["id"]]
    elif kind == "dup_id":
        s["id"] = steps[0]["id"]
    elif kind == "two_finals":
        for t in steps:
            t["is_final"] = True
    elif kind == "no_final":
        for t in steps:
            t["is_final"] = False
    elif kind == "shuffle":
        rng.shuffle(steps)
    elif kind == "empty":
        d = {"steps": []}
    elif kind == "not_list":
        d = {"steps": json.dumps(steps)}
    elif kind == "nulls":
        d = {"steps": [None, *steps]}
    elif kind == "int_premises":
        for t in steps:
            t["premises"] = [int(p) if p.isdigit() else p for p in t["premises"]]
    elif kind == "h_premises":
        for t in steps:
            t["premises"] = [f"h{p}" if p.isdigit() else p for p in t["premises"]]
    elif kind == "extra_keys":
        s["confidence"] = 0.3
    return f"data:{kind}", d


def mutate_text(rng: random.Random, data: dict) -> tuple[str, str]:
    text = as_lines(data)
    kind = rng.choice(["truncate", "drop_line", "garbage_line", "extra_pipes", "no_pipes", "prose", "json_truncated", "json_fenced", "unicode", "swap_cols", "blank"])
    if kind == "truncate":
        text = text[: rng.randrange(1, len(text))]
    elif kind == "drop_line":
        lines = text.splitlines()
        lines.pop(rng.randrange(len(lines)))
        text = "\n".join(lines)
    elif kind == "garbage_line":
        text += "\n" + "".join(rng.choice("|abc 123,;{}[]\"") for _ in range(40))
    elif kind == "extra_pipes":
        text = text.replace(" | ", " || ", 1)
    elif kind == "no_pipes":
        text = text.replace("|", " ")
    elif kind == "prose":
        text = "Claro, acá va:\n" + text + "\nEspero que sirva."
    elif kind == "json_truncated":
        raw = json.dumps(data, ensure_ascii=False)
        text = raw[: rng.randrange(1, len(raw))]
    elif kind == "json_fenced":
        text = "```json\n" + json.dumps(data, ensure_ascii=False) + "\n```"
    elif kind == "unicode":
        text = text.replace("s", "ѕ", 3)  # Cyrillic look-alikes in ids
    elif kind == "swap_cols":
        text = "\n".join(" | ".join(reversed(line.split(" | "))) for line in text.splitlines())
    elif kind == "blank":
        text = rng.choice(["", "   ", "\n\n", "null", "{}"])
    return f"text:{kind}", text


def outcome(parse, payload) -> str:
    try:
        steps = parse(payload)
        validate(steps, N_CHUNKS)
        return "valid"
    except DerivationError:
        return "error"
    except Exception as exc:  # noqa: BLE001  (that is what the fuzzer looks for)
        return f"CRASH {type(exc).__name__}: {exc}"


def main(n: int = 3000, seed: int = 7) -> None:
    rng = random.Random(seed)
    base = examples()
    by_kind: dict[str, Counter] = {}
    crashes = []
    for _ in range(n):
        data = rng.choice(base)
        if rng.random() < 0.5:
            kind, payload = mutate_data(rng, data)
            res = outcome(steps_from_data, payload)
        else:
            kind, payload = mutate_text(rng, data)
            res = outcome(parse_text, payload)
        by_kind.setdefault(kind, Counter())["crash" if res.startswith("CRASH") else res] += 1
        if res.startswith("CRASH"):
            crashes.append({"kind": kind, "error": res, "payload": str(payload)[:300]})
    total = Counter()
    for c in by_kind.values():
        total.update(c)
    print(f"{'mutation':24} {'valid':>6} {'error':>6} {'crash':>6}")
    for kind in sorted(by_kind):
        c = by_kind[kind]
        print(f"{kind:24} {c['valid']:6} {c['error']:6} {c['crash']:6}")
    print(f"{'TOTAL':24} {total['valid']:6} {total['error']:6} {total['crash']:6}")
    for c in crashes[:5]:
        print("crash:", c)
    out = ROOT / "benchmarks" / "results" / "parser_fuzz.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"n": n, "seed": seed, "total": dict(total), "by_kind": {k: dict(v) for k, v in by_kind.items()}, "crashes": crashes[:50]}, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
