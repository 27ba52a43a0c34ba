"""Reading a command line the way a shell does: quotes, substitutions, operators, redirections.

``lift`` blanks out `$(...)`, `<(...)` and backtick substitutions and hands back their text;
``stages`` cuts what is left into simple commands, each with its words, the files it writes and
the text piped or redirected into it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# How much of what feeds a pipe is kept: enough to spot a download, bounded on long pipelines.
UPSTREAM_KEEP = 500
# Stands in for the text of a `$(...)`, `<(...)` or backtick substitution, one per character.
PLACEHOLDER = "\ue000"
_SUBSTITUTIONS = {"$(": ")", "<(": ")", ">(": ")", "`": "`"}
_DOUBLE_QUOTE = '"'
_OPENERS = {**_SUBSTITUTIONS, "(": ")", _DOUBLE_QUOTE: _DOUBLE_QUOTE}
_SCAN = re.compile(r"\\.|'[^']*'?|\"|\$\(|[<>]\(|`|\(|\)", re.S)
# A word in angle brackets is a placeholder people fill in (`-n <ns>`, `app=<app>`,
# `deploy/<name>`), not two redirections: as written, the shell would refuse to run it at all.
_PLACEHOLDER_WORD = r"<[A-Za-z_][\w.:@/-]*>(?=[\s;|)\"',/:.=@]|$)"
_LEX = re.compile(
    rf"(?P<redir>(?!{_PLACEHOLDER_WORD})\d*(?:>>|>\||>&|>|<<<|<<-?|<&|<>|<)|&>>?)"
    r"|(?P<op>&&|\|\||\|&|;;&?|;&|[;|&\n()])"
    rf"|(?P<word>(?:\\.|'[^']*'?|\"(?:\\.|[^\"\\])*\"?|{_PLACEHOLDER_WORD}|[^\s;|&()<>'\"\\])+)"
    r"|(?P<other>\S)",
    re.S,
)
_QUOTED = re.compile(r"\\(.)|\$'(?P<ansi>[^']*)'?|'([^']*)'?|\$?\"((?:\\.|[^\"\\])*)\"?", re.S)
# ANSI-C quoting (`$'\x72\x6d'` is `rm`): escapes bash decodes before running the command.
_ANSI_ESCAPE = re.compile(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.S
)
_ANSI_LETTERS = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b"}
_ANSI_LETTERS |= {"f": "\f", "v": "\v"}
# `!` outside single quotes recalls shell history in an interactive shell (`!!`, `!rm`, `!-2`);
# bash leaves it alone before a blank, `=`, `(` or a closing double quote, and in `$!`, `${!x}`.
_HISTORY = re.compile(r"'[^']*'?|\\.|(?<!\$)(?<!\$\{)!(?![\s=(\"]|$)", re.S)
_WRITE_REDIRECTS = frozenset({">", ">>", ">|", ">&", "&>", "&>>"})


@dataclass(frozen=True)
class Stage:
    """One simple command: its text, its unquoted words, where it writes, what feeds it."""

    raw: str
    words: list[str]
    writes: list[str]
    upstream: str | None
    reads: list[str]
    """Files redirected into it (`< file`)."""


def lift(text: str) -> tuple[str, list[str]]:
    """Blank out `$(...)`, `<(...)` and backticks (same length) and return their inner text."""
    parts: list[str] = []
    inners: list[str] = []
    pos, in_double = 0, False
    while (m := _SCAN.search(text, pos)) is not None:
        token = m.group()
        if token in _SUBSTITUTIONS and not (in_double and token[0] in "<>"):
            close = _closing(text, m.end(), _SUBSTITUTIONS[token])
            inners.append(text[m.end() : close])
            stop = min(close + 1, len(text))
            parts.append(text[pos : m.start()] + PLACEHOLDER * (stop - m.start()))
            pos = stop
            continue
        end = m.start() + 1 if in_double and token[0] == "'" else m.end()
        in_double ^= token == _DOUBLE_QUOTE
        parts.append(text[pos:end])
        pos = end
    parts.append(text[pos:])
    return "".join(parts), inners


def _closing(text: str, pos: int, closer: str) -> int:
    """Index of the unquoted `closer` ending a substitution that starts at pos (or the end)."""
    stack = [closer]
    while (m := _SCAN.search(text, pos)) is not None:
        token, pos = m.group(), m.end()
        in_double = stack[-1] == '"'
        if token == stack[-1]:
            stack.pop()
            if not stack:
                return m.start()
        elif in_double and token[0] == "'":
            pos = m.start() + 1  # a single quote inside double quotes is an ordinary character
        elif token in _OPENERS and not (in_double and token[0] in "<>("):
            stack.append(_OPENERS[token])
    return len(text)


class _Splitter:
    """Cuts a lifted command line into simple commands, remembering redirections and pipes."""

    def __init__(self, original: str, upstream: str | None) -> None:
        self.original, self.upstream = original, upstream
        self.stages: list[Stage] = []
        self._reset(piped=False)

    def _reset(self, *, piped: bool) -> None:
        self.words: list[str] = []
        self.writes: list[str] = []
        self.reads: list[str] = []
        self.redirect: str | None = None
        self.span: tuple[int, int] | None = None
        self.fed = False
        """Its input is redirected from a file, here-document or substitution."""
        self.piped = piped

    def feed(self, m: re.Match[str]) -> None:
        if m.lastgroup == "op":
            self.flush(piped=self.piped or m.group() in ("|", "|&"))
            return
        self.span = (self.span[0] if self.span else m.start(), m.end())
        if m.lastgroup == "redir":
            self.redirect = m.group().lstrip("0123456789")
        elif m.lastgroup == "word":
            self._word(_unquote(m.group()))

    def _word(self, word: str) -> None:
        redirect, self.redirect = self.redirect, None
        if redirect is None:
            self.words.append(word)
        elif redirect in _WRITE_REDIRECTS and not (redirect[-1] == "&" and _is_fd(word)):
            self.writes.append(word)
        elif redirect.startswith("<"):
            self.fed = True
            if redirect in ("<", "<>"):
                self.reads.append(word)
            if redirect == "<>":  # opened for reading and writing
                self.writes.append(word)

    def flush(self, *, piped: bool) -> None:
        if self.span and (self.words or self.writes):
            start, end = self.span
            upstream = self.upstream
            raw = self.original[start:end].strip()
            if self.piped:
                upstream = (upstream or "") + self.original[max(0, start - UPSTREAM_KEEP) : start]
            if self.fed:
                upstream = (upstream or "") + raw
            upstream = upstream if upstream is None else upstream[-2 * UPSTREAM_KEEP :]
            self.stages.append(Stage(raw, self.words, self.writes, upstream, self.reads))
        self._reset(piped=piped)


def stages(lifted: str, original: str, upstream: str | None) -> list[Stage]:
    """The simple commands of a lifted line, their raw text taken from the original."""
    splitter = _Splitter(original, upstream)
    for m in _LEX.finditer(lifted):
        splitter.feed(m)
    splitter.flush(piped=False)
    return splitter.stages


def _is_fd(word: str) -> bool:
    return word.rstrip("-").isdigit() or word == "-"


def recalls_history(raw: str) -> bool:
    """Whether a command line as typed recalls shell history with `!` (not in a comment)."""
    if raw.lstrip().startswith("#"):
        return False
    return any(m.group().startswith("!") for m in _HISTORY.finditer(raw))


def _unquote(word: str) -> str:
    def plain(m: re.Match[str]) -> str:
        if m.group("ansi") is not None:
            return _ANSI_ESCAPE.sub(_ansi_char, m.group("ansi"))
        if m.group(4) is not None:
            return re.sub(r"\\(.)", r"\1", m.group(4), flags=re.S)
        return m.group(1) if m.group(1) is not None else m.group(3)

    return _QUOTED.sub(plain, word)


def _ansi_char(m: re.Match[str]) -> str:
    code = m.group(1)
    if code[0] in "xuU" and len(code) > 1:
        return chr(min(int(code[1:], 16), 0x10FFFF))
    if code[0] in "01234567":
        return chr(int(code, 8))
    if code[0] == "c" and len(code) > 1:
        return chr(ord(code[1]) & 0x1F)
    return _ANSI_LETTERS.get(code, code)
