"""pytest fixtures for real mail servers (load via ``pytest_plugins``).

* ``dovecot``      (session) - a running :class:`DovecotServer`; skipped with
  a reason when the ``dovecot`` binary is missing (``.ci/services.sh``
  installs it).  Its default account is ``dovecot.user`` /
  ``dovecot.password``; don't put test data there - use ``imap_account``.
* ``imap_account`` (function) - an :class:`ImapAccount`: a brand-new user on
  the session server with an empty INBOX and no other mailboxes (removed after
  the test).  ``.host .port .user .password .maildir .connect() .append()
  .create_mailbox() .uidvalidity() .uids() .change_uidvalidity() .clear()``.
* ``smtp_server``  (function) - a started :class:`SmtpServer` (aiosmtpd),
  ``.host .port .messages .wait_for() .fail_next() .drop_next()``.
* ``make_message`` - the :func:`make_message` helper (builds RFC 5322 bytes).
"""
from __future__ import annotations

import os

import pytest

from tests.servers.dovecot import DovecotServer, ImapAccount, find_dovecot, make_message as _mk
from tests.servers.smtp import SmtpServer


@pytest.fixture(scope="session")
def dovecot():
    if find_dovecot() is None:
        reason = "dovecot binary not installed (run .ci/services.sh or apt-get install dovecot-imapd)"
        if os.environ.get("CI"):  # in CI the real server is required, not optional
            pytest.fail(reason)
        pytest.skip(reason)
    server = DovecotServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def imap_account(dovecot: DovecotServer) -> ImapAccount:
    account = dovecot.add_user()
    try:
        yield account
    finally:
        dovecot.remove_user(account.user)


@pytest.fixture
def smtp_server():
    server = SmtpServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def make_message():
    return _mk
