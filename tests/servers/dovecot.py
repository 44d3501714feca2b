"""A real Dovecot IMAP server on loopback, for tests.

``DovecotServer`` writes a self-contained configuration into a fresh temp dir
and runs ``dovecot -F -c <tmp>/dovecot.conf`` (foreground, own ``base_dir`` /
``state_dir`` / ``instance_name``), so several servers can run side by side and
the system-wide Dovecot (port 143) is never involved.

* IMAP only, plaintext, no TLS (``ssl = no``), on ``127.0.0.1:<free port>``;
  with ``tls=(cert, key)`` STARTTLS on that port and implicit TLS on ``ssl_port``,
  with ``oauth2_introspection_url=...`` also XOAUTH2/OAUTHBEARER checked by an
  ``oauth2`` passdb against that RFC 7662 endpoint (both Dovecot 2.3 only).
* ``passwd-file`` passdb + userdb (``{PLAIN}`` passwords), one file per user
  in ``<tmp>/users/``; more users can be added at run time with
  :meth:`DovecotServer.add_user` - the ``imap_account`` fixture uses that to
  give every test its own, empty account.
* No leftovers: ``stop()`` TERMs the master and KILLs its process group; live
  servers are also stopped at interpreter exit, and (Linux) the master gets
  SIGTERM if the process that started it dies.
* Maildir++ storage: ``<tmp>/mail/<user>/Maildir`` (INBOX is the Maildir root,
  a folder ``Sent`` is ``<root>/.Sent``).
* Log: ``<tmp>/dovecot.log`` (its tail is put into start-up errors).

Root vs. non-root: as root, the mail files belong to a system user
``orienta-mail`` (created with ``useradd --system`` when missing; ``nobody`` as a
fall-back), login processes run as ``dovenull`` and internal ones as
``dovecot`` (both created by the Debian package).  As a non-root user
everything runs as that user (chroots disabled).

UIDVALIDITY change (:meth:`DovecotServer.change_uidvalidity`): the mailbox's
``dovecot-uidlist`` and ``dovecot.index*`` files are removed while no session
has it selected; the messages stay.  On the next access Dovecot rebuilds the
mailbox with a *new* UIDVALIDITY (taken from the monotonic
``dovecot-uidvalidity`` counter, so it always differs) and renumbers the
messages from UID 1 - what a client sees after a server-side mailbox rebuild.
With ``reappend=True`` the messages are removed too and appended again over
IMAP (same content, new UIDs, new UIDVALIDITY).

Dovecot 2.3 (Debian 12) is what this is tested with; a 2.4 configuration
(Debian 13) is generated when a 2.4 binary is found, on a best-effort basis.
"""
from __future__ import annotations

import atexit
import contextlib
import email.utils
import imaplib
import itertools
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DovecotServer",
    "DovecotError",
    "ImapAccount",
    "find_dovecot",
    "dovecot_version",
    "free_port",
    "make_message",
]

MAIL_SYSTEM_USER = "orienta-mail"
DEFAULT_USER = "test"
DEFAULT_PASSWORD = "test-password"

_counter = itertools.count(1)
_user_counter = itertools.count(1)
_user_lock = threading.Lock()
_live: "set[DovecotServer]" = set()


@atexit.register
def _stop_all() -> None:
    for srv in list(_live):
        with contextlib.suppress(Exception):
            srv.stop()


def _die_with_parent() -> None:  # runs in the child between fork and exec
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class DovecotError(RuntimeError):
    pass


def find_dovecot() -> str | None:
    """Path of the ``dovecot`` binary, or None (also looks in /usr/sbin)."""
    path = shutil.which("dovecot")
    if path:
        return path
    for cand in ("/usr/sbin/dovecot", "/usr/local/sbin/dovecot"):
        if os.access(cand, os.X_OK):
            return cand
    return None


def dovecot_version(binary: str | None = None) -> str:
    binary = binary or find_dovecot()
    if not binary:
        raise DovecotError("dovecot binary not found")
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10)
    return out.stdout.strip()


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago (callers retry on collisions)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _ids_for(name: str) -> tuple[int, int] | None:
    import pwd

    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        return None
    return pw.pw_uid, pw.pw_gid


