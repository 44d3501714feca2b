"""The sample office's drafts by the demo reviewer's must-say rule, memory off: how many a reviewer would send unchanged.

  nice -n 10 .venv/bin/python benchmarks/sample_office.py --base /tmp/sample-office [--details FILE.jsonl] [--out FILE.json]
The first run builds `--base` the way `orienta demo` does (offline drafts: ingest the sample documents, train the gate,
both weeks of sample traffic reviewed by the simulated reviewer); later runs reuse it. Every stored sample message is
then re-drafted on a copy of it with the approved-answer memory off (`bot.loop.drafting._answer`, the message's date,
its thread's earlier turns), and the draft is judged with the demo reviewer's rule (`SampleReviewer._right`: every
must-say fact, nothing from a past period, the expected documents cited and no other). Reports the first week's
e-mails (first round) and every row whose expected outcome is answerable. Comparing two code versions on the same
base measures only the drafting (the base's threads and their replies are the same).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from sqlmodel import Session, select  # noqa: E402

from bot.demo import sample  # noqa: E402
from bot.demo.reviewer import SampleReviewer, answer_text, says  # noqa: E402
from bot.demo.run import _sample_key, run_demo  # noqa: E402
from bot.learning import conversations  # noqa: E402
from bot.loop import steps  # noqa: E402
from bot.loop.drafting import _answer  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from pipeline.generation.readiness import readiness_of  # noqa: E402
from pipeline.settings import Settings  # noqa: E402
from review.models import Draft, InboundMessage  # noqa: E402


def settings_for(data_dir: Path) -> Settings:
    settings = Settings(data_dir=data_dir, _env_file=None)  # type: ignore[call-arg]
    settings.llm.provider = "extractive"
    return settings


def build_base(base: Path) -> None:
    """The demo's data dir (its `.orienta-demo` marker says it is finished)."""
    if (base / ".orienta-demo").exists():
        return
    run_demo(settings_for(base), progress=lambda msg: print(msg, file=sys.stderr))


def redraft(base: Path) -> list[dict]:
    """Every sample message of the base, drafted again with memory off and judged by the reviewer's rule."""
    by_key = sample.expectations()
    with tempfile.TemporaryDirectory(prefix="sample-office-") as tmp:
        work = Path(tmp) / "demo"
        shutil.copytree(base, work)
        services = Services(settings_for(work))
        try:
            reviewer = SampleReviewer(_sample_key, {})
            rows = []
            with Session(services.engine) as session:
                messages = session.exec(select(InboundMessage).order_by(InboundMessage.id)).all()
                week2_first = min((m.id for m in messages if _sample_key(m).startswith("week2/") or _sample_key(m) in _week2_ts()), default=None)
                for m in messages:
                    key = _sample_key(m)
                    want = by_key.get(key)
                    if want is None:
                        continue
                    if want.get("outcome") != "answerable":
                        continue  # the reviewer approves no draft of another outcome
                    first = by_key.get(sample.intent(key, by_key), {})
                    thread = steps.Thread(history=conversations.history(session, m))
                    question = steps.focus(m, thread, max_chars=services.settings.drafting.question_max_chars,
                                           standalone=partial(conversations.standalone, None), model=None)
                    drafted, decision = _answer(services, question, memory=False, today=m.received_at.date() if m.received_at else None)
                    draft = Draft(message_id=m.id, text=drafted.text, method=drafted.method, model=drafted.model,
                                  out_of_domain=bool(decision is not None and decision.in_domain is False),
                                  references=[r.as_dict() for r in drafted.references], flags=drafted.flags + steps.flag_links(drafted))
                    right = reviewer._right(session, draft, key, want)
                    must = want.get("must_say") or first.get("must_say", [])
                    body = answer_text(draft.text)
                    rows.append({
                        "key": key,
                        "first_round": not key.startswith(("followups/", "week2/")) and m.channel == "email",
                        "week": 2 if week2_first is not None and m.id >= week2_first else 1,
                        "question": question.asked,
                        "right": right,
                        "missing": [f for f in must if not says(body, f)],
                        "cited": [r.get("doc_id") for r in draft.references or []],
                        "expected_docs": want.get("docs") or [want.get("doc")],
                        "readiness": (readiness_of(drafted.flags) or {}).get("flag"),
                        "draft": draft.text,
                    })
                session.rollback()
        finally:
            services.close()
    return rows


def _week2_ts() -> set[str]:
    return {e["ts"] for e in sample.expected().get("week2", {}).get("slack", [])}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True, help="The demo data dir to build (first run) or reuse.")
    ap.add_argument("--details", type=Path, help="Write one JSON line per judged message here.")
    ap.add_argument("--out", type=Path, help="Write the counts here (JSON).")
    args = ap.parse_args()
    build_base(args.base)
    rows = redraft(args.base)
    first = [r for r in rows if r["first_round"]]
    summary = {
        "first_round": {"right": sum(r["right"] for r in first), "of": len(first)},
        "answerable_rows": {"right": sum(r["right"] for r in rows), "of": len(rows)},
        "wrong_first_round": {r["key"]: r["missing"] for r in first if not r["right"]},
    }
    if args.details:
        args.details.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    if args.out:
        args.out.write_text(json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(summary, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
