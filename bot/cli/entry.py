"""`fm`: parse the arguments, load the settings, hand over to one command.

Each command's module is imported only when it runs, so `fm --help` and `fm doctor` start fast.
"""

from __future__ import annotations

import argparse
import logging
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from bot.observability.logs import configure_logging
from bot.settings import Settings, SettingsError, load_settings, prepare_process_environment
from rag.store.lance_import import defer_rest_client

Command = Callable[[argparse.Namespace, Settings], int]
EXIT_USAGE = 2


def main(argv: list[str] | None = None) -> int:
    """Run `fm` with `argv` (default: the process arguments) and return the exit code."""
    args = build_parser().parse_args(argv)
    prepare_process_environment()
    # Every command that opens LanceDB starts ~1 s sooner; the bot and `fm kb` the same.
    defer_rest_client()
    try:
        settings = load_settings()
    except SettingsError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    configure_logging(settings.log_level, settings.log_format)
    # Alembic announces each of its plugins at INFO; that says nothing to someone running `fm`.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    command: Command = args.command
    code = command(args, settings)
    if argv is None and args.read_only:
        leave_at_once(code)
    return code


def leave_at_once(code: int) -> NoReturn:
    """End the `fm` process now: its answer is printed, and nothing is left to write."""
    # Tearing down LanceDB, onnxruntime and ~1,500 modules would keep the person waiting ~0.2 s
    # more for nothing; so `fm kb search` and `fm doctor` leave without it, flushed first.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def build_parser() -> argparse.ArgumentParser:
    """Describe every subcommand of DESIGN §4."""
    parser = argparse.ArgumentParser(prog="fm", description="FaultMaven for Slack.")
    parser.set_defaults(read_only=False)
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    run = _add(commands, "run", "start the bot", _run)
    run.add_argument(
        "--http", action="store_true", help="serve HTTP even if SLACK_APP_TOKEN is set"
    )
    run.add_argument("--port", type=int, default=3000, help="HTTP port (default 3000)")
    run.add_argument("--console", action="store_true", help="talk to the bot in this terminal")

    kb = _add(commands, "kb", "knowledge base").add_subparsers(required=True, metavar="ACTION")
    ingest = _add(kb, "ingest", "add files to a knowledge base", _kb_ingest)
    ingest.add_argument("paths", nargs="+", metavar="PATH")
    _add_kb_option(ingest)
    search = _add(kb, "search", "search a knowledge base", _kb_search)
    search.add_argument("query", metavar="QUERY")
    _add_kb_option(search)
    search.add_argument("--json", action="store_true", help="print one JSON object per hit")
    search.set_defaults(read_only=True)

    db = _add(commands, "db", "database").add_subparsers(required=True, metavar="ACTION")
    _add(db, "upgrade", "apply database migrations", _db_upgrade)

    doctor = _add(commands, "doctor", "check the installation and say what to fix", _doctor)
    doctor.add_argument(
        "--deep",
        action="store_true",
        help="also load the embedding model and ask each configured model for a tiny reply",
    )
    doctor.set_defaults(read_only=True)

    mcp = _add(commands, "mcp", "the team's MCP servers").add_subparsers(
        required=True, metavar="ACTION"
    )
    tools = _add(
        mcp, "tools", "start the MCP servers and print the tools the model sees", _mcp_tools
    )
    tools.add_argument("--json", action="store_true", help="print the catalogue as JSON")
    tools.set_defaults(read_only=True)

    catalog = _add(commands, "catalog", "workflow catalog").add_subparsers(
        required=True, metavar="ACTION"
    )
    validate = _add(catalog, "validate", "check a workflow catalog", _catalog_validate)
    validate.add_argument("directory", metavar="DIR", type=Path)

    # The harness parses its own options (`fm eval --help` lists them): with no prefix character
    # of its own, this parser hands every word after `eval` over untouched.
    evaluate = commands.add_parser(
        "eval",
        help="run the evaluation scenarios (the configured model, or a scripted investigator)",
        add_help=False,
        prefix_chars="\0",
    )
    evaluate.set_defaults(command=_eval)
    evaluate.add_argument("eval_args", nargs="*")
    return parser


def _add(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help_text: str,
    command: Command | None = None,
) -> argparse.ArgumentParser:
    parser = commands.add_parser(name, help=help_text, description=help_text)
    if command is not None:
        parser.set_defaults(command=command)
    return parser


def _add_kb_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kb",
        type=_knowledge_base,
        default="global",
        help="global (default) or user:<slack-user-id>",
    )


def _knowledge_base(value: str) -> str:
    if value == "global" or re.fullmatch(r"user:[UW][A-Z0-9]+", value):
        return value
    raise argparse.ArgumentTypeError(f"expected 'global' or 'user:<slack-user-id>', got {value!r}")


def _catalog_validate(args: argparse.Namespace, settings: Settings) -> int:
    from bot.adapters.catalog_files import validate_command

    return validate_command(args.directory)


def _run(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli.console import run_console
    from bot.server.runner import run

    if args.console:
        return run_console(settings)
    if settings.slack_bot_token is None:
        print(
            "fm run: SLACK_BOT_TOKEN is not set. Set it (and SLACK_APP_TOKEN for Socket Mode, or"
            " SLACK_SIGNING_SECRET for HTTP), or try the bot in this terminal: fm run --console",
            file=sys.stderr,
        )
        return EXIT_USAGE
    return run(settings, http=bool(args.http), port=int(args.port))


def _kb_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli.kb import kb_ingest

    return kb_ingest(settings, args.paths, args.kb)


def _kb_search(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli.kb import kb_search

    return kb_search(settings, args.query, args.kb, bool(args.json))


def _db_upgrade(args: argparse.Namespace, settings: Settings) -> int:
    from sqlalchemy.exc import SQLAlchemyError

    from storage.schema.migrate import upgrade

    try:
        upgrade(settings.database_url)
    except (OSError, SQLAlchemyError) as exc:
        print(f"`fm db upgrade` failed: {exc}. Run `fm doctor` for details.", file=sys.stderr)
        return 1
    print("Database schema is up to date.")
    return 0


def _mcp_tools(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli.mcp import mcp_tools

    return mcp_tools(settings, as_json=bool(args.json))


def _eval(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli.eval import run_eval

    return run_eval(settings, args.eval_args)


def _doctor(args: argparse.Namespace, settings: Settings) -> int:
    from bot.cli.doctor import run_doctor

    # The doctor only reads the schema revision; alembic's INFO lines would bury its report.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    return run_doctor(settings, deep=bool(args.deep))
