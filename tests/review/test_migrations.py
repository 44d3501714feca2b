"""Alembic migrations create exactly the models' schema, on SQLite and PostgreSQL."""

from __future__ import annotations

from sqlalchemy import inspect, text
from sqlmodel import SQLModel

from review import models
from review.db import make_engine, migrate, pending_model_changes


def test_upgrade_to_head_matches_the_models(engine):
    assert pending_model_changes(engine) == []
    tables = set(inspect(engine).get_table_names())
    assert {t.name for t in SQLModel.metadata.sorted_tables} <= tables
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def test_database_made_before_migrations_is_stamped_and_kept(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    SQLModel.metadata.create_all(engine, tables=[t for t in SQLModel.metadata.sorted_tables if t.name in {"inbound_message", "draft", "decision", "outgoing_reply", "audit_event", "mailbox_checkpoint", "digest_run"}])
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO inbound_message (channel, source_key, received_at, state, version, created_at, updated_at) VALUES ('email', 'k', '2026-01-01', 'received', 1, '2026-01-01', '2026-01-01')"))
    migrate(engine)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM inbound_message")).scalar() == 1
    assert pending_model_changes(engine) == []
    assert models.InboundMessage.__tablename__ in inspect(engine).get_table_names()


def test_downgrade_to_base_and_back(tmp_path):
    from alembic import command

    from review.db import alembic_config

    engine = make_engine(f"sqlite:///{tmp_path / 'd.db'}")
    migrate(engine)
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "base")
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    migrate(engine)
    assert pending_model_changes(engine) == []
