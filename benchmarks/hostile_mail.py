"""Hostile mail: draft time against body size (1 KB ... 10 MB) and how many hostile shapes one `run --once` pass survives.

Run: nice -n 10 python benchmarks/hostile_mail.py [--sizes 1000,10000,...] [--timeout 600] [--out benchmarks/results/hostile_mail.json]
Default settings (the product's offline embedder, extractive drafting, SQLite); the question is at the end of a filler text.
CPU seconds of the drafting process are reported next to wall seconds (the machine is shared).
Each size is drafted in a child process with a wall-clock limit, so a configuration without bounds (the code before issue 14)
reports "timeout" instead of running for hours. Timings on a shared machine: the load average is recorded with them.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)  # not benchmarks/: its modules could shadow the standard library

QUESTION = "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?"
FILLER = "Les escribo porque tengo una situación con mi inscripción y quería contarles todo lo que pasó desde el semestre anterior. "


def mail(size: int) -> bytes:
    head = "From: Ana <ana@example.org>\r\nTo: consultas@ingenieria.example.edu.uy\r\nSubject: Consulta\r\nMessage-ID: <big@example.org>\r\nDate: Mon, 02 Mar 2026 10:00:00 -0300\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
    body = (FILLER * (size // len(FILLER) + 1))[: max(0, size - len(QUESTION) - 2)] + "\n" + QUESTION
    return (head + body + "\r\n").encode("utf-8")


def _services(data_dir: Path):
    from bot.wiring.services import Services
    from pipeline.settings import Settings

    settings = Settings(data_dir=data_dir, _env_file=None)  # type: ignore[call-arg]
    settings.llm.provider = "extractive"
    settings.imap.max_message_bytes = 11 * 1024 * 1024
    return Services(settings)


def _one_size(size: int, data_dir: str, out: "mp.Queue") -> None:
    from bot.email.intake import intake_email
    from bot.loop.worker import RunReport, draft_pending
    from review.db import session_scope
    from review.models import InboundMessage

    svc = _services(Path(data_dir))
    svc.embedder.embed_queries(["hola"])  # load the model before timing: the figures are per message, not per process
    svc.retriever.retrieve("hola", 1)
    raw = mail(size)
    c0, t0 = time.process_time(), time.perf_counter()
    with session_scope(svc.engine) as session:
        message, _ = intake_email(session, raw, source_key=f"bench:{size}", max_bytes=svc.settings.imap.max_message_bytes)
        mid = message.id
    c1, t1 = time.process_time(), time.perf_counter()
    report = RunReport()
    draft_pending(svc, report)
    c2, t2 = time.process_time(), time.perf_counter()
    with session_scope(svc.engine) as session:
        m = session.get(InboundMessage, mid)
        state, question = m.state, len(m.redacted_text or "")
    out.put({
        "intake_s": round(t1 - t0, 3), "draft_s": round(t2 - t1, 3),
        "intake_cpu_s": round(c1 - c0, 3), "draft_cpu_s": round(c2 - c1, 3),  # CPU time of this process: robust to other load
        "state": state, "question_chars": question,
    })


def draft_times(sizes: list[int], timeout: float) -> list[dict]:
    from bot.ops.documents import ingest_documents

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        svc = _services(base)
        ingest_documents(svc)  # once; every size copies this data dir
        svc.close()
        for size in sizes:
            data_dir = Path(tmp) / f"s{size}"
            os.system(f"cp -r {base} {data_dir}")
            out: mp.Queue = mp.get_context("spawn").Queue()
            proc = mp.get_context("spawn").Process(target=_one_size, args=(size, str(data_dir), out))
            start = time.perf_counter()
            proc.start()
            proc.join(timeout)
            if proc.is_alive():
                proc.kill()
                proc.join()
                rows.append({"body_bytes": size, "result": "timeout", "limit_s": timeout})
            else:
                row = out.get() if not out.empty() else {"result": f"exit {proc.exitcode}"}
                rows.append({"body_bytes": size, **row, "wall_s": round(time.perf_counter() - start, 2)})
            print(rows[-1], flush=True)
            os.system(f"rm -rf {data_dir}")
    return rows


# The outcomes tests/bot/loop/test_hostile_run.py asserts for its shapes (issue 14).
HOSTILE_EXPECT = {"two_from": "quarantined", "auto_reply_es": "skipped", "acuse": "skipped", "own_plus": "skipped", "no_from": "quarantined", "garbage": "quarantined",
                  "empty": "quarantined", "broken_mime": "quarantined", "date_overflow": "drafted", "nul_body": "drafted", "nul_subject": "drafted",
                  "nul_from": "drafted", "huge": "drafted", "bad_charset": "drafted"}


def hostile_cases() -> dict:
    """Every hostile mail with its expected outcome: the shapes of issue 14 and our own set (benchmarks/hostile_set.py)."""
    from benchmarks.hostile_set import Case, cases
    from tests.bot.loop.test_hostile_run import HOSTILE

    out = {name: Case(raw, HOSTILE_EXPECT[name], None, "issue14") for name, raw in HOSTILE.items()}
    out.update(cases())
    return out


def judge(case, state: str | None, reason: str | None, question: str) -> bool:
    """Handled as expected: the expected state, a reason for a skip or quarantine, and the words the question must hold."""
    if state != case.expect:
        return False
    if state in ("skipped", "quarantined") and not reason:
        return False
    return case.says is None or case.says.lower() in (question or "").lower()


def run_cases(svc, inbox: Path, cases: dict) -> dict:
    """All the cases in one Maildir, one in-process run_once; per case its state, reason and whether it is as expected."""
    from sqlmodel import Session, select

    from bot.loop.worker import run_once
    from review.models import InboundMessage

    for name, case in cases.items():
        (inbox / f"{name}.eml").write_bytes(case.raw)
    try:
        run_once(svc)
        outcome = "finished"
    except Exception as exc:  # what the code before issue 14 did: the whole pass stopped
        outcome = f"{type(exc).__name__}: {exc}"[:200]
    with Session(svc.engine) as s:
        stored = {m.source_key.rsplit(":", 1)[1].removesuffix(".eml"): m for m in s.exec(select(InboundMessage)).all()}
        rows = {}
        for name, case in cases.items():
            m = stored.get(name)
            state, reason, question = (m.state, m.reason, m.redacted_text or "") if m else (None, None, "")
            rows[name] = {"family": case.family, "expect": case.expect, "state": state, "reason": (reason or "")[:160], "ok": judge(case, state, reason, question)}
    families: dict[str, list[int]] = {}
    for row in rows.values():
        families.setdefault(row["family"], [0, 0])
        families[row["family"]][0] += row["ok"]
        families[row["family"]][1] += 1
    return {"cases": len(cases), "handled_as_expected": sum(r["ok"] for r in rows.values()), "pass": outcome,
            "by_family": {k: f"{a} of {b}" for k, (a, b) in sorted(families.items())},
            "not_as_expected": {k: r for k, r in rows.items() if not r["ok"]}, "rows": rows}


def hostile_pass() -> dict:
    """Every hostile mail in one Maildir, one in-process run_once (the office's own address set, hashing embedder)."""
    with tempfile.TemporaryDirectory() as tmp:
        inbox = Path(tmp) / "inbox"
        inbox.mkdir()
        svc = _services(Path(tmp) / "data")
        svc.settings.embedding.backend = "hashing"  # this part measures robustness, not speed
        svc.settings.paths.maildir = inbox
        svc.settings.gate.enabled = False
        svc.settings.smtp.from_ = "Orientación <consultas@ingenieria.example.edu.gt>"  # the office own_plus writes from
        from bot.ops.documents import ingest_documents

        ingest_documents(svc)  # the sample documents: a drafted case is drafted from them
        try:
            return run_cases(svc, inbox, hostile_cases())
        finally:
            svc.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,25000,100000,1000000,10000000")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "hostile_mail.json"))
    parser.add_argument("--skip-hostile", action="store_true")
    parser.add_argument("--only-hostile", action="store_true", help="the hostile set alone, no timings by body size")
    args = parser.parse_args()
    load = os.getloadavg()
    result = {"load_average_at_start": [round(x, 2) for x in load], "cpus": os.cpu_count()}
    if not args.skip_hostile:
        result["hostile"] = hostile_pass()
        print(json.dumps({k: v for k, v in result["hostile"].items() if k != "rows"}, ensure_ascii=False, indent=1), flush=True)
    if args.only_hostile:  # keep the timings of the last full run
        previous = json.loads(Path(args.out).read_text(encoding="utf-8")) if Path(args.out).exists() else {}
        result["draft_time_by_body_size"] = previous.get("draft_time_by_body_size", [])
    else:
        result["draft_time_by_body_size"] = draft_times([int(x) for x in args.sizes.split(",")], args.timeout)
    result["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    Path(args.out).write_text(json.dumps(result, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
