"""Derivation trees: steps applying named rules to retrieved chunks, validated and rendered."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from pipeline.errors import DerivationError

# rule -> (min premises, max premises or None for unbounded)
RULES: dict[str, tuple[int, int | None]] = {
    "Extract": (1, 1),
    "Concat": (2, None),
    "Instantiate": (1, 1),
    "Compose": (2, 2),
    "Refine": (1, 1),
    "NoInfo": (0, 0),
}


@dataclass(slots=True)
class Step:
    """One rule application: premises are chunk numbers ("1".."n") or ids of earlier steps."""

    id: str
    rule: str
    premises: list[str]
    conclusion: str
    is_final: bool = False
    flags: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "Step":
        return cls(
            id=str(d["id"]),
            rule=str(d["rule"]),
            premises=[str(p) for p in d.get("premises", [])],
            conclusion=str(d.get("conclusion", "")),
            is_final=bool(d.get("is_final", False)),
            flags=list(d.get("flags", [])),
        )


def normalise_rule(name: str) -> str:
    """Map a rule name written loosely ('extract', 'NO_INFO') to its canonical form."""
    key = name.strip().replace("_", "").replace("-", "").replace(" ", "").lower()
    for rule in RULES:
        if rule.lower() == key:
            return rule
    raise DerivationError(f"unknown rule {name!r}")


def validate(steps: list[Step], n_chunks: int) -> Step:
    """Check arity, premises (exist and precede), no cycles, exactly one final step; return the final step."""
    if not steps:
        raise DerivationError("the derivation has no steps")
    seen: set[str] = set()
    for step in steps:
        if step.id in seen:
            raise DerivationError(f"step id {step.id!r} is used twice")
        if step.id.isdigit() and 1 <= int(step.id) <= n_chunks:
            raise DerivationError(f"step id {step.id!r} clashes with a chunk number")
        step.rule = normalise_rule(step.rule)
        lo, hi = RULES[step.rule]
        if len(step.premises) < lo or (hi is not None and len(step.premises) > hi):
            want = f"{lo}" if lo == hi else f"{lo}+" if hi is None else f"{lo}-{hi}"
            raise DerivationError(f"step {step.id}: {step.rule} takes {want} premises, got {len(step.premises)}")
        for p in step.premises:
            if p == step.id:
                raise DerivationError(f"step {step.id} uses itself as a premise (cycle)")
            if p.isdigit() and 1 <= int(p) <= n_chunks:
                continue
            if p not in seen:
                raise DerivationError(f"step {step.id}: premise {p!r} is neither a chunk (1..{n_chunks}) nor an earlier step")
        if not step.conclusion.strip() and step.rule != "NoInfo":
            raise DerivationError(f"step {step.id} has an empty conclusion")
        seen.add(step.id)
    finals = [s for s in steps if s.is_final]
    if len(finals) != 1:
        raise DerivationError(f"a derivation needs exactly one final step, found {len(finals)}")
    return finals[0]


def subtree(steps: list[Step], root: Step) -> list[Step]:
    """The steps under `root` (itself included), in derivation order."""
    by_id = {s.id: s for s in steps}
    stack, visited = [root], set()
    while stack:
        s = stack.pop()
        if s.id in visited:
            continue
        visited.add(s.id)
        stack += [by_id[p] for p in s.premises if p in by_id]
    return [s for s in steps if s.id in visited] or [root]


def leaves(steps: list[Step], root: Step) -> set[int]:
    """Chunk numbers (1-based) that the subtree under `root` depends on."""
    return {int(p) for s in subtree(steps, root) for p in s.premises if p.isdigit()}


def render(steps: list[Step], chunk_titles: list[str] | None = None) -> str:
    """The tree as indented text, root first, with verifier flags marked."""
    by_id = {s.id: s for s in steps}
    final = next((s for s in steps if s.is_final), steps[-1] if steps else None)
    if final is None:
        return "(sin derivación)"
    lines: list[str] = []

    def walk(step: Step, depth: int) -> None:
        flag = "  ⚠ " + "; ".join(step.flags) if step.flags else ""
        lines.append(f"{'  ' * depth}[{step.id}] {step.rule}: {step.conclusion}{flag}")
        for p in step.premises:
            if p in by_id:
                walk(by_id[p], depth + 1)
            else:
                title = chunk_titles[int(p) - 1] if chunk_titles and p.isdigit() and int(p) <= len(chunk_titles) else ""
                lines.append(f"{'  ' * (depth + 1)}(h{p}) {title}".rstrip())

    walk(final, 0)
    return "\n".join(lines)


# ---------------------------------------------------------------- parsing
_TRUE = {"si", "sí", "yes", "true", "1", "x", "final", "✓", "s"}
_NO_PREMISES = {"", "-", "—", "ninguna", "ninguno", "none", "[]"}


def normalise_premise(p: object) -> str:
    """'h3', 'H3', '[3]', 3 -> '3'; step ids are kept as written."""
    s = str(p).strip().strip("[]()").strip()
    if len(s) > 1 and s[0] in "hH" and s[1:].isdigit():
        return s[1:]
    return s


def steps_from_data(data: object) -> list[Step]:
    """Steps from structured output: {"steps": [{id, rule, premises, conclusion, is_final}, ...]} or the bare list."""
    items = data.get("steps") if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise DerivationError("structured output has no 'steps' list")
    steps = []
    for n, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise DerivationError(f"step {n} is not an object")
        premises = item.get("premises") or []
        if isinstance(premises, (str, int)):
            premises = [p for p in str(premises).replace(";", ",").split(",") if p.strip()]
        if not isinstance(premises, list):
            raise DerivationError(f"step {n}: premises must be a list")
        final = item.get("is_final", False)
        steps.append(
            Step(
                id=str(item.get("id") or f"s{n}").strip(),
                rule=normalise_rule(str(item.get("rule", ""))),
                premises=[normalise_premise(p) for p in premises],
                conclusion=str(item.get("conclusion") or "").strip(),
                is_final=final if isinstance(final, bool) else str(final).strip().lower() in _TRUE,
            )
        )
    return steps


def _is_rule(name: str) -> bool:
    try:
        normalise_rule(name)
    except DerivationError:
        return False
    return True


def parse_text(text: str) -> list[Step]:
    """Tolerant parser for `[id |] Rule | premises | conclusion | Es respuesta final` lines (or embedded JSON)."""
    import json
    import re

    fenced = re.search(r"\{.*\}|\[.*\]", text or "", flags=re.DOTALL)
    if fenced and '"rule"' in fenced.group(0):
        try:
            return steps_from_data(json.loads(fenced.group(0)))
        except ValueError:
            pass  # not valid JSON: try the line format
    steps: list[Step] = []
    for line in (text or "").splitlines():
        line = line.strip().strip("`").strip()
        if line.count("|") < 3:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if _is_rule(cells[0]):  # no id column: Rule | premises | conclusion | final
            sid, rule, prem, concl, final = f"s{len(steps) + 1}", cells[0], cells[1], " | ".join(cells[2:-1]), cells[-1]
        elif len(cells) >= 5:
            sid, rule, prem, concl, final = cells[0], cells[1], cells[2], " | ".join(cells[3:-1]), cells[-1]
        else:
            continue
        try:
            rule = normalise_rule(rule)
        except DerivationError:
            continue  # a header row or prose with pipes
        premises = [] if prem.strip().lower() in _NO_PREMISES else [normalise_premise(p) for p in re.split(r"[,;\s]+", prem) if p.strip()]
        sid = sid.rstrip(":.").strip() or f"s{len(steps) + 1}"
        steps.append(Step(id=sid, rule=rule, premises=premises, conclusion=concl, is_final=final.strip().lower().rstrip(".") in _TRUE))
    if not steps:
        raise DerivationError("no derivation steps found in the model's reply")
    return steps


def to_json(steps: list[Step]) -> list[dict]:
    """The derivation as plain JSON-ready dicts."""
    return [s.as_dict() for s in steps]


def tree_rows(derivation: list[dict], titles: list[str]) -> list[dict]:
    """A stored derivation as rows, root first then each premise's subtree (depth-first, each step once): id, rule,
    premises (a step id, or `hN (title)` for retrieved chunk N), conclusion, flags and depth. Cards and pages render these."""
    steps = {str(s["id"]): s for s in derivation}
    if not steps:
        return []
    final = next((s for s in derivation if s.get("is_final")), derivation[-1])
    rows: list[dict] = []
    seen: set[str] = set()

    def premise(p: str) -> str:
        if p in steps:
            return p
        return f"h{p}" + (f" ({titles[int(p) - 1]})" if p.isdigit() and 0 < int(p) <= len(titles) else "")

    def walk(step: dict, depth: int) -> None:
        sid = str(step["id"])
        if sid in seen:
            return
        seen.add(sid)
        names = list(map(str, step.get("premises", [])))
        rows.append({"id": sid, "rule": step.get("rule"), "premises": [premise(p) for p in names], "conclusion": step.get("conclusion", ""), "flags": step.get("flags") or [], "depth": depth})
        for p in names:
            if p in steps:
                walk(steps[p], depth + 1)

    walk(final, 0)
    return rows
