"""Shared CLI plumbing: settings, services, output, errors."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import typer
from pydantic import ValidationError
from rich.console import Console

from bot.wiring import spanish as _spanish
from bot.wiring.services import Services
from pipeline.settings import Settings, load_settings

console = Console()
err_console = Console(stderr=True)


@dataclass
class Context:
    data_dir: Path | None = None
    create: bool = True  # False: a data dir that does not exist is refused (a typo must not look like an empty office)
    init: bool = False  # --init: create the data dir now
    verbose: bool = False
    log_json: bool = False
    _services: Services | None = field(default=None, init=False)

    def close(self) -> None:
        """Release what the command opened (the local Qdrant storage is single-process)."""
        if self._services is not None:
            self._services.close()
            self._services = None

    def settings(self) -> Settings:
        return self.services().settings

    def services(self) -> Services:
        if self._services is None:
            overrides: dict[str, Any] = {}
            if self.data_dir is not None:
                overrides["data_dir"] = self.data_dir
            try:
                settings = load_settings(**overrides)
            except ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first.get("loc", ()))
                fail(f"configuración inválida: {where}: {_spanish.value(str(first.get('msg')))}")
            if self.init:
                settings.paths.data_dir.mkdir(parents=True, exist_ok=True)
            if not self.create and not settings.paths.data_dir.is_dir():
                fail(f"no existe la carpeta de datos {settings.paths.data_dir} (revisá --data-dir / ORIENTA_DATA_DIR; `orienta ingest` o --init la crean)")
            self._services = Services(settings)
        return self._services


def services(ctx: typer.Context) -> Services:
    return ctx.obj.services()


def fail(message: str, code: int = 1) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise SystemExit(code)


def describe(exc: BaseException) -> str:
    """The error's first line, in Spanish when it is one of the library's common messages."""
    text = str(exc) or type(exc).__name__
    return _spanish.library(text.splitlines()[0])


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n")


def week_option(week: str | None) -> str:
    """The ISO week a command was given (this week when none), or a one-line error for one that does not exist."""
    from datetime import datetime, timezone

    from review.weeks import iso_week, parse_week

    week = week or iso_week(datetime.now(timezone.utc))
    try:
        parse_week(week)
    except ValueError as exc:
        fail(describe(exc))
    return week
