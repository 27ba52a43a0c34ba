"""The Slack edge and everything that runs the process, one layer per folder, importing downwards.

`cli` (`fm`) runs `server` (HTTP and Socket Mode), which serves what `wiring` builds; the edge
(`listeners`, `alerts`, `worker`) records and runs work through the use cases (`services`), which
show a case in its thread (`thread`) through the adapters (`slack`, `llm`, `adapters`, `mcp`); the
vocabulary every layer shares sits at the bottom (`inbox`, `settings`, `observability`). The
import-linter layers contract in `pyproject.toml` keeps that order.
"""