def _mail_owner() -> tuple[str, int, int]:
    """(name, uid, gid) that owns the mail files and runs the imap processes."""
    import pwd

    if os.geteuid() != 0:
        pw = pwd.getpwuid(os.geteuid())
        return pw.pw_name, pw.pw_uid, os.getegid()
    ids = _ids_for(MAIL_SYSTEM_USER)
    if ids is None and shutil.which("useradd"):
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
             "--shell", "/usr/sbin/nologin", "--user-group", MAIL_SYSTEM_USER],
            capture_output=True, timeout=30,
        )
        ids = _ids_for(MAIL_SYSTEM_USER)
    if ids is not None:
        return MAIL_SYSTEM_USER, ids[0], ids[1]
    ids = _ids_for("nobody")
    if ids is None:
        raise DovecotError(f"no user {MAIL_SYSTEM_USER!r} (useradd failed) and no 'nobody'")
    return "nobody", ids[0], ids[1]


def _live_group_members(pgid: int) -> list[int]:
    """PIDs in process group ``pgid`` that are not zombies (Linux /proc)."""
    if not os.path.isdir("/proc/self"):
        try:
            os.killpg(pgid, 0)
            return [pgid]
        except (ProcessLookupError, PermissionError):
            return []
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid pgrp ..." - comm may contain spaces/parens
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            out.append(int(entry))
    return out


def _imap_quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _as_bytes(message: bytes | str) -> bytes:
    if isinstance(message, str):
        message = message.encode("utf-8")
    # IMAP wants CRLF line endings in literals.
    return re.sub(rb"\r?\n", b"\r\n", message)


def make_message(subject: str = "test", body: str = "hello",
                 sender: str = "alice@example.org", to: str = "bob@example.org",
                 message_id: str | None = None, extra_headers: dict | None = None) -> bytes:
    """A small RFC 5322 message as CRLF bytes."""
    headers = {
        "From": sender,
        "To": to,
        "Subject": subject,
        "Date": email.utils.formatdate(localtime=False),
        "Message-ID": message_id or email.utils.make_msgid(domain="orienta.test"),
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=utf-8",
    }
    headers.update(extra_headers or {})
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return (head + "\r\n" + body.replace("\n", "\r\n") + "\r\n").encode("utf-8")


@dataclass
class ImapAccount:
    """One IMAP login on a :class:`DovecotServer` plus helpers bound to it."""

    server: "DovecotServer"
    user: str
    password: str

    @property
    def host(self) -> str:
        return self.server.host

    @property
    def port(self) -> int:
        return self.server.port

    @property
    def maildir(self) -> Path:
        return self.server.maildir_for(self.user)

    def connect(self) -> imaplib.IMAP4:
        return self.server.connect(self.user, self.password)

    def append(self, message: bytes | str, mailbox: str = "INBOX",
               flags: str | None = None, date_time=None) -> int | None:
        return self.server.append(message, mailbox=mailbox, flags=flags,
                                  date_time=date_time, user=self.user, password=self.password)

    def create_mailbox(self, mailbox: str) -> None:
        self.server.create_mailbox(mailbox, user=self.user, password=self.password)

    def delete_mailbox(self, mailbox: str) -> None:
        self.server.delete_mailbox(mailbox, user=self.user, password=self.password)

    def uidvalidity(self, mailbox: str = "INBOX") -> int:
        return self.server.uidvalidity(mailbox, user=self.user, password=self.password)

    def uids(self, mailbox: str = "INBOX") -> list[int]:
        return self.server.uids(mailbox, user=self.user, password=self.password)

    def clear(self, mailbox: str = "INBOX") -> None:
        self.server.clear_mailbox(mailbox, user=self.user, password=self.password)

    def change_uidvalidity(self, mailbox: str = "INBOX", reappend: bool = False) -> tuple[int, int]:
        return self.server.change_uidvalidity(mailbox, user=self.user,
                                              password=self.password, reappend=reappend)


