"""Fixtures for the e-mail channel tests: IMAP settings bound to a fresh Dovecot account, a database, a cutting proxy."""

from __future__ import annotations

import os
import socket
import ssl
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import SecretStr

from pipeline.settings import IMAPSettings
from tests.servers.dovecot import DovecotServer, find_dovecot
from tests.servers.oauth_server import FakeOAuthServer
from review.db import init_db, make_engine


@pytest.fixture
def engine(tmp_path):
    eng = make_engine(f"sqlite:///{tmp_path / 'orienta.db'}")
    init_db(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def imap_settings(imap_account) -> IMAPSettings:
    return IMAPSettings(
        host=imap_account.host, port=imap_account.port, user=imap_account.user,
        password=SecretStr(imap_account.password), security="none",
        timeout_s=10, reconnect_min_s=0.05, reconnect_max_s=0.2, poll_seconds=0.2,
    )


class CuttingProxy:
    """A loopback TCP proxy that drops the first connection after `cut_after` bytes from the server."""

    def __init__(self, target: tuple[str, int], cut_after: int) -> None:
        self.target, self.cut_after = target, cut_after
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.cuts = 0
        self._stop = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._stop:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            server = socket.create_connection(self.target)
            limit = self.cut_after if self.connections == 1 else None
            threading.Thread(target=self._pipe, args=(client, server, None), daemon=True).start()
            threading.Thread(target=self._pipe, args=(server, client, limit), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, limit: int | None) -> None:
        sent = 0
        try:
            while True:
                data = src.recv(4096)
                if not data:
                    break
                if limit is not None and sent + len(data) >= limit:
                    dst.sendall(data[: max(0, limit - sent)])
                    self.cuts += 1
                    break
                dst.sendall(data)
                sent += len(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self) -> None:
        self._stop = True
        self.listener.close()


@pytest.fixture
def cutting_proxy(imap_account):
    proxies: list[CuttingProxy] = []

    def make(cut_after: int) -> CuttingProxy:
        proxy = CuttingProxy((imap_account.host, imap_account.port), cut_after)
        proxies.append(proxy)
        return proxy

    yield make
    for p in proxies:
        p.close()


# ---------------------------------------------------------------- TLS and OAuth
@dataclass
class TestPKI:
    """A test CA, a server certificate for "localhost" (no IP address: 127.0.0.1 is a wrong host name), and a stranger CA."""

    ca_file: Path
    other_ca_file: Path
    cert_file: Path
    key_file: Path
    server_context: ssl.SSLContext


@pytest.fixture(scope="session")
def pki(tmp_path_factory) -> TestPKI:
    trustme = pytest.importorskip("trustme", reason="trustme (test extra) makes the test certificates")
    d = tmp_path_factory.mktemp("pki")
    os.chmod(d, 0o755)  # dovecot (root) reads the key at start
    ca, other = trustme.CA(), trustme.CA()
    cert = ca.issue_cert("localhost")
    paths = TestPKI(d / "ca.pem", d / "other-ca.pem", d / "server.pem", d / "server.key", ssl.create_default_context(ssl.Purpose.CLIENT_AUTH))
    ca.cert_pem.write_to_path(str(paths.ca_file))
    other.cert_pem.write_to_path(str(paths.other_ca_file))
    with open(paths.cert_file, "wb") as f:
        for pem in cert.cert_chain_pems:
            f.write(pem.bytes())
    cert.private_key_pem.write_to_path(str(paths.key_file))
    cert.configure_cert(paths.server_context)
    return paths


@pytest.fixture(scope="session")
def oauth_server(pki):
    with FakeOAuthServer(pki.server_context) as server:
        yield server


@pytest.fixture(scope="session")
def secure_dovecot(pki, oauth_server):
    """A Dovecot with STARTTLS on .port, implicit TLS on .ssl_port and an oauth2 passdb asking oauth_server."""
    if find_dovecot() is None:
        pytest.skip("dovecot binary not installed (run .ci/services.sh or apt-get install dovecot-imapd)")
    server = DovecotServer(tls=(pki.cert_file, pki.key_file), oauth2_introspection_url=oauth_server.introspection_url)
    if server._major_minor() >= (2, 4):
        pytest.skip(f"the TLS/oauth2 Dovecot configuration is written for 2.3; found {server.version}")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def secure_account(secure_dovecot):
    account = secure_dovecot.add_user()
    try:
        yield account
    finally:
        secure_dovecot.remove_user(account.user)
