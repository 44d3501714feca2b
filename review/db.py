"""Database engine and sessions: SQLite (WAL) by default, PostgreSQL by URL; schema by Alembic migrations."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, SQLModel, create_engine

from review import models  # noqa: F401  (registers the tables)
from review import evaluation_models  # noqa: F401  (registers the judge and evaluation tables)
from review import answer_models  # noqa: F401  (registers the approved-answer memory)
from review import staff  # noqa: F401  (registers the console's staff accounts and sessions)
from review import office_models  # noqa: F401  (registers the offices of a campus deployment)
from review import ingest_job_models  # noqa: F401  (registers the background ingestion jobs)
from review import safe_text

safe_text.install()  # NUL bytes and lone surrogates never reach the database

log = logging.getLogger(__name__)
MIGRATIONS_DIR = Path(__file__).with_name("migrations")
BASELINE_REVISION = "0001_initial"
_PG_MIGRATION_LOCK = 7_470_001  # pg_advisory_xact_lock key: one migrating worker at a time


def make_engine(url: str, *, echo: bool = False, **kwargs) -> Engine:
    """An engine for `url`; SQLite files get WAL mode, foreign keys and a busy timeout."""
    if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    if url.startswith("sqlite"):
        engine = create_engine(url, echo=echo, connect_args={"check_same_thread": False, "timeout": 30}, **kwargs)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record) -> None:  # pragma: no cover - trivial
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA secure_delete=ON")  # retention: overwritten texts must not linger in free pages
            cur.close()

        return engine
    return create_engine(url, echo=echo, pool_pre_ping=True, **kwargs)


def alembic_config(connection: Connection | None = None):
    """An Alembic Config pointing at the packaged migrations (and at `connection`, when given)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        cfg.attributes["connection"] = connection
        cfg.set_main_option("sqlalchemy.url", connection.engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    return cfg


def _current_revision(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to `revision` with Alembic; databases made by create_all before migrations are stamped first."""
    from alembic import command

    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_MIGRATION_LOCK})
        cfg = alembic_config(connection)
        if _current_revision(connection) is None and inspect(connection).has_table(models.InboundMessage.__tablename__):
            log.warning("database has tables but no Alembic revision: stamping %s", BASELINE_REVISION)
            command.stamp(cfg, BASELINE_REVISION)
        command.upgrade(cfg, revision)
        _create_unmigrated_tables(connection)


def _create_unmigrated_tables(connection: Connection) -> None:
    """Tables declared in code but not created by any revision yet: create them and say a revision is missing."""
    existing = set(inspect(connection).get_table_names())
    missing = [t for name, t in SQLModel.metadata.tables.items() if name not in existing]
    if missing:
        log.warning("tables %s are not covered by a migration; created directly — add a revision (review/migrations/README.md)", [t.name for t in missing])
        SQLModel.metadata.create_all(connection, tables=missing)


def pending_model_changes(engine: Engine) -> list:
    """Differences between the migrated schema and the models (empty when the revisions are complete)."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return list(compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}), SQLModel.metadata))


def init_db(engine: Engine) -> None:
    """Create or upgrade the schema through the Alembic migrations."""
    migrate(engine)


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session that commits on success and rolls back on error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
