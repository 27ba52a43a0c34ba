"""Alembic migrations of the storage schema (run them through ``storage.schema.migrate``)."""
