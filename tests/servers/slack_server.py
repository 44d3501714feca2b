"""A local stand-in for the Slack Web API, for driving the real slack_sdk / Bolt.

``FakeSlackServer`` is a threaded HTTP server on 127.0.0.1.  Methods live at
``POST /api/<method>`` and accept what the real API accepts: query string,
``application/x-www-form-urlencoded`` or ``application/json`` bodies, with the
token as ``Authorization: Bearer xoxb-...`` (or a ``token`` form/query
parameter).  Answers are Slack-shaped JSON: ``{"ok": true, ...}`` or
``{"ok": false, "error": "..."}`` with HTTP 200, except rate limiting (HTTP 429,
``Retry-After`` header, ``{"ok": false, "error": "ratelimited"}``) and unknown
methods (HTTP 404, ``unknown_method``).

Use it with::

    client = slack_sdk.WebClient(token="xoxb-test", base_url=server.api_url)
    # server.api_url == server.url + "/api/"

Implemented methods: auth.test, chat.postMessage, chat.update, chat.delete,
chat.postEphemeral, chat.getPermalink, views.open, views.update, views.push,
views.publish, conversations.members, conversations.info, conversations.open,
conversations.history, conversations.replies, users.info, reactions.add,
files.getUploadURLExternal (+ the returned upload URL, raw bytes POST),
files.completeUploadExternal.  Add or override any method with
``server.set_handler(method, fn)`` where ``fn(args, call) -> dict`` (raise
``SlackError("code")`` for ``ok: false``).

State: ``server.calls`` (every call: ``Call(method, args, time, status, ok,
error, token, headers, response)``), ``server.messages[channel]`` (posted
messages, oldest first), ``server.ephemeral``, ``server.views``,
``server.home_views``, ``server.files``, ``server.reactions``.
"""

from __future__ import annotations

import json
import math
import secrets
import string
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple
from urllib.parse import parse_qs, urlsplit

from tests.servers.http_plumbing import StandInServer

__all__ = ["FakeSlackServer", "Call", "SlackError"]

_ALNUM = string.ascii_uppercase + string.digits


def _rand(n: int) -> str:
    return "".join(secrets.choice(_ALNUM) for _ in range(n))


class SlackError(Exception):
    """Raise from a handler to answer ``{"ok": false, "error": code}``."""

    def __init__(self, error: str, status: int = 200, headers: Optional[Dict[str, str]] = None, **extra: Any):
        super().__init__(error)
        self.error = error
        self.status = status
        self.headers = dict(headers or {})
        self.extra = extra


@dataclass
class Call:
    method: str
    args: Dict[str, Any]
    time: float
    token: Optional[str] = None
    headers: Dict[str, str] = field(default_factory=dict)
    status: Optional[int] = None
    ok: Optional[bool] = None
    error: Optional[str] = None
    response: Any = None
    response_headers: Dict[str, str] = field(default_factory=dict)


class _Bucket:
    """Token bucket: ``rate`` tokens/second, capacity ``burst``."""

    def __init__(self, rate: float, burst: float, now: float):
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.last = now

    def take(self, now: float) -> Optional[float]:
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return None
        return (1.0 - self.tokens) / self.rate


_JSON_ARGS = ("blocks", "attachments", "view", "files", "metadata", "users")


