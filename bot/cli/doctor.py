"""`fm doctor`: check settings, storage and the embedding model; say what to fix, plainly."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from bot.adapters.object_store import explain_store_error, lancedb_storage_options
from bot.cli.doctor_probes import Migrations, Probes
from bot.settings import Settings, mask_url
from rag.embeddings.model import resolve_model_path
from rag.embeddings.onnx_export import recorded_export

# LanceDB's errors are one line of a Rust debug dump, often over a thousand characters long.
LANCE_REASON_CHARS = 300


class Verdict(StrEnum):
    """How one check came out."""

    OK = "ok"
    WARN = "warn"
    FAIL = "FAIL"


@dataclass(frozen=True)
class Check:
    """One line of the doctor's report."""

    name: str
    verdict: Verdict
    detail: str


def check_settings(settings: Settings) -> Check:
    """Settings were loaded and validated (invalid ones stop `fm` before the doctor runs)."""
    return Check(
        "settings",
        Verdict.OK,
        f"loaded and valid (data directory {settings.data_dir}, log level {settings.log_level}).",
    )


def check_slack(settings: Settings) -> Check:
    """Say which Slack mode the credentials allow."""
    if settings.slack_bot_token is None:
        return Check(
            "slack",
            Verdict.WARN,
            "SLACK_BOT_TOKEN is not set, so the bot cannot talk to Slack and `make run` starts the"
            " local console surface instead. Create the Slack app from manifest.yml (see README)"
            " and set SLACK_BOT_TOKEN (xoxb-…) and SLACK_APP_TOKEN (xapp-…).",
        )
    if settings.socket_mode:
        return Check("slack", Verdict.OK, "bot and app tokens set: Socket Mode.")
    if settings.slack_signing_secret is None:
        return Check(
            "slack",
            Verdict.WARN,
            "SLACK_APP_TOKEN is not set, so the bot would run in HTTP mode, which needs"
            " SLACK_SIGNING_SECRET (Basic Information page of the Slack app) to verify requests."
            " Set SLACK_SIGNING_SECRET, or set SLACK_APP_TOKEN to use Socket Mode.",
        )
    return Check("slack", Verdict.OK, "bot token and signing secret set: HTTP mode.")


def check_llm(settings: Settings) -> Check:
    """Say whether an LLM is configured, and which models each job uses."""
    if not settings.llm_enabled:
        return Check(
            "llm",
            Verdict.WARN,
            "FM_LLM_MODEL is not set, so the bot runs in no-LLM mode: it opens cases, reads files"
            " and answers from the knowledge base with cited excerpts, but does not investigate or"
            " score. Set FM_LLM_MODEL (for example openai/gpt-4o-mini) to enable the LLM.",
        )
    return Check(
        "llm",
        Verdict.OK,
        f"model {settings.llm_model} (fast: {settings.fast_model}, judge: {settings.judge_model});"
        " reachability is not checked yet.",
    )


def check_data_dir(path: Path) -> Check:
    """The data directory exists and is writable, or can be created."""
    if path.is_dir():
        try:
            with tempfile.TemporaryFile(dir=path):
                pass
        except OSError as exc:
            return Check("data directory", Verdict.FAIL, f"{path} is not writable ({exc}).")
        return Check("data directory", Verdict.OK, f"{path} exists and is writable.")
    if path.exists():
        return Check(
            "data directory",
            Verdict.FAIL,
            f"{path} exists but is not a directory; fix FM_DATA_DIR.",
        )
    parent = _nearest_existing(path)
    if parent.is_dir() and _can_create_in(parent):
        return Check("data directory", Verdict.OK, f"{path} will be created on first use.")
    return Check(
        "data directory",
        Verdict.FAIL,
        f"{path} does not exist and cannot be created in {parent}; set FM_DATA_DIR to a writable"
        " place.",
    )


def check_database(url: str, probes: Probes) -> Check:
    """The database answers SELECT 1 and its schema is at the revision this code expects."""
    missing = _missing_sqlite_file(url)
    if missing is not None:
        return Check(
            "database",
            Verdict.WARN,
            f"{missing} does not exist yet: run `fm db upgrade` to create it.",
        )
    try:
        probes.select_one(url)
    except Exception as exc:  # any driver error means "cannot connect"; report it, don't crash
        return Check(
            "database",
            Verdict.FAIL,
            f"cannot connect to {mask_url(url)} ({_reason(exc)}). Check FM_DATABASE_URL and that"
            " the database server is running.",
        )
    try:
        port: Migrations = probes.migrations()
        current, head = port.current_revision(url), port.head_revision()
    except Exception as exc:  # a broken migration setup must not hide the other checks
        return Check(
            "database",
            Verdict.FAIL,
            f"connected, but cannot read the schema revision ({_reason(exc)}).",
        )
    return _revision_check(current, head)


