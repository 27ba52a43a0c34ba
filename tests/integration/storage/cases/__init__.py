"""Cases and what hangs off them: round trips, messages, files, audit, LLM calls."""
