"""Alembic migrations for orienta's database (see README.md here for adding a revision)."""
