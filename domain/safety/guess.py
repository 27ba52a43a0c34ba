"""Judging a command no table knows by its verbs and flags: a guess, always labelled as one.

`fooctl get x`, `fooctl list_queues` and `fooctl --describe` look read-only; `fooctl rollback x
41` and `fooctl set x --policy none` look like they change something. Such a verdict is never
passed off as checked (``Rule.guessed``): people see "not checked: looks read-only — run it if you
agree". Withheld: a verb that destroys (`delete`, `purge`, `drop`…), a read of something that
sounds secret (`get-token`, `show password`), anything a secret store shows (`pass show`), and a
verb that runs something else (`exec`, `run`, or a command after `--`). Words are split on `-`,
`_` and `.` (`proxy-status`, `list_queues`); a change anywhere outweighs any number of reads.
Words that say nothing leave the command unknown, withheld with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.safety.rules import D, M, R, Rule, opts

_READ = opts(
    "get list ls describe status history show info inspect logs log top version check health"
    " healthz diff view explain stat stats events whoami ping lookup tail cat print query-offsets"
    " ps ready readiness liveness lag metrics summary report"
)
_READ_FLAGS = frozenset({"-L", "--list", "--describe", "--version", "-V", "--help", "-h"})
_CHANGE = opts(
    "rollback undo revert set unset patch edit update modify configure apply sync deploy"
    " reconcile release promote publish push restart reload reboot bounce recycle scale resize"
    " autoscale start stop kill halt shutdown pause resume suspend drain create add install"
    " register import put write post send enable disable cordon uncordon mask unmask failover"
    " reset rotate revoke grant seal unseal login logout move migrate rename cancel abort"
    " terminate evict expire trigger repair rebuild compact cleanup remove"
    " deregister unregister uninstall detach clear"
)
# Verbs that run something else (a command, a shell, a job): what runs cannot be checked.
_RUNS = opts("exec execute run shell sh bash eval attach ssh console repl")
# Secret stores: whatever they show is a secret.
_SECRET_STORES = opts(
    "pass gopass lpass op bw chamber sops conjur doppler infisical akeyless aws-vault keyring"
    " secret-tool kwallet-query ansible-vault age gpg gpg2 kubeseal security"
)
_DESTROY = opts("delete del rm destroy purge drop truncate wipe flush flushall prune")
_CHANGE_FLAGS = re.compile(r"^--?(?:delete|create|alter|execute|force|set|reset|add|remove)\b")
_SECRET = re.compile(r"(?i)secret|passw|token|credential|private|\bkeys?\b|apikey")
_OUTPUT = frozenset({"-o", "--output", "--out"})
_OUTPUT_FILE = frozenset({"--output-file", "--outfile", "--out-file", "--save", "--write"})
_FILE = re.compile(r"/|\.(?!(?:json|yaml|yml|wide|table|text|txt)$)\w{1,5}$|\.txt$")
_PARTS = re.compile(r"[-_.]")
_WORD = re.compile(r"^[a-z][a-z0-9_.-]*$")


def guess(path: str, args: Sequence[str]) -> Rule | None:
    """A guessed verdict for an unknown program or subcommand (path: `fooctl app`), else None."""
    words = [arg for arg in args if _WORD.match(arg)]
    flags = [arg.partition("=")[0] for arg in args if arg.startswith("-")]
    program = path.split()[0] if path.split() else path
    if program in _SECRET_STORES and args:  # alone, `pass` lists names (and is Python's no-op)
        return Rule(D, f"reads a secret store ({program}), printing secrets", guessed=True)
    runs = next((w for w in words if _parts(w) & _RUNS), "--" if "--" in args else None)
    if runs is not None:
        return Rule(M, f"looks like it runs another command ({path} {runs})", opaque=True)
    return (
        _destroys(path, words, flags)
        or _writes(path, args)
        or _changes(path, words, flags)
        or _reads(path, args)
    )


def _destroys(path: str, words: list[str], flags: list[str]) -> Rule | None:
    destroys = [w for w in words if _parts(w) & _DESTROY]
    destroys += [f for f in flags if _parts(f.lstrip("-")) & _DESTROY]
    if not destroys:
        return None
    verb = destroys[0]
    return Rule(D, f"looks like it deletes or wipes something ({path} {verb})", guessed=True)


def _writes(path: str, args: Sequence[str]) -> Rule | None:
    """An output option naming a file (`-o out.txt`, `--output=/tmp/x`), not a format (json)."""
    for index, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name in _OUTPUT_FILE or (name in _OUTPUT and not eq):
            value = value if eq else (args[index + 1] if index + 1 < len(args) else "")
        elif not (name in _OUTPUT and eq):
            continue
        if name in _OUTPUT_FILE or _FILE.search(value):
            return Rule(M, f"looks like it writes to a file ({path} {name})", guessed=True)
    return None


def _changes(path: str, words: list[str], flags: list[str]) -> Rule | None:
    """What it acts on and the word that says so: "looks like it changes fooctl app (rollback)".

    The first verb says what the command does (`fooctl stat deploy` reads); a flag that changes
    (`--execute`) changes whatever the verb.
    """
    first = next((w for w in words if _parts(w) & (_CHANGE | _READ)), None)
    verb = first if first is not None and _parts(first) & _CHANGE else None
    flag = next((f for f in flags if _CHANGE_FLAGS.match(f)), None)
    if verb is None and flag is None:
        return None
    before = words[: words.index(verb)] if verb is not None else []
    target = " ".join([path, *before]).strip()
    return Rule(M, f"looks like it changes {target} ({verb or flag})", guessed=True)


def _reads(path: str, args: Sequence[str]) -> Rule | None:
    words = [arg for arg in args if _WORD.match(arg)]
    reads = any(_parts(w) & _READ for w in words[:4]) or any(a in _READ_FLAGS for a in args)
    if not reads:
        return None
    if any(_SECRET.search(arg) for arg in args):
        return Rule(D, f"looks like it prints secrets ({path})", guessed=True)
    return Rule(R, "looks read-only", guessed=True)


def is_verb(word: str) -> bool:
    """Whether a word says what a command does (`get`, `list_queues`, `rollback`, `--describe`)."""
    if word.startswith("-"):
        return word in _READ_FLAGS or bool(_CHANGE_FLAGS.match(word))
    return bool(_WORD.match(word)) and bool(_parts(word) & (_READ | _CHANGE | _DESTROY))


def _parts(word: str) -> set[str]:
    return {word.lower(), *_PARTS.split(word.lower())}
