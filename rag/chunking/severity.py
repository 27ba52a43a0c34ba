"""Severity levels named in log lines, ranked so windows keep their worst line's level."""

from __future__ import annotations

import re

# Rank by level name; FAILURE (BGL) and ALERT/EMERG/PANIC (syslog) map onto the common scale.
RANKS: dict[str, int] = {
    "TRACE": 10,
    "DEBUG": 10,
    "INFO": 20,
    "NOTICE": 20,
    "WARN": 30,
    "WARNING": 30,
    "ERR": 40,
    "ERROR": 40,
    "FAILURE": 40,
    "SEVERE": 50,
    "CRIT": 50,
    "CRITICAL": 50,
    "FATAL": 50,
    "ALERT": 50,
    "EMERG": 50,
    "PANIC": 50,
}
NAMES: dict[int, str] = {10: "DEBUG", 20: "INFO", 30: "WARN", 40: "ERROR", 50: "CRITICAL"}
CRITICAL_RANK = 50
ERROR_RANK = 40
WARN_RANK = 30
_UPPER = "|".join(sorted(RANKS, key=len, reverse=True))
_LEVEL = re.compile(
    r"\b(?P<upper>" + _UPPER + r")\b"
    r"|\[(?P<bracket>(?i:" + _UPPER + r"))\]"
    r"|(?i:level)[\"']?[=:][ \t]*[\"']?(?P<keyed>(?i:" + _UPPER + r"))\b"
    r"|^(?P<glog>[IWEF])\d{4} "
    # Daemons logging through syslog say it in lower case after their name (sshd: "error: …").
    r"|(?<=: )(?P<daemon>error|fatal|warning|crit|alert|emerg)(?=: )"
)
_GLOG = {"I": "INFO", "W": "WARN", "E": "ERROR", "F": "FATAL"}


def severity_rank(line: str) -> int:
    """The rank of the first level named in `line` (0 when it names none)."""
    match = _LEVEL.search(line)
    if match is None:
        return 0
    if match["glog"]:
        return RANKS[_GLOG[match["glog"]]]
    word = match["upper"] or match["bracket"] or match["keyed"] or match["daemon"]
    return RANKS[word.upper()]


def severity_name(rank: int) -> str | None:
    """The canonical name for a rank (None for 0, no level)."""
    return NAMES.get(rank)
