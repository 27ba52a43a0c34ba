"""Whether words in free text start a command: the vocabulary the text scanner judges by.

Only the validator says whether a command is safe; this module only says where one starts, from
the validator's own tables of command names. Nothing here depends on what the validator answers for
a word it does not know: a span is only offered to it when it reads like a command line.

Two strengths: at a *command position* (a line's start, after a prompt or a label such as "Fix:",
after "run") a known command name is enough; inside a sentence, a name must be followed by what
only a command line has (an option, a path, a dangerous verb with its object), so prose that merely
mentions a tool stays as written.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Sequence

from domain.safety.classify import HANDLERS
from domain.safety.commands import COMMANDS, WRAPPERS
from domain.safety.findings import command_name, lookup
from domain.safety.guess import is_verb


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Command names that are everyday English words: in a sentence they count only before an option.
ENGLISH = _words(
    "alias at batch case cat column comm cut date dig dir done echo ed eval expr false file find "
    "for free groups halt head host id init install ip kill last less link locale more mount nl od "
    "passwd ping printf reboot route screen seq service shutdown sleep sort source split stat "
    "strings su tail tee test time top touch tr trap tree true type w wait watch which who yes "
    "command exec nice if then else elif while until do exit return"
)
# Words that are never a command inside a sentence (prepositions and shell keywords).
_NOT_MID_SENTENCE = _words("at batch case done for if then else elif while until do !")
# Wrappers that, inside a sentence, are a command only when a command or an option follows.
_PREFIXES = frozenset(WRAPPERS) - ENGLISH - {"!", "{", "}", "ssh", "env", "timeout"}

_VERB = re.compile(
    r"(?i)^(?:delete|del|rm|rmi|rmdir|remove|purge|prune|destroy|drop|truncate|flushall|flushdb|"
    r"flush|kill|killall|pkill|stop|restart|reload|start|scale|rollout|drain|cordon|uncordon|"
    r"taint|apply|patch|edit|replace|set|create|run|exec|install|uninstall|upgrade|downgrade|"
    r"rollback|undo|reset|disable|enable|mask|unmask|reboot|shutdown|poweroff|halt|terminate|"
    r"deregister|detach|push|commit|label|annotate|expose|autoscale|wipe|format|mkfs|update|put|"
    r"modify|move|mv|cp|copy|write|import|load|restore|revoke|evict|failover|promote|resize|"
    r"release|erase|invalidate|clean|checkout|migrate|replicaof|slaveof|unlink|expire|down)"
    r"(?:-[\w-]+)?$"
)
# Function words: after a tool's name or its verb they mean the tool is being talked about.
_STOP = _words(
    "the a an this that these those it its is are was were be been being has have had does did "
    "will would should could can may might must at in on of to for from with by as into onto over "
    "after before during since until when while where why how what which who and or but nor so if "
    "then than because though not no also just only too very failed succeeded worked broke caused "
    "fixed took ran happened completed finished we you they he she i our your their my us them "
    "there here"
)
_OPTION = re.compile(r"^--?[A-Za-z0-9]")
_PATH = re.compile(r"^(?:/|~/|\.{1,2}/)")
_INTEGER = re.compile(r"^\d+$")
_ENV = re.compile(r"^[A-Za-z_]\w*=")
_WORD = re.compile(r"^[a-z][\w+-]*(?:\.\d+)*$")
_NAME = re.compile(r"^[a-z][\w.+-]*$")
_ARGUMENT_LIKE = re.compile(r"^-|[\w][-/:=@][\w]|\d|^<\w")
_RELATIVE = re.compile(r"^[\w.-]+(?:/[\w.-]+)+$")
# What follows a lookup tool: `+short`, `@10.0.0.2`, or a host name (`api.example.com`).
_QUERY = re.compile(r"^(?:\+\w|@\S|[a-z0-9-]+(?:\.[a-z0-9-]+)+\.?$)")
_BIN_PATH = re.compile(r"^(?:\.{1,2}/\S|\S*/s?bin/\S)")
_EDGE = "\"'`(),.;:!?*_"
SQL_START = re.compile(
    r"(?i)^(?:select|insert|update|delete|drop|truncate|alter|create|grant|revoke|replace|merge)"
    r"(?=\s|;|$)"
)
_SQL_WRITE = re.compile(
    r"(?<![\w/\\-])(?:DROP\s+(?:TABLE|DATABASE|SCHEMA|INDEX|VIEW|USER|ROLE)|DELETE\s+FROM|TRUNCATE|"
    r"UPDATE\s+\S+\s+SET|INSERT\s+INTO|ALTER\s+(?:TABLE|DATABASE|USER|ROLE|SYSTEM)|GRANT|REVOKE)\b"
)
_REDIS_WRITE = re.compile(r"(?<![\w/\\-])(?:FLUSHALL|FLUSHDB)(?![\w/-])")


def as_sql(statement: str) -> str:
    """A SQL statement as the command line that would run it, for the validator's SQL rules."""
    return f"psql -c {shlex.quote(statement)}"


