"""`orienta staff add|list|disable`: the office console's accounts."""

from __future__ import annotations

import getpass
import os
import sys

import typer
from rich.table import Table

from bot.cli._common import console, ctx_root, fail, print_json, services
from review import staff as accounts
from review.db import session_scope
from review.errors import ReviewError

staff_app = typer.Typer(help="Cuentas de la consola web: crear, listar, deshabilitar.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(staff_app, name="staff")


def _actor() -> str:
    return f"cli:{os.environ.get('USER') or getpass.getuser()}"


def _password() -> str:
    """The password from stdin: typed twice on a terminal, the first line when piped."""
    if sys.stdin.isatty():
        first = getpass.getpass("Contraseña: ")
        if getpass.getpass("Repetila: ") != first:
            fail("las contraseñas no coinciden")
        return first
    return sys.stdin.readline().rstrip("\r\n")


@staff_app.command("add")
def add_cmd(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Nombre de la cuenta (para ingresar)."),
    role: str = typer.Option(..., "--role", help="lead (todo) o reviewer (cola y respuestas aprobadas)."),
    offices: list[str] = typer.Option([], "--office", help="Campus: oficina para la que trabaja (repetible). Sin ninguna: una cuenta lead coordina todo el campus; una reviewer, la oficina principal."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Crea una cuenta; la contraseña se lee de la entrada estándar (al menos 10 caracteres)."""
    names = _office_names(ctx, offices)
    password = _password()
    try:
        with session_scope(ctx_root(ctx).engine) as session:
            account = accounts.add_staff(session=session, name=name, role=role, password=password, actor=_actor(), offices=names)
            data = {"name": account.name, "role": account.role, "offices": list(account.offices or [])}
    except ReviewError as exc:
        fail(str(exc))
    if as_json:
        print_json(data)
    else:
        console.print(f"cuenta {data['name']} creada ({'coordinación' if data['role'] == accounts.LEAD else 'revisión'}).", highlight=False)


def _office_names(ctx: typer.Context, offices: list[str]) -> list[str]:
    """The offices named, as the campus spells them (an office that does not exist is refused)."""
    from bot.wiring.campus import campus_of
    from review.errors import UnknownOffice

    campus = campus_of(ctx_root(ctx))
    names = []
    for office in offices:
        try:
            names.append(campus.info(office).name)
        except UnknownOffice:
            fail(f"no existe la oficina {office!r} (oficinas: {', '.join(campus.names())})")
    return names


@staff_app.command("offices")
def offices_cmd(
    ctx: typer.Context,
    name: str = typer.Argument(..., help="Nombre de la cuenta."),
    offices: list[str] = typer.Option([], "--office", help="Oficina para la que trabaja (repetible); ninguna: lead = coordinación del campus, reviewer = oficina principal."),
    as_json: bool = typer.Option(False, "--json", help="Salida en JSON."),
) -> None:
    """Campus: las oficinas de una cuenta (ve y decide solo los mensajes de ellas)."""
    names = _office_names(ctx, offices)
    try:
        with session_scope(ctx_root(ctx).engine) as session:
            account = accounts.set_offices(session=session, name=name, offices=names, actor=_actor())
            data = {"name": account.name, "role": account.role, "offices": list(account.offices or [])}
    except ReviewError as exc:
        fail(str(exc))
    if as_json:
        print_json(data)
    else:
        console.print(f"cuenta {data['name']}: {', '.join(data['offices']) or ('todo el campus' if data['role'] == accounts.LEAD else 'oficina principal')}.", highlight=False)


@staff_app.command("list")
def list_cmd(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Las cuentas de la consola."""
    with session_scope(services(ctx).engine) as session:
        rows = [{"name": a.name, "role": a.role, "active": a.active, "created_at": a.created_at.isoformat(timespec="seconds"), "created_by": a.created_by, "offices": list(a.offices or [])} for a in accounts.list_staff(session=session)]
    if as_json:
        print_json(rows)
        return
    if not rows:
        console.print("No hay cuentas: creá una con `orienta staff add NOMBRE --role lead`.")
        return
    table = Table("nombre", "rol", "oficinas", "estado", "creada", "por")
    for r in rows:
        table.add_row(r["name"], r["role"], ", ".join(r["offices"]) or "—", "activa" if r["active"] else "deshabilitada", r["created_at"][:16], r["created_by"])
    console.print(table)


@staff_app.command("disable")
def disable_cmd(ctx: typer.Context, name: str = typer.Argument(..., help="Nombre de la cuenta."), as_json: bool = typer.Option(False, "--json", help="Salida en JSON.")) -> None:
    """Deshabilita una cuenta: no puede ingresar y sus sesiones abiertas terminan."""
    try:
        with session_scope(services(ctx).engine) as session:
            account = accounts.disable_staff(session=session, name=name, actor=_actor())
            data = {"name": account.name, "active": account.active}
    except ReviewError as exc:
        fail(str(exc))
    if as_json:
        print_json(data)
    else:
        console.print(f"cuenta {data['name']} deshabilitada; sus sesiones terminaron.", highlight=False)