class FakeSlackServer:
    """Local HTTP server speaking the Slack Web API.

    Constructor options (all keyword):
      tokens              accepted tokens (default {"xoxb-test"}); None = any token starting "xox"
      team_id, team, domain, bot_user_id, bot_id, app_id, bot_name   identity (auth.test etc.)
      strict              unknown channels/users/messages/trigger ids -> channel_not_found /
                          user_not_found / message_not_found / invalid_trigger_id.  Default
                          False: unknown channels and users are synthesised on first use.
      rate_limit          enable chat.postMessage limiting (default True)
      post_message_rate   messages/second allowed per channel (default 1.0)
      post_message_burst  burst capacity per channel (default 10)
      method_limits       {method: (per_minute, burst)} extra per-method limits (workspace-wide)
      retry_after         fixed Retry-After seconds for 429s (default: computed, >= 1)
      trigger_ttl         seconds a trigger id from new_trigger_id() stays valid (default 3.0; None = forever)
      ts_start            first message ts (default 1700000000.000100)
      clock               monotonic clock for rate limiting / trigger expiry (default time.monotonic)
      oauth_scopes        value of the x-oauth-scopes header on auth.test
      start               start serving immediately (default True)
    """

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        tokens: Optional[Iterable[str]] = ("xoxb-test",),
        team_id: str = "T0TEST001",
        team: str = "Orienta Test",
        domain: str = "orienta-test",
        bot_user_id: str = "U0BOT0001",
        bot_id: str = "B0BOT0001",
        app_id: str = "A0APP0001",
        bot_name: str = "orienta",
        strict: bool = False,
        rate_limit: bool = True,
        post_message_rate: float = 1.0,
        post_message_burst: float = 10,
        method_limits: Optional[Dict[str, Tuple[float, float]]] = None,
        retry_after: Optional[int] = None,
        trigger_ttl: Optional[float] = 3.0,
        ts_start: float = 1700000000.0001,
        clock: Callable[[], float] = time.monotonic,
        oauth_scopes: str = "chat:write,commands,users:read,channels:read,groups:read,im:write,files:write,reactions:write",
        start: bool = True,
    ) -> None:
        self.tokens = set(tokens) if tokens is not None else None
        self.team_id, self.team, self.domain = team_id, team, domain
        self.bot_user_id, self.bot_id, self.app_id, self.bot_name = bot_user_id, bot_id, app_id, bot_name
        self.strict = strict
        self.rate_limit = rate_limit
        self.post_message_rate = post_message_rate
        self.post_message_burst = post_message_burst
        self.method_limits: Dict[str, Tuple[float, float]] = dict(method_limits or {})
        self.retry_after = retry_after
        self.trigger_ttl = trigger_ttl
        self.clock = clock
        self.oauth_scopes = oauth_scopes

        self.calls: List[Call] = []
        self.messages: Dict[str, List[Dict[str, Any]]] = {}
        self.ephemeral: List[Dict[str, Any]] = []
        self.views: Dict[str, Dict[str, Any]] = {}
        self.home_views: Dict[str, Dict[str, Any]] = {}
        self.files: Dict[str, Dict[str, Any]] = {}
        self.reactions: List[Dict[str, Any]] = []
        self.channels: Dict[str, Dict[str, Any]] = {}
        self.users: Dict[str, Dict[str, Any]] = {}

        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._ts_micro = int(round(ts_start * 1_000_000))
        self._seq = 0
        self._buckets: Dict[Any, _Bucket] = {}
        self._forced: Dict[str, List[SlackError]] = {}
        self._handlers: Dict[str, Callable[[Dict[str, Any], Call], Dict[str, Any]]] = {}
        self._triggers: Dict[str, float] = {}
        self._used_triggers: set = set()
        self._uploads: Dict[str, str] = {}  # upload token -> file id

        self.add_user(bot_user_id, name=bot_name, real_name=bot_name, is_bot=True)

        self._httpd = StandInServer((host, port), self, name="fake-slack", methods=("GET", "POST"))
        self._thread: Optional[threading.Thread] = None
        if start:
            self.start()

    # -- lifecycle --------------------------------------------------------
    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """``base_url`` for ``slack_sdk.WebClient`` (ends with ``/api/``)."""
        return self.url + "/api/"

    def start(self) -> "FakeSlackServer":
        if self._thread is None:
            self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), name="fake-slack", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(5)
            self._thread = None
        self._httpd.server_close()

    close = stop

    def __enter__(self) -> "FakeSlackServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- fixtures / configuration ----------------------------------------
    def add_channel(
        self,
        channel_id: str,
        name: Optional[str] = None,
        *,
        members: Optional[Iterable[str]] = None,
        is_private: bool = False,
        is_archived: bool = False,
        is_im: bool = False,
        user: Optional[str] = None,
        **extra: Any,
    ) -> Dict[str, Any]:
        """Register a channel.  ``members=None`` means membership is not
        checked (conversations.members then returns the bot only)."""
        with self._lock:
            ch = {
                "id": channel_id,
                "name": name or channel_id.lower(),
                "is_channel": not is_private and not is_im,
                "is_group": is_private and not is_im,
                "is_im": is_im,
                "is_mpim": False,
                "is_private": is_private or is_im,
                "created": 1690000000,
                "is_archived": is_archived,
                "is_general": False,
                "unlinked": 0,
                "name_normalized": name or channel_id.lower(),
                "is_shared": False,
                "is_org_shared": False,
                "is_ext_shared": False,
                "is_pending_ext_shared": False,
                "is_member": True,
                "creator": self.bot_user_id,
                "context_team_id": self.team_id,
                "topic": {"value": "", "creator": "", "last_set": 0},
                "purpose": {"value": "", "creator": "", "last_set": 0},
                "_members": list(members) if members is not None else None,
            }
            if is_im:
                ch["user"] = user
                ch.pop("name")
                ch.pop("name_normalized")
            ch.update(extra)
            self.channels[channel_id] = ch
            self.messages.setdefault(channel_id, [])
            return ch

    def set_members(self, channel_id: str, members: Iterable[str]) -> None:
        with self._lock:
            ch = self._channel(channel_id, create=True)
            ch["_members"] = list(members)

    def add_user(
        self,
        user_id: str,
        name: Optional[str] = None,
        *,
        real_name: Optional[str] = None,
        email: Optional[str] = None,
        tz: str = "Europe/Berlin",
        tz_offset: int = 3600,
        is_bot: bool = False,
        deleted: bool = False,
        is_admin: bool = False,
        **extra: Any,
    ) -> Dict[str, Any]:
        name = name or user_id.lower()
        real_name = real_name or name
        profile = {
            "real_name": real_name,
            "real_name_normalized": real_name,
            "display_name": name,
            "display_name_normalized": name,
            "title": "",
            "status_text": "",
            "status_emoji": "",
            "image_48": f"https://example.invalid/{user_id}_48.png",
            "image_192": f"https://example.invalid/{user_id}_192.png",
            "team": self.team_id,
        }
        if email is not None:
            profile["email"] = email
        elif not is_bot:
            profile["email"] = f"{name}@example.com"
        user = {
            "id": user_id,
            "team_id": self.team_id,
            "name": name,
            "deleted": deleted,
            "color": "9f69e7",
            "real_name": real_name,
            "tz": tz,
            "tz_label": tz,
            "tz_offset": tz_offset,
            "profile": profile,
            "is_admin": is_admin,
            "is_owner": False,
            "is_primary_owner": False,
            "is_restricted": False,
            "is_ultra_restricted": False,
            "is_bot": is_bot,
            "is_app_user": False,
            "updated": 1690000000,
        }
        profile.update(extra.pop("profile", {}))
        user.update(extra)
        with self._lock:
            self.users[user_id] = user
        return user

    def add_message(
        self,
        channel: str,
        text: str,
        *,
        user: str = "U0USER001",
        ts: Optional[str] = None,
        thread_ts: Optional[str] = None,
        **extra: Any,
    ) -> Dict[str, Any]:
        """Seed a message (e.g. one a user wrote) so chat.update / getPermalink /
        history find it."""
        with self._lock:
            self._channel(channel, create=True)
            msg = {"type": "message", "user": user, "text": text, "ts": ts or self.next_ts(), "team": self.team_id}
            if thread_ts:
                msg["thread_ts"] = thread_ts
            msg.update(extra)
            self._store_message(channel, msg)
            return msg

    def set_handler(self, method: str, fn: Callable[[Dict[str, Any], Call], Dict[str, Any]]) -> None:
        """Override / add a method.  ``fn(args, call)`` returns the success body
        (``ok: true`` is added) or raises ``SlackError``."""
        self._handlers[method] = fn

    def fail_next(self, method: str, error: str = "internal_error", *, count: int = 1, status: int = 200,
                  headers: Optional[Dict[str, str]] = None, **extra: Any) -> None:
        """The next ``count`` calls to ``method`` answer ``{"ok": false, "error": error}``."""
        with self._lock:
            self._forced.setdefault(method, []).extend(
                SlackError(error, status, headers, **extra) for _ in range(count)
            )

    def ratelimit_next(self, method: str, *, retry_after: int = 1, count: int = 1) -> None:
        """The next ``count`` calls to ``method`` get HTTP 429 ``ratelimited``."""
        self.fail_next(method, "ratelimited", count=count, status=429, headers={"Retry-After": str(retry_after)})

    def set_rate_limit(self, method: str, per_minute: float, burst: float) -> None:
        """Workspace-wide limit for ``method`` (Slack's tiers: 1/20/50/100 per minute)."""
        with self._lock:
            self.method_limits[method] = (per_minute, burst)
            self._buckets.pop(("method", method), None)

    def new_trigger_id(self) -> str:
        """A trigger id as Slack would put in an interaction payload; valid for
        ``trigger_ttl`` seconds and usable once."""
        tid = f"{secrets.randbelow(10**11)}.{secrets.randbelow(10**10)}.{secrets.token_hex(16)}"
        with self._lock:
            self._triggers[tid] = self.clock()
        return tid

    def expire_trigger(self, trigger_id: str) -> None:
        with self._lock:
            self._triggers[trigger_id] = float("-inf")

    def next_ts(self) -> str:
        """Unique, increasing message ts ("1700000000.000100", "...000200", ...)."""
        with self._lock:
            micro = self._ts_micro
            self._ts_micro += 100
        return f"{micro // 1_000_000}.{micro % 1_000_000:06d}"

    def reset(self) -> None:
        with self._lock:
            self.calls.clear()
            self.ephemeral.clear()
            self.reactions.clear()
            self._buckets.clear()
            self._forced.clear()
            for k in self.messages:
                self.messages[k] = []

    # -- inspection -------------------------------------------------------
    def calls_to(self, method: str) -> List[Call]:
        with self._lock:
            return [c for c in self.calls if c.method == method]

    def successful_calls(self, method: str) -> List[Call]:
        return [c for c in self.calls_to(method) if c.ok]

    def posted(self, channel: Optional[str] = None) -> List[Dict[str, Any]]:
        """Messages posted via chat.postMessage (all channels if None)."""
        with self._lock:
            chans = [channel] if channel else list(self.messages)
            return [m for ch in chans for m in self.messages.get(ch, []) if m.get("bot_id") == self.bot_id]

    def wait_for_calls(self, method: str, count: int = 1, timeout: float = 5.0, *, ok_only: bool = True) -> List[Call]:
        """Block until at least ``count`` (successful) calls to ``method`` were
        made; returns them.  Raises TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = [c for c in self.calls if c.method == method and (c.ok or not ok_only)]
                if len(found) >= count:
                    return found
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"expected {count} {method} calls, saw {len(found)}")
                self._cond.wait(left)

    # -- helpers ----------------------------------------------------------
    def _channel(self, channel_id: Optional[str], *, create: bool = False) -> Dict[str, Any]:
        if not channel_id:
            raise SlackError("channel_not_found")
        ch = self.channels.get(channel_id)
        if ch is None:
            if channel_id[:1] in ("U", "W"):
                return self._open_im(channel_id)
            if self.strict and not create:
                raise SlackError("channel_not_found")
            ch = self.add_channel(channel_id, is_private=channel_id.startswith("G"), is_im=channel_id.startswith("D"))
        return ch

    def _open_im(self, user_id: str) -> Dict[str, Any]:
        self._user(user_id)
        dm = "D" + user_id[1:]
        if dm not in self.channels:
            self.add_channel(dm, is_im=True, user=user_id, members=[user_id, self.bot_user_id])
        return self.channels[dm]

    def _user(self, user_id: Optional[str]) -> Dict[str, Any]:
        if not user_id:
            raise SlackError("user_not_found")
        u = self.users.get(user_id)
        if u is None:
            if self.strict:
                raise SlackError("user_not_found")
            u = self.add_user(user_id)
        return u

    def _find_message(self, channel: str, ts: Optional[str]) -> Optional[Dict[str, Any]]:
        for m in self.messages.get(channel, []):
            if m.get("ts") == ts:
                return m
        return None

    def _store_message(self, channel: str, msg: Dict[str, Any]) -> None:
        self.messages.setdefault(channel, []).append(msg)
        tts = msg.get("thread_ts")
        if tts and tts != msg["ts"]:
            parent = self._find_message(channel, tts)
            if parent is not None:
                parent["thread_ts"] = tts
                parent["reply_count"] = parent.get("reply_count", 0) + 1
                parent["latest_reply"] = msg["ts"]
                users = parent.setdefault("reply_users", [])
                if msg.get("user") not in users:
                    users.append(msg.get("user"))

    @staticmethod
    def _parse_json_arg(args: Dict[str, Any], key: str, error: str) -> Any:
        v = args.get(key)
        if isinstance(v, str):
            if v == "":
                return None
            try:
                v = json.loads(v)
            except ValueError:
                raise SlackError(error)
            args[key] = v
        return v

    def _validate_blocks(self, args: Dict[str, Any], limit: int = 50) -> Optional[List[Any]]:
        blocks = self._parse_json_arg(args, "blocks", "invalid_blocks_format")
        if blocks is None:
            return None
        if not isinstance(blocks, list):
            raise SlackError("invalid_blocks_format")
        if len(blocks) > limit:
            raise SlackError(
                "invalid_blocks",
                response_metadata={"messages": [f"[ERROR] no more than {limit} items allowed [json-pointer:/blocks]"]},
            )
        for i, b in enumerate(blocks):
            if not isinstance(b, dict) or not isinstance(b.get("type"), str):
                raise SlackError(
                    "invalid_blocks",
                    response_metadata={"messages": [f"[ERROR] missing required field: type [json-pointer:/blocks/{i}]"]},
                )
        return blocks

    def _message_content(self, args: Dict[str, Any]) -> Tuple[Optional[str], Optional[List[Any]], Any]:
        blocks = self._validate_blocks(args)
        attachments = self._parse_json_arg(args, "attachments", "invalid_attachments")
        if attachments is not None and not isinstance(attachments, list):
            raise SlackError("invalid_attachments")
        text = args.get("text")
        if text is not None and not isinstance(text, str):
            text = str(text)
        if not text and not blocks and not attachments:
            raise SlackError("no_text")
        if text and len(text) > 40000:
            raise SlackError("msg_too_long")
        if attachments and len(attachments) > 100:
            raise SlackError("too_many_attachments")
        return text, blocks, attachments

    def _bot_message(self, text: Optional[str], blocks: Any, attachments: Any, ts: str) -> Dict[str, Any]:
        msg: Dict[str, Any] = {
            "user": self.bot_user_id,
            "type": "message",
            "ts": ts,
            "bot_id": self.bot_id,
            "app_id": self.app_id,
            "text": text or "",
            "team": self.team_id,
            "bot_profile": {
                "id": self.bot_id,
                "app_id": self.app_id,
                "name": self.bot_name,
                "deleted": False,
                "team_id": self.team_id,
                "updated": 1690000000,
            },
        }
        if blocks is not None:
            msg["blocks"] = blocks
        if attachments is not None:
            msg["attachments"] = attachments
        return msg

    def _retry_after(self, wait: float) -> int:
        if self.retry_after is not None:
            return self.retry_after
        return max(1, math.ceil(wait))

    def _check_rate(self, method: str, args: Dict[str, Any]) -> None:
        now = self.clock()
        limits: List[Tuple[Any, float, float]] = []
        if method in self.method_limits:
            per_minute, burst = self.method_limits[method]
            limits.append((("method", method), per_minute / 60.0, burst))
        if self.rate_limit and method == "chat.postMessage" and args.get("channel"):
            limits.append((("post", str(args.get("channel"))), self.post_message_rate, self.post_message_burst))
        for key, rate, burst in limits:
            b = self._buckets.get(key)
            if b is None:
                b = self._buckets[key] = _Bucket(rate, burst, now)
            wait = b.take(now)
            if wait is not None:
                raise SlackError("ratelimited", 429, {"Retry-After": str(self._retry_after(wait))})

    def _validate_view(self, args: Dict[str, Any], *, home: bool = False) -> Dict[str, Any]:
        view = self._parse_json_arg(args, "view", "invalid_arguments")

        def invalid(msg: str) -> SlackError:
            return SlackError("invalid_arguments", response_metadata={"messages": [f"[ERROR] {msg}"]})

        if view is None:
            raise invalid("missing required field: view")
        if not isinstance(view, dict):
            raise invalid("failed to match all allowed schemas [json-pointer:/view]")
        vtype = view.get("type")
        allowed = ("home",) if home else ("modal",)
        if vtype not in allowed:
            raise invalid(f"must be a valid enum value [json-pointer:/view/type]")
        blocks = view.get("blocks")
        if not isinstance(blocks, list):
            raise invalid("missing required field: blocks [json-pointer:/view]")
        if len(blocks) > 100:
            raise invalid("no more than 100 items allowed [json-pointer:/view/blocks]")
        for i, b in enumerate(blocks):
            if not isinstance(b, dict) or not isinstance(b.get("type"), str):
                raise invalid(f"missing required field: type [json-pointer:/view/blocks/{i}]")
        if vtype == "modal":
            title = view.get("title")
            if not isinstance(title, dict) or title.get("type") != "plain_text" or not title.get("text"):
                raise invalid("missing required field: title [json-pointer:/view]")
            if len(title["text"]) > 24:
                raise invalid("must be less than 25 characters [json-pointer:/view/title/text]")
            for key in ("submit", "close"):
                t = view.get(key)
                if t is not None and isinstance(t, dict) and len(t.get("text", "")) > 24:
                    raise invalid(f"must be less than 25 characters [json-pointer:/view/{key}/text]")
            if any(b.get("type") == "input" for b in blocks) and not view.get("submit"):
                raise invalid("must provide submit if input blocks are present [json-pointer:/view/submit]")
        if len(view.get("private_metadata") or "") > 3000:
            raise invalid("must be less than 3001 characters [json-pointer:/view/private_metadata]")
        if len(view.get("callback_id") or "") > 255:
            raise invalid("must be less than 256 characters [json-pointer:/view/callback_id]")
        return view

    def _use_trigger(self, args: Dict[str, Any]) -> None:
        tid = args.get("trigger_id") or args.get("interactivity_pointer")
        if not tid:
            raise SlackError(
                "invalid_arguments",
                response_metadata={"messages": ["[ERROR] missing required field: trigger_id"]},
            )
        issued = self._triggers.get(tid)
        if issued is None and self.strict:
            raise SlackError("invalid_trigger_id")
        if tid in self._used_triggers:
            raise SlackError("trigger_exchanged")
        if issued is not None and self.trigger_ttl is not None and self.clock() - issued > self.trigger_ttl:
            raise SlackError("expired_trigger_id")
        self._used_triggers.add(tid)

    def _make_view(self, view: Dict[str, Any], *, view_id: Optional[str] = None, root: Optional[str] = None,
                   previous: Optional[str] = None) -> Dict[str, Any]:
        vid = view_id or "V" + _rand(10)
        out = {
            "id": vid,
            "team_id": self.team_id,
            "type": view.get("type"),
            "blocks": view.get("blocks", []),
            "private_metadata": view.get("private_metadata", ""),
            "callback_id": view.get("callback_id", ""),
            "state": {"values": {}},
            "hash": f"{int(time.time())}.{secrets.token_hex(4)}",
            "title": view.get("title"),
            "clear_on_close": bool(view.get("clear_on_close", False)),
            "notify_on_close": bool(view.get("notify_on_close", False)),
            "close": view.get("close"),
            "submit": view.get("submit"),
            "previous_view_id": previous,
            "root_view_id": root or vid,
            "app_id": self.app_id,
            "external_id": view.get("external_id", ""),
            "app_installed_team_id": self.team_id,
            "bot_id": self.bot_id,
        }
        return out

    # -- methods ----------------------------------------------------------
    def _m_auth_test(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        call.response_headers["x-oauth-scopes"] = self.oauth_scopes
        return {
            "url": f"https://{self.domain}.slack.com/",
            "team": self.team,
            "user": self.bot_name,
            "team_id": self.team_id,
            "user_id": self.bot_user_id,
            "bot_id": self.bot_id,
            "is_enterprise_install": False,
        }

    def _m_chat_postMessage(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        if ch.get("is_archived"):
            raise SlackError("is_archived")
        text, blocks, attachments = self._message_content(args)
        ts = self.next_ts()
        msg = self._bot_message(text, blocks, attachments, ts)
        thread_ts = args.get("thread_ts")
        if thread_ts:
            msg["thread_ts"] = str(thread_ts)
            msg["parent_user_id"] = (self._find_message(ch["id"], str(thread_ts)) or {}).get("user", "")
        metadata = self._parse_json_arg(args, "metadata", "invalid_metadata_format")
        if metadata is not None:
            msg["metadata"] = metadata
        self._store_message(ch["id"], msg)
        return {"channel": ch["id"], "ts": ts, "message": {k: v for k, v in msg.items() if k != "team"}}

    def _m_chat_update(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        ts = args.get("ts")
        msg = self._find_message(ch["id"], ts)
        if msg is None:
            raise SlackError("message_not_found")
        if msg.get("bot_id") != self.bot_id:
            raise SlackError("cant_update_message")
        text, blocks, attachments = self._message_content(args)
        msg["text"] = text or ""
        if blocks is not None:
            msg["blocks"] = blocks
        if attachments is not None:
            msg["attachments"] = attachments
        msg["edited"] = {"user": self.bot_user_id, "ts": self.next_ts()}
        return {"channel": ch["id"], "ts": ts, "text": msg["text"], "message": dict(msg)}

    def _m_chat_delete(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        msg = self._find_message(ch["id"], args.get("ts"))
        if msg is None:
            raise SlackError("message_not_found")
        if msg.get("bot_id") != self.bot_id:
            raise SlackError("cant_delete_message")
        self.messages[ch["id"]].remove(msg)
        return {"channel": ch["id"], "ts": args.get("ts")}

    def _m_chat_postEphemeral(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        user = args.get("user")
        if not user:
            raise SlackError("user_not_found")
        self._user(user)
        members = ch.get("_members")
        if members is not None and user not in members:
            raise SlackError("user_not_in_channel")
        text, blocks, attachments = self._message_content(args)
        ts = self.next_ts()
        self.ephemeral.append({"channel": ch["id"], "user": user, "text": text, "blocks": blocks,
                               "attachments": attachments, "thread_ts": args.get("thread_ts"), "ts": ts})
        return {"message_ts": ts}

    def _m_chat_getPermalink(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        ts = args.get("message_ts")
        if not ts:
            raise SlackError("message_not_found")
        msg = self._find_message(ch["id"], ts)
        if msg is None and self.strict:
            raise SlackError("message_not_found")
        link = f"https://{self.domain}.slack.com/archives/{ch['id']}/p{str(ts).replace('.', '')}"
        if msg is not None and msg.get("thread_ts") and msg["thread_ts"] != ts:
            link += f"?thread_ts={msg['thread_ts']}&cid={ch['id']}"
        return {"channel": ch["id"], "permalink": link}

    def _m_views_open(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        view = self._validate_view(args)
        self._use_trigger(args)
        out = self._make_view(view)
        self.views[out["id"]] = out
        return {"view": out}

    def _m_views_push(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        view = self._validate_view(args)
        self._use_trigger(args)
        open_views = [v for v in self.views.values() if v.get("type") == "modal"]
        if not open_views:
            raise SlackError("not_found")
        prev = open_views[-1]
        depth = 1
        p = prev
        while p.get("previous_view_id") and p["previous_view_id"] in self.views:
            depth += 1
            p = self.views[p["previous_view_id"]]
        if depth >= 3:
            raise SlackError("push_limit_reached")
        out = self._make_view(view, root=prev["root_view_id"], previous=prev["id"])
        self.views[out["id"]] = out
        return {"view": out}

    def _m_views_update(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        vid, ext = args.get("view_id"), args.get("external_id")
        if not vid and not ext:
            raise SlackError(
                "invalid_arguments",
                response_metadata={"messages": ["[ERROR] view_id or external_id is required"]},
            )
        view = self._validate_view(args)
        cur = self.views.get(vid) if vid else next(
            (v for v in self.views.values() if v.get("external_id") == ext), None)
        if cur is None:
            raise SlackError("not_found")
        h = args.get("hash")
        if h and h != cur["hash"]:
            raise SlackError("hash_conflict")
        out = self._make_view(view, view_id=cur["id"], root=cur["root_view_id"], previous=cur["previous_view_id"])
        self.views[cur["id"]] = out
        return {"view": out}

    def _m_views_publish(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        user = args.get("user_id")
        if not user:
            raise SlackError(
                "invalid_arguments", response_metadata={"messages": ["[ERROR] missing required field: user_id"]})
        self._user(user)
        view = self._validate_view(args, home=True)
        cur = self.home_views.get(user)
        h = args.get("hash")
        if h and cur is not None and h != cur["hash"]:
            raise SlackError("hash_conflict")
        out = self._make_view(view, view_id=cur["id"] if cur else None)
        self.home_views[user] = out
        return {"view": out}

    @staticmethod
    def _page(items: List[Any], args: Dict[str, Any], default_limit: int = 100) -> Tuple[List[Any], str]:
        try:
            limit = int(args.get("limit") or default_limit)
        except ValueError:
            raise SlackError("invalid_limit")
        limit = max(1, min(limit, 1000))
        cursor = args.get("cursor") or ""
        start = 0
        if cursor:
            try:
                start = int(cursor.split(":", 1)[1])
            except (IndexError, ValueError):
                raise SlackError("invalid_cursor")
        page = items[start:start + limit]
        nxt = f"next:{start + limit}" if start + limit < len(items) else ""
        return page, nxt

    def _m_conversations_members(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        members = ch.get("_members")
        if members is None:
            members = [self.bot_user_id]
        page, nxt = self._page(list(members), args)
        return {"members": page, "response_metadata": {"next_cursor": nxt}}

    def _m_conversations_info(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        out = {k: v for k, v in ch.items() if not k.startswith("_")}
        if str(args.get("include_num_members", "")).lower() in ("1", "true") and ch.get("_members") is not None:
            out["num_members"] = len(ch["_members"])
        return {"channel": out}

    def _m_conversations_open(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        if args.get("channel"):
            ch = self._channel(args.get("channel"))
            return {"channel": {"id": ch["id"]}, "no_op": True, "already_open": True}
        users = args.get("users")
        if isinstance(users, list):
            users = ",".join(users)
        if not users:
            raise SlackError("users_list_not_supplied")
        ids = [u.strip() for u in str(users).split(",") if u.strip()]
        if len(ids) == 1:
            ch = self._open_im(ids[0])
            return {"channel": {"id": ch["id"]}, "no_op": False, "already_open": False}
        mp = "G" + _rand(10)
        self.add_channel(mp, is_private=True, members=ids + [self.bot_user_id], is_mpim=True)
        return {"channel": {"id": mp}, "no_op": False, "already_open": False}

    def _m_conversations_history(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        msgs = [m for m in self.messages.get(ch["id"], [])
                if not m.get("thread_ts") or m.get("thread_ts") == m.get("ts") or m.get("subtype") == "thread_broadcast"]
        msgs = list(reversed(msgs))
        page, nxt = self._page(msgs, args)
        return {"messages": page, "has_more": bool(nxt), "pin_count": 0,
                "response_metadata": {"next_cursor": nxt}}

    def _m_conversations_replies(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        ts = args.get("ts")
        parent = self._find_message(ch["id"], ts)
        if parent is None:
            raise SlackError("thread_not_found")
        msgs = [parent] + [m for m in self.messages.get(ch["id"], []) if m.get("thread_ts") == ts and m is not parent]
        page, nxt = self._page(msgs, args)
        return {"messages": page, "has_more": bool(nxt), "response_metadata": {"next_cursor": nxt}}

    def _m_users_info(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        return {"user": self._user(args.get("user"))}

    def _m_reactions_add(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        ch = self._channel(args.get("channel"))
        name, ts = args.get("name"), args.get("timestamp")
        if not name:
            raise SlackError("invalid_name")
        if not ts:
            raise SlackError("no_item_specified")
        for r in self.reactions:
            if r["channel"] == ch["id"] and r["timestamp"] == ts and r["name"] == name:
                raise SlackError("already_reacted")
        self.reactions.append({"channel": ch["id"], "timestamp": ts, "name": name})
        return {}

    def _m_files_getUploadURLExternal(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        filename = args.get("filename")
        try:
            length = int(args.get("length"))
        except (TypeError, ValueError):
            length = -1
        if not filename or length < 0:
            raise SlackError("invalid_arguments")
        fid = "F" + _rand(10)
        tok = secrets.token_urlsafe(12)
        self._uploads[tok] = fid
        self.files[fid] = {
            "id": fid,
            "name": filename,
            "length": length,
            "alt_txt": args.get("alt_txt"),
            "snippet_type": args.get("snippet_type"),
            "content": None,
            "completed": False,
        }
        return {"upload_url": f"{self.url}/upload/v1/{tok}", "file_id": fid}

    def _m_files_completeUploadExternal(self, args: Dict[str, Any], call: Call) -> Dict[str, Any]:
        files = self._parse_json_arg(args, "files", "invalid_arguments")
        if not isinstance(files, list) or not files:
            raise SlackError("invalid_arguments")
        channels: List[str] = []
        if args.get("channel_id"):
            channels.append(str(args["channel_id"]))
        if args.get("channels"):
            channels += [c for c in str(args["channels"]).split(",") if c]
        chans = [self._channel(c)["id"] for c in channels]
        out = []
        for f in files:
            rec = self.files.get((f or {}).get("id")) if isinstance(f, dict) else None
            if rec is None or rec["content"] is None:
                raise SlackError("file_not_found")
            if rec["completed"]:
                raise SlackError("file_upload_already_completed")
            rec["completed"] = True
            rec["title"] = f.get("title") or rec["name"]
            rec["channels"] = chans
            obj = {
                "id": rec["id"], "created": int(time.time()), "timestamp": int(time.time()),
                "name": rec["name"], "title": rec["title"], "mimetype": "application/octet-stream",
                "filetype": rec["name"].rsplit(".", 1)[-1] if "." in rec["name"] else "binary",
                "pretty_type": "Binary", "user": self.bot_user_id, "user_team": self.team_id,
                "editable": False, "size": len(rec["content"]), "mode": "hosted", "is_external": False,
                "external_type": "", "is_public": bool(chans), "public_url_shared": False,
                "display_as_bot": False, "username": "",
                "url_private": f"https://files.slack.com/files-pri/{self.team_id}-{rec['id']}/{rec['name']}",
                "url_private_download": f"https://files.slack.com/files-pri/{self.team_id}-{rec['id']}/download/{rec['name']}",
                "permalink": f"https://{self.domain}.slack.com/files/{self.bot_user_id}/{rec['id']}/{rec['name']}",
                "permalink_public": f"https://slack-files.com/{self.team_id}-{rec['id']}-{secrets.token_hex(5)}",
                "comments_count": 0, "is_starred": False, "shares": {}, "channels": [], "groups": [], "ims": [],
                "has_more_shares": False, "has_rich_preview": False, "file_access": "visible",
            }
            if rec.get("alt_txt"):
                obj["alt_txt"] = rec["alt_txt"]
            out.append(obj)
        for ch in chans:
            ts = self.next_ts()
            msg = self._bot_message(args.get("initial_comment") or "", None, None, ts)
            msg["files"] = out
            msg["upload"] = True
            if args.get("thread_ts"):
                msg["thread_ts"] = str(args["thread_ts"])
            self._store_message(ch, msg)
        return {"files": out}

    _METHODS = {
        "auth.test": _m_auth_test,
        "chat.postMessage": _m_chat_postMessage,
        "chat.update": _m_chat_update,
        "chat.delete": _m_chat_delete,
        "chat.postEphemeral": _m_chat_postEphemeral,
        "chat.getPermalink": _m_chat_getPermalink,
        "views.open": _m_views_open,
        "views.push": _m_views_push,
        "views.update": _m_views_update,
        "views.publish": _m_views_publish,
        "conversations.members": _m_conversations_members,
        "conversations.info": _m_conversations_info,
        "conversations.open": _m_conversations_open,
        "conversations.history": _m_conversations_history,
        "conversations.replies": _m_conversations_replies,
        "users.info": _m_users_info,
        "reactions.add": _m_reactions_add,
        "files.getUploadURLExternal": _m_files_getUploadURLExternal,
        "files.completeUploadExternal": _m_files_completeUploadExternal,
    }

    # -- HTTP plumbing ----------------------------------------------------
    def _parse_args(self, handler: "BaseHTTPRequestHandler", body: bytes) -> Dict[str, Any]:
        args: Dict[str, Any] = {}
        query = urlsplit(handler.path).query
        for k, v in parse_qs(query, keep_blank_values=True).items():
            args[k] = v[0]
        ctype = (handler.headers.get("content-type") or "").split(";")[0].strip().lower()
        if body:
            if ctype == "application/json":
                try:
                    data = json.loads(body)
                except ValueError:
                    raise SlackError("invalid_json")
                if not isinstance(data, dict):
                    raise SlackError("invalid_json")
                args.update(data)
            elif ctype in ("application/x-www-form-urlencoded", ""):
                for k, v in parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True).items():
                    args[k] = v[0]
            elif ctype.startswith("multipart/"):
                args["_multipart"] = True
        return args

    def _handle(self, handler: "BaseHTTPRequestHandler") -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length) if length else b""
        path = urlsplit(handler.path).path
        if path.startswith("/upload/v1/"):
            self._handle_upload(handler, path, body)
            return
        headers = {k.lower(): v for k, v in handler.headers.items()}
        method = path[len("/api/"):] if path.startswith("/api/") else path.lstrip("/")
        call = Call(method=method, args={}, time=time.time(), headers=headers)
        status, resp, extra_headers = 200, None, {}
        try:
            try:
                call.args = self._parse_args(handler, body)
            finally:
                with self._lock:
                    self.calls.append(call)
            auth = headers.get("authorization", "")
            token = auth[7:].strip() if auth.lower().startswith("bearer ") else None
            from_header = token is not None
            token = token or call.args.pop("token", None)
            call.args.pop("token", None)
            call.token = token
            socket_url = self._app_level_call(method, token, from_header)
            with self._lock:
                fn = self._handlers.get(method)
                impl = self._METHODS.get(method)
                if socket_url is not None:
                    fn = lambda args, call: {"url": socket_url}  # noqa: E731
                elif fn is None and impl is None:
                    raise SlackError("unknown_method", 404, req_method=method)
                elif not token:
                    raise SlackError("not_authed")
                elif self.tokens is None:
                    if not token.startswith("xox"):
                        raise SlackError("invalid_auth")
                elif token not in self.tokens:
                    raise SlackError("invalid_auth")
                forced = self._forced.get(method)
                if forced:
                    raise forced.pop(0)
                self._check_rate(method, call.args)
                result = fn(call.args, call) if fn is not None else impl(self, call.args, call)
                resp = {"ok": True, **(result or {})}
                extra_headers = dict(call.response_headers)
        except SlackError as e:
            status = e.status
            resp = {"ok": False, "error": e.error, **e.extra}
            extra_headers = e.headers
            call.response_headers = dict(e.headers)
        with self._cond:
            call.status, call.ok, call.error, call.response = status, resp.get("ok"), resp.get("error"), resp
            self._cond.notify_all()
        payload = json.dumps(resp).encode()
        hdrs = {"Content-Type": "application/json; charset=utf-8", "x-slack-req-id": secrets.token_hex(16),
                **extra_headers}
        self._send(handler, status, payload, hdrs)

    def attach_socket_mode(self, socket_mode: Any) -> None:
        """Serve apps.connections.open for a FakeSocketMode (tests/servers/slack_socket.py)."""
        self.socket_mode = socket_mode

    def _app_level_call(self, method: str, token: Optional[str], from_header: bool) -> Optional[str]:
        """apps.connections.open takes only an app-level token (xapp-), which no other method accepts."""
        socket_mode = getattr(self, "socket_mode", None)
        if method == "apps.connections.open" and socket_mode is not None:
            return socket_mode.open_connection(token, from_header=from_header)
        if token and token.startswith("xapp-"):
            raise SlackError("not_allowed_token_type")
        return None

    def _handle_upload(self, handler: "BaseHTTPRequestHandler", path: str, body: bytes) -> None:
        tok = path.rsplit("/", 1)[-1]
        with self._cond:
            fid = self._uploads.get(tok)
            call = Call(method="<upload>", args={"file_id": fid, "size": len(body)}, time=time.time())
            self.calls.append(call)
            if fid is None:
                call.status, call.ok = 404, False
                self._cond.notify_all()
                self._send(handler, 404, b"Not Found", {"Content-Type": "text/plain"})
                return
            self.files[fid]["content"] = body
            call.status, call.ok = 200, True
            self._cond.notify_all()
        self._send(handler, 200, f"OK - {len(body)}".encode(), {"Content-Type": "text/plain; charset=utf-8"})

    @staticmethod
    def _send(handler: "BaseHTTPRequestHandler", status: int, body: bytes, headers: Dict[str, str]) -> None:
        try:
            handler.send_response(status)
            for k, v in headers.items():
                handler.send_header(k, v)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            handler.close_connection = True