def as_redis(command: str) -> str:
    """A Redis command as the command line that would run it."""
    return f"redis-cli {command}"


def written_queries(text: str) -> Iterator[re.Match[str]]:
    """SQL and Redis writes in capitals (`DROP TABLE x`, `FLUSHALL`) anywhere in a sentence."""
    yield from _SQL_WRITE.finditer(text)
    yield from _REDIS_WRITE.finditer(text)


def statement_or_command(text: str) -> str:
    """A line starting with a SQL keyword in capitals as the command that would run it."""
    first = text.split()[0] if text.split() else ""
    return as_sql(text) if first.isupper() and SQL_START.match(text) else text


def query_command(text: str) -> str:
    """A SQL or Redis statement written in prose, as the command line that would run it."""
    return as_redis(text) if _REDIS_WRITE.match(text) else as_sql(text)


def known(word: str) -> bool:
    """A command the validator knows by name (`kubectl`, `/usr/bin/rm`, `mkfs.ext4`, `pip3`)."""
    name = command_name(word)
    tables = (COMMANDS, HANDLERS, WRAPPERS)
    return any(lookup(table, name) is not None for table in tables)


def at_command_position(words: Sequence[str]) -> bool:
    """Whether words starting at a line's start, a prompt or a label are a command line."""
    if not words:
        return False
    first, rest = words[0].lstrip("("), words[1:]
    if not first and rest:
        return at_command_position(rest)
    if _ENV.match(first):  # `FOO=1 kubectl …`, not "maxPoolSize=10 after the deploy"
        return not rest or at_command_position(rest)
    if SQL_START.match(first) and first.isupper():
        return True
    if "/" in first:
        return _program_path(first)
    if not _NAME.match(first):
        return False
    if first in WRAPPERS:
        return bool(rest) and (_is_option(rest[0]) or at_command_position(rest))
    if not known(first):
        return bool(rest) and (_argument(rest[0]) or _tool_line(rest))
    if first in ENGLISH:
        lookup_like = bool(rest) and bool(_QUERY.match(rest[0]))  # `dig +short x.com`, `dig @ns`
        return not rest or _argument(rest[0], numbers=True) or lookup_like or _verb_at(rest, 1)
    return not _reads_as_sentence(rest)


def _program_path(first: str) -> bool:
    """A program by its path: `/usr/bin/kubectl`, `./bin/x`, `bin/kafka-topics.sh` (as Kafka's
    documentation writes it); a path to a file is not a command."""
    if first.startswith(("/", "./", "../", "~/")):
        return known(first) or bool(_BIN_PATH.match(first))
    return bool(_RELATIVE.match(first)) and known(first)


def _tool_line(rest: Sequence[str]) -> bool:
    """An unknown tool's line: a verb right after its name or a noun (`fooctl app rollback x
    41`), no function word, and an argument no sentence has (a name with `-`, a number…)."""
    if not any(is_verb(word) for word in rest[:2]):
        return False
    if any(word.lower().rstrip(_EDGE) in _STOP for word in rest[:3]):
        return False
    return any(_ARGUMENT_LIKE.search(word) for word in rest[1:6])


def in_sentence(words: Sequence[str]) -> bool:
    """Whether words starting inside a sentence are a command line (see the module docstring)."""
    first, rest = words[0].lstrip("("), [w.rstrip(_EDGE) or w for w in words[1:]]
    if first in _NOT_MID_SENTENCE or not rest:
        return False
    if first in _PREFIXES:
        return _is_option(rest[0]) or (_WORD.match(rest[0]) is not None and known(rest[0]))
    if not _named(first):
        return False
    if first in ENGLISH:
        return _is_option(rest[0]) or _verb_at(rest, 1)
    if _argument(rest[0], numbers=True):
        return True
    return any(_verb_at(rest, index) for index in range(min(4, len(rest))))


def _reads_as_sentence(rest: Sequence[str]) -> bool:
    """A function word before any option or path: `git push failed because…`."""
    for word in rest[:3]:
        if _argument(word):
            return False
        if word.lower().rstrip(_EDGE) in _STOP:
            return True
    return False


def _named(word: str) -> bool:
    """A command name as written in a sentence: lower case, or an absolute path to a known one."""
    if word.startswith("/"):
        return known(word)
    if not _WORD.match(word):
        return False
    name = word.rstrip("0123456789.")
    return any(name in table for table in (COMMANDS, HANDLERS))


def _verb_at(rest: Sequence[str], index: int) -> bool:
    """A dangerous verb at index, with no function word before it or right after it."""
    if index >= len(rest) or not _VERB.match(rest[index].rstrip(_EDGE)):
        return False
    before = rest[:index]
    after = rest[index + 1 : index + 2]
    return not any(w.lower().rstrip(_EDGE) in _STOP for w in [*before, *after])


def _is_option(word: str) -> bool:
    return bool(_OPTION.match(word))


def _argument(word: str, *, numbers: bool = False) -> bool:
    return _is_option(word) or bool(_PATH.match(word)) or (numbers and bool(_INTEGER.match(word)))
