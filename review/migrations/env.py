"""Alembic environment: migrates SQLModel.metadata (review.models and, when present, review.evaluation_models)."""

from __future__ import annotations

import importlib

from alembic import context
from sqlalchemy import create_engine
from sqlmodel import SQLModel

import review.models  # noqa: F401  (registers the tables)

for optional in ("review.evaluation_models", "review.answer_models", "review.staff"):
    try:
        importlib.import_module(optional)
    except ModuleNotFoundError as exc:
        if exc.name != optional:
            raise

config = context.config
target_metadata = SQLModel.metadata


def _configure(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def run_migrations_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:  # review.db.migrate passes its own connection
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as connection:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
