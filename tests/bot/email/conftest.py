"""Fixtures for the e-mail channel tests: IMAP settings bound to a fresh Dovecot account, a database, a cutting proxy."""

from __future__ import annotations

import socket
import threading

import pytest
from pydantic import SecretStr

from pipeline.settings import IMAPSettings
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
