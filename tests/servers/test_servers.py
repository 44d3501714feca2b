"""The mail-server fixtures are real servers and behave like them."""
from __future__ import annotations

import smtplib
import socket
import subprocess
import threading
import time

import imaplib2
import pytest

from tests.servers.dovecot import DovecotServer, _live_group_members, find_dovecot, make_message
from tests.servers.smtp import SmtpServer


def _imap2(account) -> "imaplib2.IMAP4":
    conn = imaplib2.IMAP4(account.host, account.port, timeout=30)
    conn.login(account.user, account.password)
    return conn


def _uidvalidity(conn, mailbox="INBOX") -> int:
    typ, data = conn.select(mailbox, readonly=True)
    assert typ == "OK"
    typ, data = conn.response("UIDVALIDITY")
    return int(data[0])


# ------------------------------------------------------------------ Dovecot


def test_dovecot_append_search_and_uidvalidity_change(imap_account):
    for i in range(3):
        imap_account.append(make_message(subject=f"msg {i}", body=f"body {i}"))

    conn = _imap2(imap_account)
    try:
        typ, data = conn.select("INBOX")
        assert typ == "OK" and int(data[0]) == 3
        typ, data = conn.uid("SEARCH", "ALL")
        assert typ == "OK"
        uids = [int(x) for x in data[0].split()]
        assert len(uids) == 3
        typ, data = conn.response("UIDVALIDITY")
        old_validity = int(data[0])
        assert old_validity > 0
        typ, data = conn.uid("FETCH", str(uids[0]), "(BODY.PEEK[HEADER.FIELDS (SUBJECT)])")
        assert b"msg 0" in data[0][1]
    finally:
        conn.logout()

    old, new = imap_account.change_uidvalidity()
    assert old == old_validity and new != old

    conn = _imap2(imap_account)
    try:
        assert _uidvalidity(conn) == new
        typ, data = conn.uid("SEARCH", "ALL")
        assert len(data[0].split()) == 3  # messages survive the rebuild
    finally:
        conn.logout()


def test_uidvalidity_change_with_reappend_and_other_mailbox(imap_account):
    imap_account.create_mailbox("Sent")
    for i in range(2):
        imap_account.append(make_message(subject=f"sent {i}"), mailbox="Sent", flags=r"(\Seen)")
    before = imap_account.uids("Sent")
    old, new = imap_account.change_uidvalidity("Sent", reappend=True)
    assert new != old
    assert imap_account.uidvalidity("Sent") == new
    after = imap_account.uids("Sent")
    assert len(after) == 2 and len(before) == 2
    # INBOX is untouched by a change of Sent
    assert imap_account.uids("INBOX") == []
    with imap_account.server.session(imap_account.user, imap_account.password) as c:
        c.select("Sent", readonly=True)
        typ, data = c.uid("FETCH", "1:*", "(FLAGS)")
        assert all(b"\\Seen" in d for d in data)


def test_each_test_gets_an_empty_inbox(imap_account, dovecot):
    assert imap_account.uids() == []
    assert imap_account.server is dovecot
    assert imap_account.maildir.is_dir()
    with dovecot.session(imap_account.user, imap_account.password) as c:
        typ, data = c.list()
        names = [d.decode() for d in data]
        assert len(names) == 1 and names[0].endswith("INBOX")
    # the default account of the session server works too
    assert dovecot.user and dovecot.password and dovecot.maildir.is_dir()
    with dovecot.session() as c:
        assert c.select("INBOX")[0] == "OK"


def test_wrong_password_is_refused(imap_account):
    conn = imaplib2.IMAP4(imap_account.host, imap_account.port, timeout=30)
    try:
        with pytest.raises(imaplib2.IMAP4.error):
            conn.login(imap_account.user, "wrong")
    finally:
        conn.logout()


def test_dovecot_advertises_idle(imap_account):
    conn = _imap2(imap_account)
    try:
        typ, data = conn.capability()
        assert typ == "OK"
        caps = data[0].upper().split()
        assert b"IDLE" in caps and b"UIDPLUS" in caps
    finally:
        conn.logout()


def test_idle_is_woken_by_append_from_another_connection(imap_account):
    conn = _imap2(imap_account)
    try:
        conn.select("INBOX")
        appended = threading.Event()

        def append_later():
            time.sleep(1.0)
            imap_account.append(make_message(subject="wake up"))
            appended.set()

        t = threading.Thread(target=append_later, daemon=True)
        t.start()
        start = time.monotonic()
        typ, data = conn.idle(timeout=20)
        elapsed = time.monotonic() - start
        t.join(10)
        assert appended.is_set()
        assert elapsed < 15, f"IDLE not woken by APPEND (returned after {elapsed:.1f}s)"
        typ, data = conn.response("EXISTS")
        assert data and data[-1] is not None and int(data[-1]) == 1
    finally:
        conn.logout()


