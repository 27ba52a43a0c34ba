"""Classifying a command line: every simple command in it, through wrappers, shells and `find`.

``classify_text`` lifts substitutions and splits stages (``domain.safety.shell``), checks each
stage against the tables (``domain.safety.commands``) and recurses into wrapped and nested
commands; ``HANDLERS`` covers the commands that run other code (shells, interpreters, `find`).
A command the tables do not know is never read-only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import replace

from domain.safety import rules
from domain.safety.commands import COMMANDS, WRAPPERS
from domain.safety.findings import (
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
    option_values,
    positionals,
    worst_of,
)
from domain.safety.guess import guess
from domain.safety.programs.messaging import SHIPPED_SCRIPTS
from domain.safety.programs.secrets import secret_files
from domain.safety.programs.sql import SQL_PATTERNS
from domain.safety.rules import CommandSafety, Rule, Verdict, Wrapper
from domain.safety.shell import PLACEHOLDER, UPSTREAM_KEEP, Stage, lift, recalls_history, stages

_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")
# Expansions, brace lists and globs in a command's name: `${RM:-rm}`, `{rm,-rf,/x}`, `/bin/[r]m`.
_COMPUTED = re.compile(r"[$`{}*?\[\]]")
_LITERAL_NAMES = frozenset({"[", "[[", "]]"})
_SCRIPT_PATH = re.compile(r"^(?:\.{1,2}/|~/)|\.(?:sh|bash|zsh|py|pl|rb|js|php|ps1)$")
_STDIN_SCRIPTS = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_ASKS_VERSION = frozenset({"-V", "--version", "-h", "--help"})
_COMMENT = Rule(CommandSafety.READ_ONLY, "is only a comment")
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
    core, names_from_stdin = _core(stage.words)
    name = command_name(core[0]) if core else ""
    sql = () if name in rules.TEXT_FILTERS else SQL_PATTERNS
    inputs = [*stage.reads, *([stage.upstream] if names_from_stdin and stage.upstream else [])]
    secret = secret_files(name, stage.words, inputs)
    findings = [
        *(matched(sql, text, segment) for text in (segment, unquoted)),
        Finding(secret, segment) if secret else None,
        Finding(rules.HISTORY, segment) if recalls_history(segment) else None,
        *(matched(rules.WRITE_TARGETS, target, segment) for target in stage.writes),
        classify_words(stage.words, Ctx(segment, stage.upstream, ctx.depth)),
    ]
    return worst_of(findings, segment)


def _core(words: list[str]) -> tuple[list[str], bool]:
    """The command a stage runs inside its wrappers, and whether it takes names from its input."""
    from_stdin = False
    for _ in range(MAX_DEPTH):
        words = words[_first_command(words) :]
        wrapper = WRAPPERS.get(command_name(words[0])) if words else None
        if wrapper is None or wrapper.text:
            break
        from_stdin = from_stdin or not wrapper.keeps_stdin
        words = _unwrapped(words[1:], wrapper)
    return words, from_stdin


def _first_command(words: list[str]) -> int:
    return next((i for i, word in enumerate(words) if not _ASSIGNMENT.match(word)), len(words))


def classify_words(words: list[str], ctx: Ctx) -> Finding:
    """Peel wrappers (sudo, env, timeout, xargs, ssh…) and classify the command they run."""
    if ctx.depth > MAX_DEPTH:
        return Finding(rules.TOO_DEEP, ctx.segment)
    first = _first_command(words)
    hook = Finding(rules.HOOK_VARIABLE, ctx.segment) if rules.hooks(words[:first]) else None
    words = words[first:]
    if words and "/init.d/" in words[0]:  # `/etc/init.d/nginx restart` is `service nginx restart`
        words = ["service", command_name(words[0]), *words[1:]]
    wrapper = WRAPPERS.get(command_name(words[0])) if words else None
    if wrapper is None:
        return worst_of([hook, _classify_simple(words, ctx)], ctx.segment)
    return worst_of([hook, _classify_wrapped(words, wrapper, ctx)], ctx.segment)


def _classify_wrapped(words: list[str], wrapper: Wrapper, ctx: Ctx) -> Finding:
    rest = _unwrapped(words[1:], wrapper)
    own = words[1 : len(words) - len(rest)]
    inner = replace(ctx.deeper(), upstream=ctx.upstream if wrapper.keeps_stdin else None)
    # The wrapper's own options: a read-only one means nothing runs (`sudo -l`, `ssh -N`), any
    # other adds its risk to the command's (`sudo -e`, `strace -p`, `ssh -o ProxyCommand=`).
    own_finding = matched(wrapper.patterns, " " + " ".join(own), ctx.segment)
    if own_finding is not None and own_finding.rule.safety is CommandSafety.READ_ONLY:
        finding = own_finding
    elif wrapper.text and rest:
        finding = classify_text(" ".join(rest), inner)
    elif rest:
        finding = classify_words(rest, inner)
    else:
        finding = _alone(command_name(words[0]), wrapper, own, ctx)
    hook = Finding(rules.HOOK_VARIABLE, ctx.segment) if rules.hooks(own) else None
    finding = worst_of([own_finding, hook, finding], ctx.segment)
    if wrapper.privileged:
        finding = replace(_elevated(finding), privileged=True)
    return finding


def _alone(name: str, wrapper: Wrapper, own: list[str], ctx: Ctx) -> Finding:
    """A wrapper with no command: nothing, or a shell (`sudo -i`, `ssh host`, `chroot /x`)."""
    alone = wrapper.alone
    if alone is None:
        return Finding(rules.READS, ctx.segment)
    verdict = alone if isinstance(alone, Rule) else evaluate(alone, own, name)[0]
    assert isinstance(verdict, Rule)  # a wrapper's own options never run another command
    if verdict is rules.REMOTE_SHELL and ctx.upstream is not None:
        return _piped_into(name, ctx, rules.REMOTE_INPUT)
    if verdict in (rules.OPENS_SHELL, rules.PRIVILEGED_SHELL) and ctx.upstream is not None:
        return _piped_into(name, ctx, rules.PIPE_TEXT)
    return Finding(verdict, ctx.segment)


def _elevated(finding: Finding) -> Finding:
    """A shell started with sudo (or inside a root-only namespace) is a privileged shell."""
    if finding.rule is rules.OPENS_SHELL:
        return replace(finding, rule=rules.PRIVILEGED_SHELL)
    return finding


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
    word = words[0]
    if word.startswith("#") and ctx.segment.lstrip().startswith("#"):
        return Finding(_COMMENT, ctx.segment)
    if PLACEHOLDER in word:
        return Finding(rules.RUNS_OUTPUT, ctx.segment)
    if word not in _LITERAL_NAMES and _COMPUTED.search(word):
        return Finding(rules.VARIABLE_COMMAND, ctx.segment)
    if len(word.split()) > 1:  # `"rm -rf /"` as one word, e.g. from `env -S` or `watch`
        return classify_text(" ".join(words), ctx.deeper())
    if _SCRIPT_PATH.search(word) and not _shipped(word):  # `./ls.sh` is a script, not `ls`
        return Finding(rules.RUNS_SCRIPT, ctx.segment)
    name = command_name(word)
    handler = lookup(HANDLERS, name)
    if handler is not None:
        return handler(name, words[1:], ctx)
    rule = lookup(COMMANDS, name)
    if rule is None:
        return Finding(guess(name, words[1:]) or rules.UNKNOWN, ctx.segment)
    verdicts = evaluate(rule, words[1:], name, ctx.upstream)
    return worst_of([_resolve(verdict, ctx) for verdict in verdicts], ctx.segment)


def _shipped(word: str) -> bool:
    """A tool shipped as a script (`bin/kafka-topics.sh`): the tables know what it does."""
    name = command_name(word)
    return name.endswith(".sh") and name.removesuffix(".sh") in SHIPPED_SCRIPTS


def _resolve(verdict: Verdict, ctx: Ctx) -> Finding:
    """A table's verdict as a finding; a command the tool runs is classified in turn."""
    if isinstance(verdict, Rule):
        return Finding(verdict, ctx.segment)
    if verdict.words:
        inner = classify_words(list(verdict.words), ctx.deeper())
    elif verdict.text.strip():
        inner = classify_text(verdict.text, replace(ctx.deeper(), segment=verdict.text.strip()))
    else:
        inner = Finding(rules.READS, ctx.segment)
    if verdict.privileged:
        inner = replace(_elevated(inner), privileged=True)
    also = Finding(verdict.also, ctx.segment) if verdict.also else None
    return worst_of([also, inner], ctx.segment)