def check_lancedb(
    uri: str,
    list_tables: Callable[[str, Mapping[str, str]], list[str]],
    storage_options: Mapping[str, str] | None = None,
) -> Check:
    """LanceDB opens at the configured location and lists its tables."""
    if "://" not in uri and not Path(uri).exists():
        return Check("lancedb", Verdict.OK, f"{uri} will be created on first use.")
    options = storage_options or {}
    where = mask_url(uri)
    if "aws_endpoint" in options:
        where += f" at {mask_url(options['aws_endpoint'])}"
    try:
        tables = sorted(list_tables(uri, options))
    except Exception as exc:  # lancedb raises many unrelated types; the message is what matters
        meaning = explain_store_error(str(exc))
        if meaning is None:
            meaning = f"{_reason(exc)[:LANCE_REASON_CHARS]}. Check FM_LANCEDB_URI"
        return Check("lancedb", Verdict.FAIL, f"cannot open {where}: {meaning}.")
    names = f": {', '.join(tables)}" if tables else ""
    return Check("lancedb", Verdict.OK, f"{where} opens; {len(tables)} table(s){names}.")


def check_embedding_model(
    configured: str | None, *, deep: bool, dimension: Callable[[Path], int]
) -> Check:
    """The model files are present; with `deep`, the model also loads and embeds."""
    try:
        path = resolve_model_path(configured)
    except FileNotFoundError as exc:
        return Check("embedding model", Verdict.FAIL, str(exc))
    if not deep:
        return Check(
            "embedding model",
            Verdict.OK,
            f"files present at {path} (not loaded; `fm doctor --deep` loads it, ~10 s).",
        )
    started = time.monotonic()
    try:
        size = dimension(path)
    except Exception as exc:  # torch and transformers raise many types; report, don't crash
        return Check("embedding model", Verdict.FAIL, f"{path} does not load ({_reason(exc)}).")
    took = time.monotonic() - started
    return Check(
        "embedding model", Verdict.OK, f"{path} loads in {took:.1f} s and gives {size}-d vectors."
    )


def check_model_copy(configured: str | None, export_dir: Path) -> Check:
    """Whether commands load the embedding model's ONNX copy (<1 s) or torch (~7-10 s)."""
    try:
        made = recorded_export(resolve_model_path(configured), export_dir)
    except FileNotFoundError:
        return Check("model copy", Verdict.WARN, "none, as the embedding model itself is missing.")
    if made is None:
        return Check(
            "model copy",
            Verdict.WARN,
            f"no ONNX copy of the embedding model in {export_dir} yet, so each command and bot"
            " start loads torch (~7-10 s). The next `fm kb ingest` or `fm kb search` makes it,"
            " once (~15 s).",
        )
    if made.unsupported:
        return Check("model copy", Verdict.WARN, f"the model runs on torch: {made.unsupported}.")
    return Check("model copy", Verdict.OK, f"ONNX copy in {made.folder} (loads in under 1 s).")


def collect_checks(
    settings: Settings, *, deep: bool = False, probes: Probes | None = None
) -> list[Check]:
    """Run every check in order; each check reports its own failure instead of stopping the rest."""
    probes = probes or Probes()
    checks = [
        check_settings(settings),
        check_slack(settings),
        check_llm(settings),
        check_data_dir(settings.data_dir),
        check_database(settings.database_url, probes),
        check_lancedb(
            settings.lancedb_uri, probes.lancedb_tables, lancedb_storage_options(settings)
        ),
        check_embedding_model(
            settings.embedding_model, deep=deep, dimension=probes.embedding_dimension
        ),
        check_model_copy(settings.embedding_model, settings.embedding_export_dir),
    ]
    from bot.cli.doctor_mcp import check_mcp  # starts the MCP servers only when configured

    checks.extend(check_mcp(settings, probes.mcp_servers))
    if deep:
        from bot.cli.doctor_models import check_models  # imports the gateway: only when asked

        checks.extend(check_models(settings, probes.llm_models))
    return checks


def run_doctor(settings: Settings, *, deep: bool = False, probes: Probes | None = None) -> int:
    """Print one line per check and a summary; return 1 if anything failed, else 0."""
    checks = collect_checks(settings, deep=deep, probes=probes)
    width = max(len(check.name) for check in checks)
    for check in checks:
        print(f"{check.verdict.value:<4}  {check.name:<{width}}  {check.detail}")
    failed = sum(check.verdict is Verdict.FAIL for check in checks)
    warned = sum(check.verdict is Verdict.WARN for check in checks)
    if failed:
        print(f"{failed} check(s) failed and {warned} warned: fix the FAIL lines above.")
        return 1
    print(f"No failures ({warned} warning(s)).")
    return 0


def _revision_check(current: str | None, head: str) -> Check:
    if current is None:
        return Check("database", Verdict.WARN, "connected, but not migrated: run `fm db upgrade`.")
    if current != head:
        return Check(
            "database",
            Verdict.WARN,
            f"connected, but the schema is at revision {current} and this version expects {head}:"
            " run `fm db upgrade`.",
        )
    return Check("database", Verdict.OK, f"connected; schema is up to date (revision {head}).")


def _missing_sqlite_file(url: str) -> Path | None:
    # Connecting would silently create an empty SQLite file; the doctor only looks.
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    path = Path(parsed.database)
    return None if path.exists() else path


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _can_create_in(directory: Path) -> bool:
    try:
        with tempfile.TemporaryDirectory(dir=directory):
            return True
    except OSError:
        return False


def _reason(exc: BaseException) -> str:
    # Driver messages can span many lines (SQL, hints); the first line says what happened.
    message = mask_url(str(exc).strip())
    first_line = message.splitlines()[0] if message else ""
    return f"{type(exc).__name__}: {first_line}" if first_line else type(exc).__name__
