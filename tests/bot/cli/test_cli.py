"""The `orienta` CLI: the loop driven from the command line, JSON output, and one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from bot.demo import sample
from bot.cli import app
from bot.email.maildir import copy_to_maildir


@pytest.fixture
def cli(cli_env, monkeypatch):
    """Run `orienta` in-process against a fresh data dir with the model-free embedder."""
    runner = CliRunner()

    def run(*args: str, ok: bool = True):
        result = runner.invoke(app, list(args), catch_exceptions=False)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    return run


def test_ingest_search_and_ask_report_json(cli):
    report = json.loads(cli("ingest", "--json").stdout)
    assert len(report["added"]) >= 12 and report["chunks"] > 0 and not report["failed"]
    again = json.loads(cli("ingest", "--json").stdout)
    assert again["added"] == [] and len(again["unchanged"]) == len(report["added"])
    hits = json.loads(cli("search", "becas de transporte para estudiantes del interior", "-k", "3", "--json").stdout)
    assert len(hits) == 3 and all({"score", "doc_id", "text"} <= set(h) for h in hits)
    answer = json.loads(cli("ask", "¿Qué becas hay para estudiantes del interior?", "--json").stdout)
    assert {"answer", "references", "method", "derivation", "flags", "usage"} <= set(answer)
    assert answer["method"] == "extractive"


def test_run_review_and_digest_from_the_command_line(cli, tmp_path, monkeypatch):
    inbox = copy_to_maildir(sorted(sample.emails_dir().glob("*.eml"))[:8], tmp_path / "inbox")
    monkeypatch.setenv("ORIENTA_PATHS__MAILDIR", str(inbox))
    cli("ingest")
    cli("gate", "train")
    first = json.loads(cli("run", "--once", "--json").stdout)
    assert first["stored"] == 8 and first["drafted"] >= 1
    second = json.loads(cli("run", "--once", "--json").stdout)
    assert second["stored"] == 0 and second["drafted"] == 0 and second["duplicates"] == 8
    pending = json.loads(cli("review", "list", "--json").stdout)
    assert len(pending) == first["drafted"]
    a, b, c = (p["draft_id"] for p in pending[:3])
    shown = json.loads(cli("review", "show", str(a), "--json").stdout)
    assert shown["draft"] and shown["question"]
    assert json.loads(cli("review", "approve", str(a), "--as", "ana", "--json").stdout)["action"] == "approve"
    assert json.loads(cli("review", "edit", str(b), "--text", "Hola: la respuesta corregida.", "--as", "bruno", "--json").stdout)["action"] == "edit"
    assert json.loads(cli("review", "reject", str(c), "--reason", "missing_info", "--json").stdout)["reason"] == "missing_info"
    again = cli("review", "approve", str(a), ok=False)
    assert again.exit_code != 0 and "ya fue atendido por ana" in again.output
    sent = json.loads(cli("run", "--once", "--json").stdout)
    assert sent["sent"] == 2
    digest = json.loads(cli("digest", "--json").stdout)
    for key in ("received", "skipped", "quarantined", "out_of_domain", "drafted", "approved", "edited", "rejected", "sent"):
        assert key in digest
    assert (digest["received"], digest["approved"], digest["edited"], digest["rejected"], digest["sent"]) == (8, 1, 1, 1, 2)


def test_errors_are_one_line_on_stderr(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORIENTA_", "ANTHROPIC_"))}
    env["ORIENTA_DATA_DIR"] = str(tmp_path / "data")
    env["ORIENTA_EMBEDDING__BACKEND"] = "hashing"
    cases = [
        (["review", "list"], "no existe la carpeta de datos"),  # a typo in --data-dir is not an empty office
        (["review", "show"], "falta el argumento"),  # usage errors too: one line, not a box
        (["gate", "eval", "--out", "x.jsonl"], "--out"),  # renamed --out-of-domain (wording differs across typer versions)
    ]
    for args, message in cases:
        proc = subprocess.run([sys.executable, "-c", "from bot.cli import main; main()", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert proc.returncode != 0, args
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr, proc.stderr
    assert not (tmp_path / "data").exists()
    (tmp_path / "data").mkdir()
    cases = [
        (["review", "show", "999"], "no existe el borrador #999"),
        (["digest", "--week", "2026-W99"], "no existe la semana ISO"),
        (["eval", "retrieval", "--qa", str(tmp_path / "missing.jsonl")], "no existe el archivo"),
    ]
    for args, message in cases:
        proc = subprocess.run([sys.executable, "-c", "from bot.cli import main; main()", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        assert proc.returncode != 0, args
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and message in lines[0] and "Traceback" not in proc.stderr, proc.stderr
    bad = dict(env, ORIENTA_IMAP__SECURITY="tls-please")
    proc = subprocess.run([sys.executable, "-c", "from bot.cli import main; main()", "review", "list"], capture_output=True, text=True, env=bad, cwd=tmp_path, timeout=120)
    assert proc.returncode != 0 and "configuración inválida: imap.security" in proc.stderr and "Traceback" not in proc.stderr


def test_every_command_and_option_has_help_text():
    """`--help` is the CLI's manual: a command or option without help text is a hole in it (issue 17)."""
    import typer

    from bot.cli import app  # importing registers every command

    root = typer.main.get_command(app)
    missing: list[str] = []

    def walk(command, path: str) -> None:
        if not command.help:
            missing.append(path)
        missing.extend(f"{path} {param.opts[0]}" for param in command.params if param.param_type_name == "option" and not param.help)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, f"{path} {name}")

    walk(root, "orienta")
    assert not missing, missing


