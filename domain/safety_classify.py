"""Classifying a command line: every simple command in it, through wrappers, shells and `find`.

``classify_text`` lifts substitutions and splits stages (``domain.safety_shell``), checks each
stage against the tables (``domain.safety_commands``) and recurses into wrapped and nested
commands; ``HANDLERS`` covers the commands that run other code (shells, interpreters, `find`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from domain import safety_rules as rules
from domain.safety_commands import COMMANDS, WRAPPERS
from domain.safety_databases import SQL_CLIENT, SQL_CLIENTS, SQL_FROM_INPUT, SQL_PATTERNS
from domain.safety_findings import (
    MAX_DEPTH,
    Ctx,
    Finding,
    command_name,
    evaluate,
    has_flag,
    lookup,
    matched,
    option_index,
    option_value,
    positionals,
    worst_of,
)
from domain.safety_rules import CommandSafety, Rule, Wrapper
from domain.safety_shell import PLACEHOLDER, UPSTREAM_KEEP, Stage, lift, stages

_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")
_VARIABLE = re.compile(r"\$\{?\w+\}?")
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_ACTIONS = {
    "-delete": Rule(CommandSafety.MUTATING, "deletes the files it finds"),
    **dict.fromkeys(("-fprint", "-fprint0", "-fprintf", "-fls"), rules.WRITES_FILE),
}


def classify_text(text: str, ctx: Ctx) -> Finding:
    """Classify a whole command line: substitutions, then each simple command in it."""
    if ctx.depth > MAX_DEPTH:
        return Finding(rules.TOO_DEEP, text.strip())
    text = text.replace("\\\n", "  ")
    lifted, inners = lift(text)
    piped = ctx.upstream or (text[-UPSTREAM_KEEP:] if "|" in lifted else None)
    inner_ctx = replace(ctx.deeper(), upstream=piped)
    findings = [matched(rules.TEXT_PATTERNS, text, text.strip())]
    findings += [classify_text(inner, replace(inner_ctx, segment=inner)) for inner in inners]
    findings += [_classify_stage(stage, ctx) for stage in stages(lifted, text, ctx.upstream)]
    return worst_of(findings, text.strip())


# ---------------------------------------------------------------- classifying a simple command


def _classify_stage(stage: Stage, ctx: Ctx) -> Finding:
    segment, unquoted = stage.raw, " ".join(stage.words)
    sql = () if stage.words and command_name(stage.words[0]) in rules.SEARCHERS else SQL_PATTERNS
    findings = [
        *(
            matched(patterns, text, segment)
            for patterns in (rules.FILE_PATTERNS, sql)
            for text in (segment, unquoted)
        ),
        *(matched(rules.WRITE_TARGETS, target, segment) for target in stage.writes),
        classify_words(stage.words, Ctx(segment, stage.upstream, ctx.depth)),
    ]
    return worst_of(findings, segment)


def classify_words(words: list[str], ctx: Ctx) -> Finding:
    """Peel wrappers (sudo, env, timeout, xargs, ssh…) and classify the command they run."""
    if ctx.depth > MAX_DEPTH:
        return Finding(rules.TOO_DEEP, ctx.segment)
    first = next((i for i, word in enumerate(words) if not _ASSIGNMENT.match(word)), len(words))
    words = words[first:]
    if words and "/init.d/" in words[0]:  # `/etc/init.d/nginx restart` is `service nginx restart`
        words = ["service", command_name(words[0]), *words[1:]]
    wrapper = WRAPPERS.get(command_name(words[0])) if words else None
    if wrapper is None:
        return _classify_simple(words, ctx)
    rest = _unwrapped(words[1:], wrapper)
    inner = replace(ctx.deeper(), upstream=ctx.upstream if wrapper.keeps_stdin else None)
    if wrapper.text and rest:
        finding = classify_text(" ".join(rest), inner)
    elif rest or not wrapper.privileged:
        finding = classify_words(rest, inner)
    else:  # `sudo -i`, `sudo -s`: a root shell
        finding = Finding(rules.OPENS_SHELL, ctx.segment)
    return replace(finding, privileged=finding.privileged or wrapper.privileged)


def _unwrapped(words: list[str], wrapper: Wrapper) -> list[str]:
    """The wrapped command: skip the wrapper's options, assignments and leading positionals."""
    index, skip = 0, wrapper.skip
    while index < len(words):
        word = words[index]
        if word == "--":
            return words[index + 1 :]
        if word.startswith("-") and len(word) > 1:
            index += 2 if word in wrapper.value_options else 1
        elif _ASSIGNMENT.match(word):
            index += 1
        elif skip > 0:
            skip, index = skip - 1, index + 1
        else:
            break
    return words[index:]


def _classify_simple(words: list[str], ctx: Ctx) -> Finding:
    if not words:
        return Finding(rules.READS, ctx.segment)
    name = command_name(words[0])
    if PLACEHOLDER in name:
        return Finding(rules.RUNS_OUTPUT, ctx.segment)
    if _VARIABLE.fullmatch(words[0]):
        return Finding(rules.VARIABLE_COMMAND, ctx.segment)
    if len(words[0].split()) > 1:  # `"rm -rf /"` as one word, e.g. from `env -S` or `watch`
        return classify_text(" ".join(words), ctx.deeper())
    handler = lookup(HANDLERS, name)
    if handler is not None:
        return handler(name, words[1:], ctx)
    rule = lookup(COMMANDS, name)
    return Finding(evaluate(rule, words[1:]) if rule else rules.UNKNOWN, ctx.segment)