class DovecotServer:
    """A private Dovecot instance. Use as a context manager or call start()/stop().

    Attributes after start(): ``host``, ``port``, ``user``, ``password``,
    ``maildir`` (Path of the default user's Maildir root = INBOX), ``tmpdir``,
    ``log_path``, ``version``.
    """

    def __init__(self, user: str = DEFAULT_USER, password: str = DEFAULT_PASSWORD,
                 host: str = "127.0.0.1", port: int | None = None,
                 binary: str | None = None, start_timeout: float = 20.0,
                 tls: tuple[str | os.PathLike, str | os.PathLike] | None = None,
                 oauth2_introspection_url: str | None = None):
        self.binary = binary or find_dovecot()
        if not self.binary:
            raise DovecotError("dovecot binary not found (install dovecot-imapd; see .ci/services.sh)")
        self.host = host
        self.requested_port = port
        self.port: int = 0
        self.user = user
        self.password = password
        self.start_timeout = start_timeout
        self.tls = tls  # (certificate chain PEM, private key PEM): STARTTLS on `port`, implicit TLS on `ssl_port`
        self.ssl_port: int = 0
        self.oauth2_introspection_url = oauth2_introspection_url
        self.version = dovecot_version(self.binary)
        self.tmpdir: Path | None = None
        self.proc: subprocess.Popen | None = None
        self._users: dict[str, str] = {}
        self._n = next(_counter)
        self._lock = threading.Lock()

    # ------------------------------------------------------------ lifecycle
    def __enter__(self) -> "DovecotServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def log_path(self) -> Path:
        assert self.tmpdir is not None
        return self.tmpdir / "dovecot.log"

    @property
    def conf_path(self) -> Path:
        assert self.tmpdir is not None
        return self.tmpdir / "dovecot.conf"

    @property
    def maildir(self) -> Path:
        return self.maildir_for(self.user)

    def maildir_for(self, user: str) -> Path:
        assert self.tmpdir is not None
        return self.tmpdir / "mail" / user / "Maildir"

    def home_for(self, user: str) -> Path:
        assert self.tmpdir is not None
        return self.tmpdir / "mail" / user

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except (OSError, AssertionError):
            return ""

    def start(self) -> "DovecotServer":
        if self.running:
            return self
        self.owner, self.uid, self.gid = _mail_owner()
        self.tmpdir = Path(tempfile.mkdtemp(prefix=f"orienta-dovecot{self._n}-"))
        os.chmod(self.tmpdir, 0o755)
        (self.tmpdir / "mail").mkdir(mode=0o755)
        self._users = {}
        self.add_user(self.user, self.password)
        attempts = 1 if self.requested_port else 5
        last_err = None
        for _ in range(attempts):
            self.port = self.requested_port or free_port(self.host)
            self.ssl_port = free_port(self.host) if self.tls else 0
            try:
                self._launch()
                return self
            except DovecotError as e:
                last_err = e
                self._kill()
                if "in use" not in str(e).lower():
                    break
        self._cleanup_tmp()
        raise last_err  # type: ignore[misc]

    def _launch(self) -> None:
        assert self.tmpdir is not None
        self.conf_path.write_text(self._config())
        with contextlib.suppress(FileNotFoundError):
            self.log_path.unlink()
        stderr_path = self.tmpdir / "stderr.log"
        with open(stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                [self.binary, "-F", "-c", str(self.conf_path)],
                stdin=subprocess.DEVNULL, stdout=err, stderr=err,
                start_new_session=True, close_fds=True,
                # PDEATHSIG follows the *thread* that forked: only from main.
                preexec_fn=(_die_with_parent
                            if threading.current_thread() is threading.main_thread() else None),
            )
        _live.add(self)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise DovecotError(
                    f"dovecot exited with {self.proc.returncode} on start:\n"
                    f"{stderr_path.read_text(errors='replace')}\n{self.log_tail()}")
            if "in use" in self.log_tail().lower():
                raise DovecotError(f"port {self.port} in use:\n{self.log_tail()}")
            try:
                with socket.create_connection((self.host, self.port), timeout=1) as s:
                    s.settimeout(2)
                    if s.recv(200).startswith(b"* OK"):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        raise DovecotError(f"dovecot did not accept IMAP connections on {self.host}:{self.port} "
                           f"within {self.start_timeout}s:\n{self.log_tail()}")

    def _kill(self) -> None:
        proc, self.proc = self.proc, None
        _live.discard(self)
        if proc is None:
            return
        pgid = proc.pid  # start_new_session: the master leads its own group
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pgid, signal.SIGKILL)
                proc.wait(timeout=10)
        # Children the master left behind (it normally stops them all; an
        # exited child may linger as a zombie until init reaps it - ignored).
        for _ in range(100):
            if not _live_group_members(pgid):
                break
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
            time.sleep(0.05)

    def _cleanup_tmp(self) -> None:
        if self.tmpdir is not None and not os.environ.get("ORIENTA_KEEP_DOVECOT"):
            shutil.rmtree(self.tmpdir, ignore_errors=True)

    def stop(self) -> None:
        """Stop the server (master and all children) and remove its temp dir.

        Set ORIENTA_KEEP_DOVECOT=1 to keep the temp dir (config, log, mail)."""
        self._kill()
        self._cleanup_tmp()

    # ------------------------------------------------------------ config
    def _major_minor(self) -> tuple[int, int]:
        m = re.match(r"(\d+)\.(\d+)", self.version)
        return (int(m.group(1)), int(m.group(2))) if m else (2, 3)

    def _service_users(self) -> tuple[str, str]:
        if os.geteuid() != 0:
            return self.owner, self.owner
        login = "dovenull" if _ids_for("dovenull") else self.owner
        internal = "dovecot" if _ids_for("dovecot") else self.owner
        return login, internal

    def _config(self) -> str:
        t = self.tmpdir
        login_user, internal_user = self._service_users()
        root = os.geteuid() == 0
        nochroot = "" if root else "  chroot =\n"
        first_uid = max(1, min(self.uid, 100))
        common_tail = f"""
service imap-login {{
{nochroot}  inet_listener imap {{
    address = {self.host}
    port = {self.port}
  }}
  inet_listener imaps {{
    address = {self.host}
    port = {self.ssl_port}
  }}
}}
service anvil {{
{nochroot}  # no auth-penalty socket: no growing login delay after a failed login
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
"""
        if self._major_minor() >= (2, 4):
            if self.tls or self.oauth2_introspection_url:
                raise DovecotError("the TLS and oauth2 test configuration is written for Dovecot 2.3 only")
            return f"""# generated by tests/servers/dovecot.py (Dovecot 2.4 syntax, best effort)
dovecot_config_version = {self.version.split()[0]}
dovecot_storage_version = {self.version.split()[0]}
instance_name = orienta-test-{os.getpid()}-{self._n}
base_dir = {t}/run
state_dir = {t}/state
protocols = imap
listen = {self.host}
log_path = {t}/dovecot.log
ssl = no
auth_allow_cleartext = yes
auth_mechanisms = plain login
auth_failure_delay = 0
login_trusted_networks = 127.0.0.0/8
default_login_user = {login_user}
default_internal_user = {internal_user}
first_valid_uid = {first_uid}
first_valid_gid = 1
mail_driver = maildir
mail_home = {t}/mail/%{{user}}
mail_path = ~/Maildir
mail_fsync = never
mailbox_idle_check_interval = 1s
passdb passwd-file {{
  passwd_file_path = {t}/users/%{{user}}
}}
userdb passwd-file {{
  passwd_file_path = {t}/users/%{{user}}
}}
""" + common_tail
        return f"""# generated by tests/servers/dovecot.py (Dovecot 2.3 syntax)
instance_name = orienta-test-{os.getpid()}-{self._n}
base_dir = {t}/run
state_dir = {t}/state
protocols = imap
listen = {self.host}
log_path = {t}/dovecot.log
info_log_path = {t}/dovecot.log
debug_log_path = {t}/dovecot.log
{self._ssl_config()}
disable_plaintext_auth = no
auth_mechanisms = plain login{" xoauth2 oauthbearer" if self.oauth2_introspection_url else ""}
auth_verbose = yes
# no 2 s delay after a failed login, no per-IP penalty for later ones
auth_failure_delay = 0
login_trusted_networks = 127.0.0.0/8
default_login_user = {login_user}
default_internal_user = {internal_user}
first_valid_uid = {first_uid}
first_valid_gid = 1
mail_location = maildir:~/Maildir
mail_fsync = never
mailbox_idle_check_interval = 1 secs
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {t}/users/%u
  mechanisms = plain login
}}
{self._oauth2_passdb()}
userdb {{
  driver = passwd-file
  args = username_format=%u {t}/users/%u
}}
""" + common_tail

    def _ssl_config(self) -> str:
        if not self.tls:
            return "ssl = no"
        cert, key = self.tls
        # https://doc.dovecot.org/2.3/configuration_manual/dovecot_ssl_configuration/
        return f"ssl = yes\nssl_cert = <{cert}\nssl_key = <{key}\nssl_min_protocol = TLSv1.2"

    def _oauth2_passdb(self) -> str:
        """An oauth2 passdb asking a token-introspection endpoint (RFC 7662, POST token=...) about each XOAUTH2 token.

        https://doc.dovecot.org/2.3/configuration_manual/authentication/oauth2/"""
        if not self.oauth2_introspection_url:
            return ""
        assert self.tmpdir is not None
        ext = self.tmpdir / "dovecot-oauth2.conf.ext"
        ext.write_text(
            f"introspection_mode = post\nintrospection_url = {self.oauth2_introspection_url}\n"
            "force_introspection = yes\nusername_attribute = username\n"
            "active_attribute = active\nactive_value = true\n"
        )
        return f"passdb {{\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n  args = {ext}\n}}\n"

    # ------------------------------------------------------------ users
    def _write_passwd(self, user: str | None = None) -> None:
        """One passwd-file per user (``<tmp>/users/<user>``).

        Dovecot re-reads a passwd-file at most once a second, so a single
        shared file would not see a user added just before logging in; a file
        path with %u is opened fresh for each new user."""
        assert self.tmpdir is not None
        users_dir = self.tmpdir / "users"
        users_dir.mkdir(mode=0o755, exist_ok=True)
        names = [user] if user is not None else list(self._users)
        for u in names:
            path = users_dir / u
            if u not in self._users:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                continue
            line = f"{u}:{{PLAIN}}{self._users[u]}:{self.uid}:{self.gid}::{self.home_for(u)}::\n"
            tmp = users_dir / f".{u}.new"
            tmp.write_text(line)
            os.chmod(tmp, 0o644)
            os.replace(tmp, path)

    def add_user(self, user: str | None = None, password: str | None = None) -> ImapAccount:
        """Add (or reset the password of) an IMAP user; its Maildir is created empty."""
        if user is None:
            with _user_lock:
                user = f"user{next(_user_counter)}"
        password = password or f"pw-{user}"
        if not re.fullmatch(r"[A-Za-z0-9._@+-]+", user) or user.startswith("."):
            raise ValueError(f"unsupported IMAP user name {user!r}")
        if any(c in password for c in ":\n\r"):
            raise ValueError("':' and newlines are not allowed in passwords")
        home = self.home_for(user)
        for d in (home, home / "Maildir", home / "Maildir" / "cur",
                  home / "Maildir" / "new", home / "Maildir" / "tmp"):
            d.mkdir(mode=0o700, exist_ok=True)
            if os.geteuid() == 0:
                os.chown(d, self.uid, self.gid)
        with self._lock:
            self._users[user] = password
            self._write_passwd(user)
        return ImapAccount(self, user, password)

    def remove_user(self, user: str) -> None:
        with self._lock:
            self._users.pop(user, None)
            self._write_passwd(user)
        shutil.rmtree(self.home_for(user), ignore_errors=True)

    def account(self, user: str | None = None) -> ImapAccount:
        user = user or self.user
        return ImapAccount(self, user, self._users[user])

    # ------------------------------------------------------------ IMAP helpers
    def connect(self, user: str | None = None, password: str | None = None) -> imaplib.IMAP4:
        """A logged-in stdlib ``imaplib.IMAP4`` connection (caller logs out)."""
        user = user or self.user
        password = password if password is not None else self._users.get(user, self.password)
        conn = imaplib.IMAP4(self.host, self.port, timeout=30)
        conn.login(user, password)
        return conn

    @contextlib.contextmanager
    def session(self, user: str | None = None, password: str | None = None):
        conn = self.connect(user, password)
        try:
            yield conn
        finally:
            with contextlib.suppress(Exception):
                conn.logout()

    def append(self, message: bytes | str, mailbox: str = "INBOX", flags: str | None = None,
               date_time=None, user: str | None = None, password: str | None = None) -> int | None:
        """APPEND a raw message; returns its UID (from APPENDUID) when reported."""
        with self.session(user, password) as c:
            typ, data = c.append(_imap_quote(mailbox), flags, date_time, _as_bytes(message))
            if typ != "OK":
                raise DovecotError(f"APPEND to {mailbox} failed: {data!r}")
            m = re.search(rb"APPENDUID \d+ (\d+)", data[0] or b"")
            return int(m.group(1)) if m else None

    def create_mailbox(self, mailbox: str, user: str | None = None,
                       password: str | None = None) -> None:
        """CREATE a mailbox (e.g. "Sent"); no error if it already exists."""
        with self.session(user, password) as c:
            typ, data = c.create(_imap_quote(mailbox))
            if typ != "OK" and b"ALREADYEXISTS" not in b" ".join(d or b"" for d in data):
                raise DovecotError(f"CREATE {mailbox} failed: {data!r}")
            c.subscribe(_imap_quote(mailbox))

    def delete_mailbox(self, mailbox: str, user: str | None = None,
                       password: str | None = None) -> None:
        with self.session(user, password) as c:
            typ, data = c.delete(_imap_quote(mailbox))
            if typ != "OK":
                raise DovecotError(f"DELETE {mailbox} failed: {data!r}")

    def uidvalidity(self, mailbox: str = "INBOX", user: str | None = None,
                    password: str | None = None) -> int:
        with self.session(user, password) as c:
            typ, data = c.status(_imap_quote(mailbox), "(UIDVALIDITY)")
            if typ != "OK":
                raise DovecotError(f"STATUS {mailbox} failed: {data!r}")
            return int(re.search(rb"UIDVALIDITY (\d+)", data[0]).group(1))

    def uids(self, mailbox: str = "INBOX", user: str | None = None,
             password: str | None = None) -> list[int]:
        with self.session(user, password) as c:
            typ, data = c.select(_imap_quote(mailbox), readonly=True)
            if typ != "OK":
                raise DovecotError(f"SELECT {mailbox} failed: {data!r}")
            typ, data = c.uid("SEARCH", None, "ALL")
            return [int(x) for x in (data[0] or b"").split()]

    def fetch_all(self, mailbox: str = "INBOX", user: str | None = None,
                  password: str | None = None) -> list[tuple[int, bytes, str]]:
        """[(uid, raw bytes, flags string)] of all messages, by UID."""
        out = []
        with self.session(user, password) as c:
            typ, data = c.select(_imap_quote(mailbox), readonly=True)
            if typ != "OK":
                raise DovecotError(f"SELECT {mailbox} failed: {data!r}")
            if int(data[0] or 0) == 0:
                return []
            typ, data = c.uid("FETCH", "1:*", "(UID FLAGS BODY.PEEK[])")
            for item in data:
                if not isinstance(item, tuple):
                    continue
                head = item[0].decode()
                uid = int(re.search(r"UID (\d+)", head).group(1))
                flags = re.search(r"FLAGS \(([^)]*)\)", head)
                out.append((uid, item[1], flags.group(1) if flags else ""))
        return sorted(out)

    def clear_mailbox(self, mailbox: str = "INBOX", user: str | None = None,
                      password: str | None = None) -> None:
        """Expunge every message of a mailbox."""
        with self.session(user, password) as c:
            typ, _ = c.select(_imap_quote(mailbox))
            if typ != "OK":
                return
            c.uid("STORE", "1:*", "+FLAGS.SILENT", r"(\Deleted)")
            c.expunge()
            c.close()

    def mailbox_dir(self, mailbox: str = "INBOX", user: str | None = None) -> Path:
        """Filesystem directory of a mailbox (Maildir++ layout)."""
        root = self.maildir_for(user or self.user)
        if mailbox.upper() == "INBOX":
            return root
        return root / ("." + mailbox.replace("/", "."))

    def change_uidvalidity(self, mailbox: str = "INBOX", user: str | None = None,
                           password: str | None = None, reappend: bool = False) -> tuple[int, int]:
        """Make the server report a new UIDVALIDITY for ``mailbox``.

        Returns (old, new). Close connections that have the mailbox selected
        first (a session that stays open keeps its in-memory view).
        Default: drop ``dovecot-uidlist`` + ``dovecot.index*`` so Dovecot
        rebuilds the mailbox (messages kept, UIDs renumbered from 1).
        ``reappend=True``: additionally delete the message files and APPEND
        the same messages (with their flags) again over IMAP.
        """
        user = user or self.user
        old = self.uidvalidity(mailbox, user, password)
        saved = self.fetch_all(mailbox, user, password) if reappend else []
        d = self.mailbox_dir(mailbox, user)
        if not d.is_dir():
            raise DovecotError(f"mailbox directory {d} not found")
        for f in d.iterdir():
            if f.is_file() and (f.name == "dovecot-uidlist" or f.name.startswith("dovecot.index")
                                or f.name.startswith("dovecot-uidlist.")):
                f.unlink()
        if reappend:
            for sub in ("cur", "new"):
                for f in (d / sub).iterdir():
                    f.unlink()
        new = self.uidvalidity(mailbox, user, password)
        for _uid, raw, flags in saved:
            keep = " ".join(f for f in flags.split() if f.lower() != "\\recent")
            self.append(raw, mailbox, f"({keep})" if keep else None, user=user, password=password)
        if new == old:
            raise DovecotError(f"UIDVALIDITY of {mailbox} did not change ({old})")
        return old, new
