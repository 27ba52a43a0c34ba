"""Block Kit built by pure functions from domain and view models (no I/O, no database)."""