# ---------------------------------------------------------------- shells, interpreters, find


def _shell(name: str, args: list[str], ctx: Ctx) -> Finding:
    code = option_value(args, "c")
    if code is not None:
        return classify_text(code, ctx.deeper())
    reads_stdin = not positionals(args) or has_flag(args, "s")
    return _script(name, args, ctx, reads_stdin=reads_stdin)


def _su(name: str, args: list[str], ctx: Ctx) -> Finding:
    code = option_value(args, "c")
    inner = classify_text(code, ctx.deeper()) if code else None
    return replace(inner or Finding(rules.OPENS_SHELL, ctx.segment), privileged=True)


def _interpreter(name: str, args: list[str], ctx: Ctx) -> Finding:
    spec = lookup(rules.INTERPRETERS, name)
    assert spec is not None  # only registered for the names in rules.INTERPRETERS
    module = option_index(args, "m") if spec.module_flag else None
    if module is not None:
        return classify_words(args[module:], ctx.deeper())
    if spec.inplace_flag and has_flag(args, spec.inplace_flag):
        return Finding(rules.EDITS_IN_PLACE, ctx.segment)
    code = option_value(args, spec.code_flags)
    if code is not None:
        return Finding(_inline_rule(code), ctx.segment)
    return _script(name, args, ctx, reads_stdin=not positionals(args))


def _inline_rule(code: str) -> Rule:
    if PLACEHOLDER in code:
        return rules.RUNS_OUTPUT
    return rules.CHANGES_CODE if rules.INLINE_CHANGES.search(code) else rules.RUNS_INLINE


def _script(name: str, args: list[str], ctx: Ctx, *, reads_stdin: bool) -> Finding:
    """A shell or interpreter running stdin, a substitution, a script file, or a prompt."""
    if ctx.upstream is not None and reads_stdin:
        piped = rules.PIPE_DOWNLOAD if rules.DOWNLOADER.search(ctx.upstream) else rules.PIPE_TEXT
        # A redirected stage (`bash < x`) already ends its upstream; a piped one follows it.
        fed = ctx.upstream.endswith(ctx.segment)
        pipeline = (ctx.upstream if fed else ctx.upstream + ctx.segment).strip()
        return Finding(replace(piped, reason=f"{piped.reason} ({name})"), pipeline)
    if any(PLACEHOLDER in arg for arg in args):
        return Finding(rules.RUNS_OUTPUT, ctx.segment)
    return Finding(rules.RUNS_SCRIPT if positionals(args) else rules.OPENS_SHELL, ctx.segment)


def _eval(name: str, args: list[str], ctx: Ctx) -> Finding:
    text = " ".join(args)
    if PLACEHOLDER in text:
        return Finding(rules.RUNS_OUTPUT, ctx.segment)
    return classify_text(text, ctx.deeper()) if text.strip() else Finding(rules.READS, ctx.segment)


def _source(name: str, args: list[str], ctx: Ctx) -> Finding:
    return _script(name, args, ctx, reads_stdin=True)


def _deferred(name: str, args: list[str], ctx: Ctx) -> Finding:
    """`alias x='...'` and `trap '...' EXIT` hold a command that runs later: classify it now."""
    texts = [arg.partition("=")[2] if "=" in arg else arg for arg in args]
    findings = [classify_text(text, ctx.deeper()) for text in texts if text.strip()]
    return worst_of([Finding(rules.READS, ctx.segment), *findings], ctx.segment)


def _sql_client(name: str, args: list[str], ctx: Ctx) -> Finding:
    if ctx.upstream is not None and option_value(args, "ceq") is None:
        return Finding(SQL_FROM_INPUT, ctx.segment)
    return Finding(evaluate(SQL_CLIENT, args), ctx.segment)


def _find(name: str, args: list[str], ctx: Ctx) -> Finding:
    findings = [Finding(rules.READS, ctx.segment)]
    findings += [Finding(_FIND_ACTIONS[arg], ctx.segment) for arg in args if arg in _FIND_ACTIONS]
    findings += [classify_words(words, ctx.deeper()) for words in _find_execs(args)]
    return worst_of(findings, ctx.segment)


def _find_execs(args: list[str]) -> list[list[str]]:
    """The commands `find` runs through -exec, -execdir, -ok and -okdir."""
    commands: list[list[str]] = []
    current: list[str] | None = None
    for arg in args:
        if current is None:
            current = [] if arg in _FIND_EXEC else None
        elif arg in (";", "+"):
            commands.append(current)
            current = None
        else:
            current.append(arg)
    return [*commands, current] if current else commands


_Handler = Callable[[str, list[str], Ctx], Finding]
HANDLERS: Mapping[str, _Handler] = {
    **dict.fromkeys(rules.SHELLS, _shell),
    **dict.fromkeys(rules.INTERPRETERS, _interpreter),
    "su": _su,
    "eval": _eval,
    **dict.fromkeys(("source", "."), _source),
    **dict.fromkeys(("alias", "trap"), _deferred),
    **dict.fromkeys(SQL_CLIENTS, _sql_client),
    "find": _find,
}
