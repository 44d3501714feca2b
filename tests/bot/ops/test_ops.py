"""Operations: /healthz, /readyz and /metrics of `orienta run` after a pass over the sample office; logs with timestamps,
levels and message ids (text or JSON); LLM calls counted through the real Anthropic client; old Qdrant servers refused."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from bot.demo import sample
from bot.cli import app
from bot.email.maildir import copy_to_maildir
from bot.wiring import metrics
from bot.ops.http import start_ops
from bot.wiring.logs import configure_logging, message_context
from bot.wiring.services import Services
from pipeline.errors import IndexError_
from pipeline.index import ChunkIndex
from pipeline.settings import load_settings
from review import states
from review.db import session_scope
from review.queue import messages_in_state


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _samples(page: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for fam in text_string_to_metric_families(page) for s in fam.samples}


def _received(channel: str) -> float:
    return metrics.MESSAGES.labels(channel=channel, outcome="received")._value.get()


def test_ops_endpoint_after_run_once_over_the_sample_office(cli_env, tmp_path, monkeypatch):
    inbox = copy_to_maildir(sorted(sample.emails_dir().glob("*.eml")), tmp_path / "inbox")
    monkeypatch.setenv("ORIENTA_PATHS__MAILDIR", str(inbox))
    runner = CliRunner()
    for args in (["ingest"], ["gate", "train"]):
        assert runner.invoke(app, args, catch_exceptions=False).exit_code == 0
    before = _received("email")
    report = json.loads(runner.invoke(app, ["run", "--once", "--json"], catch_exceptions=False).stdout)
    assert _received("email") - before == report["stored"] > 0

    svc = Services(load_settings())
    threads_ok = {"value": True}
    ops = start_ops(svc, port=0, extra_checks=[("threads", lambda: (threads_ok["value"], json.dumps({"jobs": {"alive": threads_ok["value"]}})))])
    try:
        base = f"http://{ops.host}:{ops.port}"
        assert ops.host == "127.0.0.1"  # loopback unless ORIENTA_OPS__HTTP_HOST says otherwise
        assert _get(base + "/healthz") == (200, "ok\n")
        status, body = _get(base + "/readyz")
        ready = json.loads(body)
        assert status == 200 and ready["ready"], ready
        assert [c["check"] for c in ready["checks"]] == ["database", "qdrant", "mailbox", "slack", "threads"]

        status, page = _get(base + "/metrics")
        assert status == 200
        got = _samples(page)
        with session_scope(svc.engine) as session:
            waiting = len(messages_in_state(session=session, state=states.DRAFTED, limit=1000))
        assert got[("orienta_queue_depth", (("stage", "review"),))] == waiting == report["drafted"]
        assert got[("orienta_messages_total", (("channel", "email"), ("outcome", "received")))] >= report["stored"]
        assert got[("orienta_messages_total", (("channel", "email"), ("outcome", "drafted")))] >= report["drafted"]
        assert got[("orienta_oldest_waiting_draft_age_seconds", ())] >= 0
        assert any(name == "orienta_gate_decisions_total" for name, _ in got)
        if os.environ.get("METRICS_PAGE_OUT"):  # benchmarks/results/ops_metrics.txt is this page
            Path(os.environ["METRICS_PAGE_OUT"]).write_text(page)

        threads_ok["value"] = False  # a supervised thread died or is stuck: not ready
        status, body = _get(base + "/readyz")
        assert status == 503 and {c["check"]: c["ok"] for c in json.loads(body)["checks"]}["threads"] is False
        threads_ok["value"] = True
        svc.settings.imap.host = "imap.example.edu.uy"  # a mailbox that has not been read for longer than allowed
        svc.settings.ops.mailbox_stale_after_s = 1e-6
        status, body = _get(base + "/readyz")
        mailbox = {c["check"]: c for c in json.loads(body)["checks"]}["mailbox"]
        assert status == 503 and not mailbox["ok"] and "imap.example.edu.uy" in mailbox["detail"]
        assert _get(base + "/nope")[0] == 404
    finally:
        ops.stop()
        svc.close()


def test_ops_port_zero_in_settings_turns_the_endpoint_off(settings):
    settings.ops.http_port = 0
    assert start_ops(Services(settings)) is None


@pytest.fixture
def root_logging():
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_logs_carry_time_level_and_message_id_and_keep_library_noise_out(root_logging):
    out = io.StringIO()
    configure_logging(level="INFO", json_format=True, stream=out)
    with message_context(42):
        logging.getLogger("bot.loop.drafting").info("drafted")
    logging.getLogger("alembic.runtime.migration").info("Running upgrade 0001 -> 0002")
    logging.getLogger("bot.loop.sending").warning("no message here")
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [x["message"] for x in lines] == ["drafted", "no message here"]  # alembic's INFO stays out
    assert lines[0]["message_id"] == "42" and lines[0]["level"] == "INFO" and lines[0]["logger"] == "bot.loop.drafting"
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$", lines[0]["time"]) and lines[1]["message_id"] is None

    text = io.StringIO()
    configure_logging(level="INFO", stream=text)
    with message_context(7):
        logging.getLogger("bot.loop.drafting").error("boom")
    assert re.match(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ERROR +bot\.loop\.drafting \[msg 7\] boom$", text.getvalue().strip())
    assert len(logging.getLogger().handlers) == len([h for h in logging.getLogger().handlers])  # replaced, not stacked
    assert sum(getattr(h, "_orienta", False) for h in logging.getLogger().handlers) == 1


def test_llm_calls_latency_cost_and_errors_are_counted_by_model(settings, anthropic_server):
    from pydantic import SecretStr

    settings.llm.api_key = SecretStr("test-key")
    settings.llm.base_url = anthropic_server.url
    settings.llm.max_retries = 0
    svc = Services(settings)
    llm = svc.llm
    model = llm.model
    calls = lambda outcome: metrics.LLM_CALLS.labels(model=model, outcome=outcome)._value.get()  # noqa: E731
    ok0, cost0 = calls("ok"), metrics.LLM_COST.labels(model=model)._value.get()
    response = llm.complete(system="Sos un asistente.", user="Hola")
    assert calls("ok") == ok0 + 1
    from pipeline.llm import prices_for

    spent = metrics.LLM_COST.labels(model=model)._value.get() - cost0
    assert spent > 0 and spent == pytest.approx(response.usage.cost(prices_for(svc.settings.llm, model)))
    assert svc.llm is llm and type(llm).__name__ == "AnthropicLLM"  # the same object: batches and settings still apply

    err0 = calls("error")
    anthropic_server.enqueue_error(500, "api_error", "Internal server error")
    with pytest.raises(Exception) as raised:
        llm.complete(system="Sos un asistente.", user="Hola")
    assert calls("error") == err0 + 1
    assert metrics.LLM_ERRORS.labels(model=model, error=type(raised.value).__name__)._value.get() >= 1


class _FakeQdrantRoot(BaseHTTPRequestHandler):
    """Answers GET / like a Qdrant server of `version` (https://api.qdrant.tech/api-reference/service/root)."""

    version = "1.12.4"

    def do_GET(self) -> None:  # noqa: N802
        body = json.dumps({"title": "qdrant - vector search engine", "version": self.version, "commit": "0" * 40}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.mark.parametrize("version,refused", [("1.12.4", True), ("1.16.3", True), ("1.17.0", False), ("1.18.1", False)])
def test_qdrant_servers_older_than_weighted_rrf_are_refused(version, refused):
    handler = type("H", (_FakeQdrantRoot,), {"version": version})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        index = ChunkIndex(path=None, url=f"http://127.0.0.1:{server.server_address[1]}", api_key=None, collection="c")
        if refused:
            with pytest.raises(IndexError_, match=rf"v{re.escape(version)}; orienta needs v1\.17\.0 or newer"):
                index.client
        else:
            assert index.client is not None
    finally:
        server.shutdown()
        server.server_close()


def test_orienta_run_serves_health_readiness_with_its_threads_and_metrics(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    from tests.servers.dovecot import free_port

    port, console_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORIENTA_", "ANTHROPIC_"))}
    env.update(ORIENTA_DATA_DIR=str(tmp_path / "data"), ORIENTA_EMBEDDING__BACKEND="hashing", ORIENTA_OPS__HTTP_PORT=str(port), ORIENTA_CONSOLE__PORT=str(console_port), ORIENTA_DIGEST__SCHEDULE="false")
    proc = subprocess.Popen([sys.executable, "-c", "from bot.cli import main; main()", "run"], env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                if _get(base + "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else "no /healthz"
            time.sleep(0.3)
        deadline = time.monotonic() + 60
        while True:  # the supervised threads need a moment to start beating
            status, body = _get(base + "/readyz")
            checks = {c["check"]: c for c in json.loads(body)["checks"]}
            if status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert status == 200, body
        assert set(json.loads(checks["threads"]["detail"])) >= {"jobs", "sender"}
        assert "orienta_queue_depth" in _get(base + "/metrics")[1]
        console = f"http://127.0.0.1:{console_port}"  # the office console is served by the same process, its own probes included
        assert _get(console + "/healthz")[0] == 200 and "orienta_queue_depth" in _get(console + "/metrics")[1]
        assert "Consola de la oficina" in _get(console + "/login")[1]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert proc.returncode == 0, proc.stderr.read()
