"""IMAP intake at volume: N messages appended to a real Dovecot on loopback, all stored exactly once, timed.

Run: .venv/bin/python benchmarks/imap_intake.py [--n 1000] [--draft]
Writes benchmarks/results/imap_intake.json. --draft also drafts every stored message with the offline (extractive) generator.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[0] = str(REPO)  # not benchmarks/: its queue.py would shadow the standard library

from pydantic import SecretStr  # noqa: E402
from sqlmodel import Session, func, select  # noqa: E402

from bot.email.imap import ImapIntake  # noqa: E402
from review.models import InboundMessage  # noqa: E402
from tests.servers.dovecot import DovecotServer, make_message  # noqa: E402

QUESTIONS = [
    "¿Hasta cuándo me puedo inscribir a los exámenes de febrero?",
    "¿Cuántos créditos necesito para recibirme?",
    "¿Qué becas hay para estudiantes del interior?",
    "¿En qué horario atiende Bedelía?",
    "¿Cómo pido una escolaridad?",
]


def generate(i: int) -> bytes:
    """A synthetic student e-mail (offline generator): greeting, question, personal data, signature, sometimes a quoted thread."""
    q = QUESTIONS[i % len(QUESTIONS)]
    body = f"Hola,\n\n{q} Mi celular es 099 {i % 1000:03d} {(i * 7) % 1000:03d}.\n\nGracias,\nEstudiante {i}"
    if i % 3 == 0:
        body += f"\n\nEl lun, 16 nov 2026 a las 10:02, Bedelía <bedelia@ingenieria.example.edu.uy> escribió:\n> Hola, respuesta anterior {i}\n"
    return make_message(subject=f"consulta {i}", body=body, sender=f"estudiante{i}@example.org", message_id=f"<bench-{i}@example.org>")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--draft", action="store_true", help="also draft every message with the offline generator")
    args = ap.parse_args()
    out: dict = {"n": args.n, "note": "2 shared CPU cores; timings are noisy"}
    with DovecotServer() as server, tempfile.TemporaryDirectory() as tmp:
        account = server.add_user()
        t0 = time.perf_counter()
        with server.session(account.user, account.password) as conn:
            for i in range(args.n):
                conn.append("INBOX", None, None, generate(i).replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
        out["append_s"] = time.perf_counter() - t0
        from pipeline.settings import IMAPSettings, Settings
        from review.db import init_db, make_engine

        engine = make_engine(f"sqlite:///{tmp}/bench.db")
        init_db(engine)
        imap = IMAPSettings(host=server.host, port=server.port, user=account.user, password=SecretStr(account.password), security="none", fetch_batch=100)
        intake = ImapIntake(imap, engine=engine)
        t0 = time.perf_counter()
        first = intake.sync()
        out["intake_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        second = intake.sync()
        out["second_pass_s"] = time.perf_counter() - t0
        intake.close()
        with Session(engine) as s:
            rows = s.exec(select(func.count()).select_from(InboundMessage)).one()
            distinct = s.exec(select(func.count(func.distinct(InboundMessage.external_id)))).one()
            redacted = s.exec(select(func.count()).select_from(InboundMessage).where(InboundMessage.redacted_text.contains("[TELEFONO]"))).one()  # type: ignore[union-attr]
        out.update({
            "stored": first.stored, "rows": rows, "distinct_message_ids": distinct, "second_pass_stored": second.stored,
            "redacted_with_phone_placeholder": redacted, "messages_per_s": args.n / out["intake_s"],
            "exactly_once": rows == args.n == distinct and second.stored == 0,
        })
        if args.draft:
            os.environ.setdefault("ORIENTA_EMBEDDING__BACKEND", "hashing")
            from bot.ops.documents import ingest_documents
            from bot.wiring.services import Services
            from bot.loop.worker import RunReport, draft_pending

            settings = Settings(data_dir=Path(tmp) / "data", _env_file=None)  # type: ignore[call-arg]
            settings.embedding.backend = "hashing"
            settings.database.url = f"sqlite:///{tmp}/bench.db"
            settings.gate.enabled = False
            svc = Services(settings)
            ingest_documents(svc)
            report = RunReport()
            t0 = time.perf_counter()
            draft_pending(svc, report, limit=args.n)
            out["draft_s"] = time.perf_counter() - t0
            out["drafted"] = report.drafted
            svc.close()
    (REPO / "benchmarks" / "results").mkdir(parents=True, exist_ok=True)
    (REPO / "benchmarks" / "results" / "imap_intake.json").write_text(json.dumps(out, indent=2))
    width = max(map(len, out))
    for k, v in out.items():
        print(f"{k:<{width}}  {v:.3f}" if isinstance(v, float) else f"{k:<{width}}  {v}")


if __name__ == "__main__":
    main()
