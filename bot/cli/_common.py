"""Shared CLI plumbing: settings, services, output, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
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
    office: str | None = None  # --office: the office a command works on (None: the only office, or the default one)
    _services: Services | None = field(default=None, init=False)
    _root: Services | None = field(default=None, init=False)

    def close(self) -> None:
        """Release what the command opened (the local Qdrant storage is single-process)."""
        root, self._root, self._services = self._root, None, None
        if root is not None:
            root.close()  # the office services go with the campus

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
            self._root = Services(settings)
            self._services = self._office_services(self._root)
        return self._services

    def root_services(self) -> Services:
        """The default office's services (the campus is built around them), whatever --office says."""
        self.services()
        assert self._root is not None
        return self._root

    def _office_services(self, root: Services) -> Services:
        from bot.wiring.campus import campus_of
        from review.errors import UnknownOffice

        campus = campus_of(root)
        try:
            if self.office is not None:
                return campus.office_services(self.office)
            only = campus.only_office()
            return root if only is None else campus.office_services(only)
        except UnknownOffice:
            fail(f"no existe la oficina {self.office!r} (oficinas: {', '.join(campus.names())}; `orienta offices add` crea una)")


def services(ctx: typer.Context) -> Services:
    return ctx.obj.services()


def ctx_root(ctx: typer.Context) -> Services:
    """The default office's services (the campus's), whatever --office says."""
    return ctx.obj.root_services()


def set_office(ctx, _param, value: str | None) -> None:
    """Callback of every command's --office option: remembered for services()."""
    if value:
        obj = ctx.find_object(Context)
        if obj is not None:
            obj.office = value


def office_name(ctx: typer.Context) -> str | None:
    """The office the command works on (None: the default office)."""
    return ctx.obj.services().office


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


def edit_in_editor(text: str) -> str:
    """`text` opened in $VISUAL / $EDITOR (vi by default); what the user saved."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w+", suffix=".txt", encoding="utf-8", delete=False) as fh:
        fh.write(text)
        path = fh.name
    try:
        subprocess.run([*editor.split(), path], check=True)
        return Path(path).read_text(encoding="utf-8")
    finally:
        os.unlink(path)
