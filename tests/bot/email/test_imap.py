"""IMAP intake against a real Dovecot: exactly once across re-runs, drops, SIGKILL, UIDVALIDITY changes; IDLE and polling."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlmodel import Session, func, select

from bot.email.imap import ImapIntake, get_checkpoint
from bot.errors import ChannelError
from review.models import InboundMessage

REPO = Path(__file__).resolve().parents[3]


def _msg(make_message, i: int, **kw) -> bytes:
    return make_message(subject=f"consulta {i}", body=f"Hola, ¿cuándo es el examen {i}?\n\nGracias", sender=f"est{i}@example.org", message_id=f"<m{i}@example.org>", **kw)


def _rows(engine) -> list[InboundMessage]:
    with Session(engine) as s:
        return list(s.exec(select(InboundMessage).order_by(InboundMessage.id)).all())


def _count_by_mid(engine) -> dict[str, int]:
    with Session(engine) as s:
        rows = s.exec(select(InboundMessage.external_id, func.count()).group_by(InboundMessage.external_id)).all()
    return {mid: n for mid, n in rows}


def test_each_message_stored_once_across_passes(imap_account, imap_settings, engine, make_message):
    for i in range(3):
        imap_account.append(_msg(make_message, i))
    intake = ImapIntake(imap_settings, engine=engine)
    first = intake.sync()
    again = intake.sync()
    imap_account.append(_msg(make_message, 3))
    third = intake.sync()
    intake.close()
    assert (first.stored, again.stored, again.fetched, third.stored) == (3, 0, 0, 1)
    assert _count_by_mid(engine) == {f"<m{i}@example.org>": 1 for i in range(4)}
    with Session(engine) as s:
        cp = get_checkpoint(session=s, account=imap_settings.account, mailbox="INBOX")
    assert cp is not None and cp.last_uid == max(imap_account.uids()) and cp.uidvalidity == imap_account.uidvalidity()
    row = _rows(engine)[0]
    assert row.raw and row.cleaned_text == "¿cuándo es el examen 0?" and row.redacted_text


def test_seen_flag_neither_needed_nor_changed(imap_account, imap_settings, engine, make_message):
    imap_account.append(_msg(make_message, 0), flags=r"(\Seen)")  # a staff member already opened it elsewhere
    imap_account.append(_msg(make_message, 1))
    intake = ImapIntake(imap_settings, engine=engine)
    assert intake.sync().stored == 2
    intake.close()
    flags = {uid: f for uid, _raw, f in imap_account.server.fetch_all("INBOX", imap_account.user, imap_account.password)}
    assert [("\\Seen" in f) for _, f in sorted(flags.items())] == [True, False]


@pytest.mark.parametrize("reappend", [False, True])
def test_uidvalidity_change_rescans_without_duplicates_or_loss(imap_account, imap_settings, engine, make_message, reappend):
    for i in range(3):
        imap_account.append(_msg(make_message, i))
    no_id = make_message(subject="sin id", body="¿Dónde está Bedelía?", sender="x@example.org")
    no_id = b"\r\n".join(line for line in no_id.split(b"\r\n") if not line.startswith(b"Message-ID"))
    imap_account.append(no_id)
    intake = ImapIntake(imap_settings, engine=engine)
    assert intake.sync().stored == 4
    intake.close()
    old, new = imap_account.change_uidvalidity(reappend=reappend)
    imap_account.append(_msg(make_message, 9))  # arrived during the rebuild
    report = intake.sync()
    intake.close()
    assert old != new and report.rescan
    assert (report.stored, report.duplicates) == (1, 4)
    assert len(_rows(engine)) == 5
    with Session(engine) as s:
        assert get_checkpoint(session=s, account=imap_settings.account, mailbox="INBOX").uidvalidity == new


def test_connection_dropped_mid_fetch_then_reconnect(imap_account, imap_settings, engine, make_message, cutting_proxy):
    for i in range(8):
        imap_account.append(_msg(make_message, i, extra_headers={"X-Pad": "x" * 900}))
    proxy = cutting_proxy(cut_after=4000)  # after login and a few messages of the FETCH
    settings = imap_settings.model_copy(update={"port": proxy.port, "fetch_batch": 3})
    intake = ImapIntake(settings, engine=engine)
    report = intake.sync_with_retry(attempts=3)
    intake.close()
    assert proxy.cuts == 1 and proxy.connections >= 2
    assert _count_by_mid(engine) == {f"<m{i}@example.org>": 1 for i in range(8)}
    assert report.stored + report.duplicates <= 8


def test_unreachable_server_raises_channel_error(imap_settings, engine):
    settings = imap_settings.model_copy(update={"port": 1, "timeout_s": 2})
    with pytest.raises(ChannelError):
        ImapIntake(settings, engine=engine).sync_with_retry(attempts=2)


@pytest.mark.parametrize("kill_at", ["before_commit", "after_message"])
def test_sigkill_between_fetch_and_commit_then_restart(imap_account, engine, tmp_path, make_message, kill_at):
    for i in range(5):
        imap_account.append(_msg(make_message, i))
    url = str(engine.url)
    args = [sys.executable, str(Path(__file__).with_name("kill_worker.py")), url, imap_account.host, str(imap_account.port), imap_account.user, imap_account.password]
    killed = subprocess.run(args + [kill_at, "3"], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    stored_before = len(_rows(engine))
    assert stored_before == (2 if kill_at == "before_commit" else 3)
    restarted = subprocess.run(args + ["never", "0"], capture_output=True, text=True, timeout=60, cwd=REPO)
    assert restarted.returncode == 0, restarted.stderr
    assert _count_by_mid(engine) == {f"<m{i}@example.org>": 1 for i in range(5)}
    assert "stored=" in restarted.stdout


def _wait_rows(engine, n: int, timeout: float = 15.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        count = len(_rows(engine))
        if count >= n:
            return count
        time.sleep(0.1)
    return len(_rows(engine))


@pytest.mark.parametrize("use_idle", [True, False])
def test_run_forever_picks_up_new_mail(imap_account, imap_settings, engine, make_message, use_idle):
    imap_account.append(_msg(make_message, 0))
    intake = ImapIntake(imap_settings.model_copy(update={"use_idle": use_idle, "idle_renew_minutes": 0.05}), engine=engine)
    thread = threading.Thread(target=intake.run_forever, daemon=True)
    thread.start()
    try:
        assert _wait_rows(engine, 1) == 1
        if use_idle:
            assert intake.supports_idle
        imap_account.append(_msg(make_message, 1))
        assert _wait_rows(engine, 2) == 2
    finally:
        intake.stop()
        thread.join(timeout=15)
    assert not thread.is_alive()
    assert _count_by_mid(engine) == {"<m0@example.org>": 1, "<m1@example.org>": 1}


def test_poison_mail_on_imap_is_quarantined_and_later_mail_is_still_read(imap_account, imap_settings, engine, make_message):
    from tests.bot.loop.test_hostile_run import HOSTILE

    for name in ("date_overflow", "nul_body", "two_from", "garbage"):
        imap_account.append(HOSTILE[name])
    intake = ImapIntake(imap_settings, engine=engine)
    first = intake.sync()
    imap_account.append(_msg(make_message, 9))  # arrives after the poison
    second = intake.sync()
    intake.close()
    rows = _rows(engine)
    assert (first.stored, second.stored) == (4, 1) and len(rows) == 5
    assert [r.state for r in rows] == ["received", "received", "quarantined", "quarantined", "received"]
    assert rows[-1].cleaned_text == "¿cuándo es el examen 9?"
