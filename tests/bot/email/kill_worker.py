"""Subprocess for the SIGKILL fault test: runs one IMAP catch-up and kills itself with SIGKILL at a chosen point.

Usage: python kill_worker.py DB_URL HOST PORT USER PASSWORD KILL_AT(before_commit|after_message|never) NTH
"""

from __future__ import annotations

import os
import signal
import sys

from pydantic import SecretStr

from bot.email.imap import ImapIntake
from bot.email.intake import intake_email
from pipeline.settings import IMAPSettings
from review.db import init_db, make_engine


def main() -> None:
    db_url, host, port, user, password, kill_at, nth = sys.argv[1:8]
    engine = make_engine(db_url)
    init_db(engine)
    seen = 0

    def store(session, raw, **kw):
        nonlocal seen
        seen += 1
        if kill_at == "before_commit" and seen == int(nth):
            print("fetched, about to commit", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        result = intake_email(session, raw, **kw)
        if kill_at == "after_message" and seen == int(nth):
            session.commit()  # the message row is committed; the checkpoint is not
            print("message committed, checkpoint not", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    settings = IMAPSettings(host=host, port=int(port), user=user, password=SecretStr(password), security="none", timeout_s=10)
    intake = ImapIntake(settings, engine=engine, store=store)
    report = intake.sync()
    intake.close()
    print(f"stored={report.stored} duplicates={report.duplicates}", flush=True)


if __name__ == "__main__":
    main()