# ---------------------------------------------------------------- shells, interpreters, find


def _shell(name: str, args: list[str], ctx: Ctx) -> Finding:
    code = option_value(args, "c")
    if code is not None:
        return classify_text(code, ctx.deeper())
    scripts = positionals(args)
    reads_stdin = not scripts or has_flag(args, "s") or scripts[0] in _STDIN_SCRIPTS
    return _script(name, args, ctx, reads_stdin=reads_stdin)


def _su(name: str, args: list[str], ctx: Ctx) -> Finding:
    codes = option_values(args, "cC", frozenset({"--command", "--session-command"}), "sgGw")
    if codes:
        return replace(classify_text(codes[0], ctx.deeper()), privileged=True)
    if ctx.upstream is not None:
        return replace(_piped_into(name, ctx, rules.PIPE_TEXT), privileged=True)
    return Finding(rules.PRIVILEGED_SHELL, ctx.segment, privileged=True)


def _interpreter(name: str, args: list[str], ctx: Ctx) -> Finding:
    spec = lookup(rules.INTERPRETERS, name)
    assert spec is not None  # only registered for the names in rules.INTERPRETERS
    module = option_index(args, "m") if spec.module_flag else None
    if module is not None:  # `-m json.tool` is known by its full name, `http.server` is not
        if "." in args[module] and args[module] not in COMMANDS:
            return Finding(rules.UNKNOWN, ctx.segment)
        return classify_words(args[module:], ctx.deeper())
    if spec.inplace_flag and has_flag(args, spec.inplace_flag):
        return Finding(rules.EDITS_IN_PLACE, ctx.segment)
    code = option_value(args, spec.code_flags) if spec.code_flags else None
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
        return _piped_into(name, ctx, rules.PIPE_TEXT)
    if any(PLACEHOLDER in arg for arg in args):
        return Finding(rules.RUNS_OUTPUT, ctx.segment)
    if args and all(arg in _ASKS_VERSION for arg in args):
        return Finding(rules.READS, ctx.segment)
    return Finding(rules.RUNS_SCRIPT if positionals(args) else rules.OPENS_SHELL, ctx.segment)


def _piped_into(name: str, ctx: Ctx, text_rule: Rule) -> Finding:
    """Text piped or redirected into something that runs it: a download is always dangerous."""
    assert ctx.upstream is not None
    piped = rules.PIPE_DOWNLOAD if rules.DOWNLOADER.search(ctx.upstream) else text_rule
    # A redirected stage (`bash < x`) already ends its upstream; a piped one follows it.
    fed = ctx.upstream.endswith(ctx.segment)
    pipeline = (ctx.upstream if fed else ctx.upstream + ctx.segment).strip()
    return Finding(replace(piped, reason=f"{piped.reason} ({name})"), pipeline)


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
    "find": _find,
}