def test_help_and_usage_errors_are_in_spanish(tmp_path):
    """The CLI speaks one language: click's own --help line and its usage errors are said in Spanish too (issue 17)."""
    import typer

    from bot.cli import HELP_OPTION

    root = typer.main.get_command(app)
    helps: list[str] = []

    def walk(command) -> None:
        helps.append(command.get_help_option(typer.Context(command)).help)
        for sub in getattr(command, "commands", {}).values():
            walk(sub)

    walk(root)
    assert len(helps) > 20 and set(helps) == {HELP_OPTION}
    shown = CliRunner().invoke(app, ["review", "--help"])
    assert HELP_OPTION in shown.stdout and "Show this message" not in shown.stdout
    assert "─ Opciones ─" in shown.stdout and "─ Comandos ─" in shown.stdout and "─ Options ─" not in shown.stdout
    assert "─ Argumentos ─" in CliRunner().invoke(app, ["review", "show", "--help"]).stdout
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORIENTA_", "ANTHROPIC_"))}
    env["ORIENTA_DATA_DIR"] = str(tmp_path)
    cases = [
        (["review", "shw"], "no existe el comando 'shw' (¿quisiste decir 'show'?)"),
        (["review", "list", "--limit", "muchos"], "valor inválido para '--limit': tiene que ser un número entero"),
        (["answers", "list", "--limit", "0"], "tiene que ser mayor o igual que 1"),
        (["review", "list", "sobra"], "sobran argumentos: sobra"),
        (["review", "reject", "3"], "falta la opción '--reason'"),
    ]
    for args, message in cases:
        proc = subprocess.run([sys.executable, "-c", "from bot.cli import main; main()", *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        assert proc.returncode == 2 and len(lines) == 1 and message in lines[0], proc.stderr


def test_library_errors_shown_by_the_cli_are_translated_and_unknown_ones_pass_through():
    from bot.cli._common import describe
    from review.errors import ConcurrentUpdate, NotFound, UnconfirmedLinks

    assert describe(NotFound("no draft #7")) == "no existe el borrador #7"
    assert describe(ConcurrentUpdate(3, "ana", "approve")) == "el mensaje 3 ya fue atendido por ana (approve)"
    assert describe(ConcurrentUpdate(3, None, None)) == "el mensaje 3 ya fue atendido"
    assert "--confirm-links" in describe(UnconfirmedLinks(4, ["https://x.example"]))
    assert describe(ValueError("week must look like 2026-W47, got '2026-47'")) == "la semana debe tener la forma 2026-W47 (se recibió '2026-47')"
    assert describe(RuntimeError("connection refused\nmore")) == "connection refused"  # no wording of ours: shown as it is
