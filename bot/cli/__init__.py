"""The `fm` command line: parse arguments, load settings, hand over to one command.

`entry` holds `main` (the `fm` entry point) and the parser; each command lives in its own module:
`kb`, `doctor` (with `doctor_probes`, `doctor_models`, `doctor_mcp`), `mcp`, `eval`, and `console`
(`fm run --console`, the terminal as a case thread). `fm run` itself serves from `bot.server`.
"""

from bot.cli.entry import build_parser, leave_at_once, main

__all__ = ["build_parser", "leave_at_once", "main"]