def _dovecot_procs(conf_dir: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if conf_dir in line]


def test_second_server_in_same_session_and_clean_stop(dovecot):
    if find_dovecot() is None:
        pytest.skip("dovecot not installed")
    with DovecotServer(user="second", password="pw2") as other:
        assert other.port != dovecot.port
        conf_dir = str(other.tmpdir)
        assert _dovecot_procs(conf_dir)
        other.append(make_message(subject="on second"))
        assert other.uids() == [1]
        master_pid = other.proc.pid
        assert len(_live_group_members(master_pid)) >= 3  # master + log, config, auth...
    assert not _dovecot_procs(conf_dir)
    assert _live_group_members(master_pid) == []  # no child left running
    with socket.socket() as s:
        s.settimeout(1)
        assert s.connect_ex((other.host, other.port)) != 0
    # the session server is unaffected
    with dovecot.session() as c:
        assert c.noop()[0] == "OK"


# ------------------------------------------------------------------ SMTP


def test_smtp_records_a_message(smtp_server):
    msg = make_message(subject="hello smtp", sender="bot@orienta.test", to="student@uni.test")
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        refused = client.sendmail("bot@orienta.test", ["student@uni.test", "cc@uni.test"], msg)
        assert refused == {}
    [rec] = smtp_server.wait_for(1)
    assert rec.mail_from == "bot@orienta.test"
    assert rec.rcpt_tos == ["student@uni.test", "cc@uni.test"]
    assert rec.subject == "hello smtp"
    assert rec.data.replace(b"\r\n", b"\n").rstrip() == msg.replace(b"\r\n", b"\n").rstrip()


def test_smtp_fail_next_then_succeed(smtp_server):
    smtp_server.fail_next(2, code=451)
    msg = make_message(subject="retry me")
    for _ in range(2):
        with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
            with pytest.raises(smtplib.SMTPDataError) as exc:
                client.sendmail("a@x.test", ["b@x.test"], msg)
            assert exc.value.smtp_code == 451
    assert smtp_server.messages == []
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        client.sendmail("a@x.test", ["b@x.test"], msg)
    assert len(smtp_server.wait_for(1)) == 1


def test_smtp_fail_at_rcpt_and_mail_stage(smtp_server):
    smtp_server.fail_next(1, code=550, stage="RCPT")
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        with pytest.raises(smtplib.SMTPRecipientsRefused) as exc:
            client.sendmail("a@x.test", ["b@x.test"], make_message())
        assert exc.value.recipients["b@x.test"][0] == 550
    smtp_server.fail_next(1, code=421, stage="MAIL")
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPServerDisconnected)):
            client.sendmail("a@x.test", ["b@x.test"], make_message())
    assert smtp_server.messages == []


@pytest.mark.parametrize("after_accept", [True, False])
def test_smtp_drop_connection_at_data(smtp_server, after_accept):
    smtp_server.drop_next(1, after_accept=after_accept)
    client = smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10)
    with pytest.raises(smtplib.SMTPServerDisconnected):
        client.sendmail("a@x.test", ["b@x.test"], make_message(subject="lost reply"))
    client.close()
    assert len(smtp_server.messages) == (1 if after_accept else 0)
    # the server keeps working afterwards
    with smtplib.SMTP(smtp_server.host, smtp_server.port, timeout=10) as client:
        client.sendmail("a@x.test", ["b@x.test"], make_message(subject="next"))
    assert smtp_server.wait_for(2 if after_accept else 1)[-1].subject == "next"


def test_smtp_auth_and_two_servers_do_not_collide():
    with SmtpServer(credentials=("bot", "s3cret"), auth_required=True) as a, SmtpServer() as b:
        assert a.port != b.port
        with smtplib.SMTP(a.host, a.port, timeout=10) as client:
            client.ehlo()
            with pytest.raises(smtplib.SMTPAuthenticationError):
                client.login("bot", "wrong")
        with smtplib.SMTP(a.host, a.port, timeout=10) as client:
            client.login("bot", "s3cret")
            client.sendmail("bot@x.test", ["s@x.test"], make_message())
        assert a.wait_for(1)[0].auth_login == "bot"
        assert b.messages == []
