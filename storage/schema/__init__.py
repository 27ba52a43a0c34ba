"""The database schema.

The table mappings, the migrations that build them, and applying them.
"""
