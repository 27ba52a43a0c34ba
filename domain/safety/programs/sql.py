"""SQL: what a statement does, and the clients that run it (psql, mysql, sqlite3…).

Every command is checked for SQL it might send (``SQL_PATTERNS``). A SQL client's query is
read-only only when it is a plain query: no write, no schema change, no function that changes the
server (`pg_terminate_backend`), no client command that runs a shell or a script or writes a file.
A client given no query opens an interactive prompt, and one fed its input runs SQL that cannot be
checked. User-defined functions called from a SELECT are not looked into.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from domain.safety.findings import option_values
from domain.safety.rules import (
    READS,
    RUNS_SCRIPT,
    WRITES_FILE,
    D,
    M,
    Pattern,
    R,
    Rule,
    Runs,
    ToolRule,
    Verdict,
    checked,
    opaque,
    opts,
    pattern,
    worst,
)

SQL_FROM_INPUT = opaque("runs SQL read from its input, which cannot be checked")
DB_PROMPT = opaque("opens an interactive database prompt, where anything can be typed")
STOPS_SESSIONS = Rule(M, "stops database sessions")
RUNS_CLIENT_SHELL = opaque("runs a shell command from the database client")
UNKNOWN_CLIENT_COMMAND = opaque("runs a database client command not known to be read-only")
QUERY = Rule(R, "runs a read-only query")
EMPTIES_TABLE = Rule(D, "empties a database table")

# Checked on every simple command except text filters (`grep "DROP TABLE" postgres.log` is fine).
SQL_PATTERNS: tuple[Pattern, ...] = (
    pattern(r"(?i)\bdrop\s+(?:table|database|schema)\b", Rule(D, "drops a database or table")),
    pattern(r"(?i)\bdelete\s+from\b", Rule(D, "deletes database rows")),
    pattern(r"(?i)\bupdate\s+[\w.\"`]+\s+set\b", Rule(M, "updates database rows")),
    pattern(r"(?i)\binsert\s+into\b", Rule(M, "inserts database rows")),
    pattern(r"(?i)\btruncate\s+table\b", EMPTIES_TABLE),
    pattern(
        r"(?i)\b(?:alter|create)\s+(?:table|database|schema|index|user|role|view)\b",
        Rule(M, "changes the database schema"),
    ),
    pattern(
        r"(?i)\b(?:grant|revoke)\s+[\w\s,]{1,200}?\s+(?:on|to|from)\b",
        Rule(M, "changes permissions"),
    ),
)
# What a query sent by a client does, first match wins.
_AT_START = r"(?:^|;)\s*"
QUERY_PATTERNS: tuple[Pattern, ...] = (
    *SQL_PATTERNS,
    pattern(r"(?i)" + _AT_START + r"truncate\b", EMPTIES_TABLE),
    pattern(r"(?i)" + _AT_START + r"drop\b", Rule(D, "drops database objects")),
    pattern(
        r"(?i)\b(?:pg_terminate_backend|pg_cancel_backend)\s*\(|" + _AT_START + r"kill\b",
        STOPS_SESSIONS,
    ),
    pattern(
        r"(?i)\b(?:pg_reload_conf|pg_rotate_logfile\w*|pg_switch_(?:wal|xlog)|pg_create_\w+"
        r"|pg_drop_\w+|pg_promote|pg_wal_replay_\w+|pg_stat_reset\w*|pg_stat_statements_reset"
        r"|pg_\w*advisory\w*|pg_replication_origin_\w+|pg_file_\w+|pg_read_(?:binary_)?file"
        r"|pg_ls_\w+|pg_log_backend_memory_contexts|pg_notify|lo_\w+|nextval|setval|dblink\w*"
        r"|get_lock|release_lock|load_file|sys_exec|sys_eval)\s*\(",
        Rule(M, "calls a server function that is not read-only"),
    ),
    pattern(
        r"(?i)" + _AT_START + r"set\s+(?:global|persist\w*|@@global|password)\b",
        Rule(M, "changes server settings"),
    ),
    pattern(
        r"(?i)(?:^|[\s;(])(?:update|insert|upsert|merge|replace(?!\s*\()|delete|truncate|drop"
        r"|alter|create|grant|revoke|copy|vacuum|reindex|rename|call|into|attach|detach|export)\b"
        r"|" + _AT_START + r"(?:cluster|refresh|checkpoint|do|execute|notify|lock|flush|reset"
        r"|purge|load|shutdown|restart|install|uninstall|import|handler|analyze|optimize|repair"
        r"|comment|security|prepare)\b",
        Rule(M, "changes the database"),
    ),
)
_QUOTED = re.compile(r"'(?:[^']|'')*'?")


# ---------------------------------------------------------------- client commands in a query

_PSQL_READS = opts(
    "l l+ x timing conninfo z sf sf+ sv sv+ encoding pset a t H f q ? h echo qecho set"
    " unset c connect C T dconfig errverbose crosstabview watch g gx gdesc if elif else"
    " endif p print r reset"
)
_PSQL_SCRIPTS = frozenset({"i", "ir", "include", "include_relative"})
_PSQL_META = re.compile(r"\\(!|[A-Za-z_?+]+)([^\\\n]*)")


def _psql(query: str) -> Verdict:
    """Backslash commands outside quoted strings: `\\!` runs a shell, `\\i` a script…"""
    verdicts: list[Verdict] = []
    for m in _PSQL_META.finditer(_QUOTED.sub("''", query)):
        name, rest = m.group(1), m.group(2).strip()
        if name == "!":
            verdicts.append(Runs(text=rest, also=RUNS_CLIENT_SHELL) if rest else DB_PROMPT)
        elif name in _PSQL_SCRIPTS:
            verdicts.append(RUNS_SCRIPT)
        elif name in ("g", "gx") and rest:
            verdicts.append(WRITES_FILE)
        elif not (name.startswith("d") or name in _PSQL_READS):
            verdicts.append(UNKNOWN_CLIENT_COMMAND)
    return _combined(verdicts, query)


_MYSQL_COMMAND = re.compile(
    r"(?i)(?:^|;)\s*(?:(\\!|system)\s+([^;]*)|(source\b|\\\.)|(?:tee|pager|edit)\b|\\[TPe])"
)


def _mysql(query: str) -> Verdict:
    verdicts: list[Verdict] = []
    for m in _MYSQL_COMMAND.finditer(_QUOTED.sub("''", query)):
        if m.group(1):
            verdicts.append(Runs(text=m.group(2), also=RUNS_CLIENT_SHELL))
        else:
            verdicts.append(RUNS_SCRIPT if m.group(3) else UNKNOWN_CLIENT_COMMAND)
    return _combined(verdicts, query)


_DOT_READS = opts(
    "tables schema indexes indices mode headers header stats dbinfo show databases timer"
    " width dump fullschema lint help quit exit echo explain eqp nullvalue separator print"
    " bail changes sha3sum"
)
_DOT_COMMAND = re.compile(r"(?:^|\n|;)\s*\.(\w+)([^\n]*)")


def _sqlite(query: str) -> Verdict:
    verdicts: list[Verdict] = []
    for m in _DOT_COMMAND.finditer(query):
        name, rest = m.group(1).lower(), m.group(2).strip()
        if name in ("shell", "system"):
            verdicts.append(Runs(text=rest, also=RUNS_CLIENT_SHELL))
        elif name == "read":
            verdicts.append(RUNS_SCRIPT)
        elif name not in _DOT_READS:
            verdicts.append(UNKNOWN_CLIENT_COMMAND)
    return _combined(verdicts, _DOT_COMMAND.sub(";", query))


def _plain(query: str) -> Verdict:
    return _statement(query)


def _combined(verdicts: list[Verdict], query: str) -> Verdict:
    rules = [v for v in verdicts if isinstance(v, Rule)] + [_statement(query)]
    runs = next((v for v in verdicts if isinstance(v, Runs)), None)
    if runs is None:
        return worst(rules)
    extra = [runs.also] if runs.also else []
    return Runs(text=runs.text, also=worst([*rules, *extra]))


def _statement(query: str) -> Rule:
    return next((rule for regex, rule in QUERY_PATTERNS if regex.search(query)), QUERY)


# ---------------------------------------------------------------- the clients


@dataclass(frozen=True)
class _Client:
    """How a SQL client takes a query, a script file and an output file on its command line."""

    query: tuple[str, frozenset[str]]
    script: tuple[str, frozenset[str]]
    output: tuple[str, frozenset[str]]
    value_letters: str
    lists: frozenset[str] = opts("-l --list -V --version --help -?")
    meta: Callable[[str], Verdict] = _plain
    dialect_args: Callable[[list[str]], list[str]] | None = None
    """Queries given as arguments after the database file (sqlite3, duckdb)."""


def _after_database(args: list[str]) -> list[str]:
    words, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg.lstrip("-") in _SQLITE_VALUE_OPTIONS
        else:
            words.append(arg)
    return words[1:]


_SQLITE_VALUE_OPTIONS = opts(
    "cmd init separator newline nullvalue mmap vfs maxsize lookaside pagecache heap c s"
)


def _sql_client(client: _Client) -> ToolRule:
    def check(args: list[str], upstream: str | None) -> Verdict:
        def values(spec: tuple[str, frozenset[str]]) -> list[str]:
            return option_values(args, spec[0], spec[1], client.value_letters)

        queries = values(client.query) + (client.dialect_args(args) if client.dialect_args else [])
        scripts, outputs = values(client.script), values(client.output)
        found: list[Verdict] = [WRITES_FILE] if outputs else []
        if scripts:
            found.append(SQL_FROM_INPUT if scripts == ["-"] else RUNS_SCRIPT)
        if not queries and not scripts:
            found.append(_no_query(args, upstream, client))
        found += [client.meta(query) for query in queries]
        return _combined(found, "")

    return checked(check)


def _no_query(args: list[str], upstream: str | None, client: _Client) -> Rule:
    if upstream is not None:
        return SQL_FROM_INPUT
    return READS if any(arg in client.lists for arg in args) else DB_PROMPT


def _sqlite_single_dash(args: list[str]) -> list[str]:
    """sqlite3 and duckdb: `-cmd SQL` and the arguments after the database file."""
    given = [(arg, args[i + 1]) for i, arg in enumerate(args[:-1])]
    commands = [value for arg, value in given if arg in ("-cmd", "-c", "-s")]
    scripts = [f".read {value}" for arg, value in given if arg in ("-init", "--init")]
    return commands + scripts + _after_database(args)


_NONE: tuple[str, frozenset[str]] = ("", frozenset())
SQL_CLIENTS: Mapping[str, ToolRule] = {
    "psql": _sql_client(
        _Client(
            query=("c", opts("--command")),
            script=("f", opts("--file")),
            output=("oL", opts("--output --log-file")),
            value_letters="cdfhLopPTUvFR",
            meta=_psql,
        )
    ),
    **dict.fromkeys(
        ("mysql", "mariadb"),
        _sql_client(
            _Client(
                query=("e", opts("--execute --init-command")),
                script=_NONE,
                output=("", opts("--tee")),
                value_letters="DhPpSuO",
                lists=opts("-V --version --help -?"),
                meta=_mysql,
            )
        ),
    ),
    **dict.fromkeys(
        ("sqlite3", "duckdb"),
        _sql_client(
            _Client(
                query=_NONE,
                script=_NONE,
                output=_NONE,
                value_letters="",
                lists=opts("-version --version -help --help"),
                meta=_sqlite,
                dialect_args=_sqlite_single_dash,
            )
        ),
    ),
    "sqlcmd": _sql_client(
        _Client(("Qq", opts("--query")), ("i", frozenset()), ("o", frozenset()), "SUPdQqioHt")
    ),
    "clickhouse-client": _sql_client(
        _Client(
            ("q", opts("--query")),
            ("", opts("--queries-file")),
            _NONE,
            "qhudp",
            lists=opts("-V --version --help"),
        )
    ),
    "cqlsh": _sql_client(
        _Client(
            ("e", opts("--execute")),
            ("f", opts("--file")),
            _NONE,
            "efuk",
            lists=opts("--version --help"),
        )
    ),
}
