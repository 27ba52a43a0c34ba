"""Judging a command no table knows by its verbs and flags: a guess, always labelled as one.

`fooctl get x`, `fooctl list_queues` and `fooctl --describe` look read-only; `fooctl rollback x
41` and `fooctl set x --policy none` look like they change something. Such a verdict is never
passed off as checked (``Rule.guessed``): people see "not checked: looks read-only — run it if you
agree". A verb that destroys (`delete`, `purge`, `drop`…) is withheld, and so is a read of
something that sounds secret (`get-token`, `show password`). Words are split on `-`, `_` and `.`
(`proxy-status`, `list_queues`); a change anywhere outweighs any number of reads. Words that say
nothing leave the command unknown, withheld with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from domain.safety.rules import D, M, R, Rule, opts

_READ = opts(
    "get list ls describe status history show info inspect logs log top version check health"
    " healthz diff view explain stats events whoami ping lookup tail cat print query-offsets"
    " ps ready readiness liveness lag metrics summary report"
)
_READ_FLAGS = frozenset({"-L", "--list", "--describe", "--version", "-V", "--help", "-h"})
_CHANGE = opts(
    "rollback undo revert set unset patch edit update modify configure apply sync deploy"
    " reconcile release promote publish push restart reload reboot bounce recycle scale resize"
    " autoscale start stop kill halt shutdown pause resume suspend drain create add install"
    " register import put write post send enable disable cordon uncordon mask unmask failover"
    " reset rotate revoke grant seal unseal login logout move migrate rename cancel abort"
    " terminate evict expire run exec execute trigger repair rebuild compact cleanup remove"
    " deregister unregister uninstall detach clear"
)
_DESTROY = opts("delete del rm destroy purge drop truncate wipe flush flushall prune")
_CHANGE_FLAGS = re.compile(r"^--?(?:delete|create|alter|execute|force|set|reset|add|remove)\b")
_SECRET = re.compile(r"(?i)secret|passw|token|credential|private|\bkeys?\b|apikey")
_PARTS = re.compile(r"[-_.]")
_WORD = re.compile(r"^[a-z][a-z0-9_.-]*$")


def guess(path: str, args: Sequence[str]) -> Rule | None:
    """A guessed verdict for an unknown program or subcommand (path: `fooctl app`), else None."""
    words = [arg for arg in args if _WORD.match(arg)]
    flags = [arg.partition("=")[0] for arg in args if arg.startswith("-")]
    destroys = [w for w in words if _parts(w) & _DESTROY]
    if destroys or any(_CHANGE_FLAGS.match(f) and "delete" in f for f in flags):
        verb = destroys[0] if destroys else "--delete"
        return Rule(D, f"looks like it deletes or wipes something ({path} {verb})", guessed=True)
    change = next((w for w in words if _parts(w) & _CHANGE), None)
    change_flag = next((f for f in flags if _CHANGE_FLAGS.match(f)), None)
    if change is not None or change_flag is not None:
        return Rule(M, _changes(path, words, change, change_flag), guessed=True)
    reads = any(_parts(w) & _READ for w in words[:4]) or any(f in _READ_FLAGS for f in flags)
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


def _changes(path: str, words: list[str], verb: str | None, flag: str | None) -> str:
    """What it acts on and the word that says so: "looks like it changes fooctl app (rollback)"."""
    said = verb if verb is not None else flag
    assert said is not None
    before = words[: words.index(verb)] if verb is not None else []
    target = " ".join([path, *before]).strip()
    return f"looks like it changes {target} ({said})"
