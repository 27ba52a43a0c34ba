"""Synthetic logs built from the shared LogHub samples: real messages, new times and ids.

Each burst copies a run of consecutive structured rows from one LogHub system (so neighbouring
lines look like they do in real logs), renumbers their digits and gives them fresh increasing ISO
timestamps. A few bursts come from a newly seen host, named in letters the masking keeps: new
hosts and services are what make real logs' template counts grow with their length.
"""

from __future__ import annotations

import csv
import random
import string
from datetime import UTC, datetime, timedelta

from tests.loghub import LogSystem, systems

START = datetime(2025, 10, 21, tzinfo=UTC)
LEVELS = {
    "notice": "INFO",
    "error": "ERROR",
    "warn": "WARN",
    "warning": "WARN",
    "fatal": "FATAL",
    "severe": "ERROR",
    "failure": "ERROR",
}
NEW_HOST_SHARE = 0.012


def _rows(system: LogSystem) -> list[tuple[str, str, str]]:
    path = system.log_path.with_name(system.log_path.name + "_structured.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        return [
            (system.name, _level(row.get("Level", "")), row["Content"].strip()) for row in reader
        ]


def _level(raw: str) -> str:
    level = raw.strip()
    if level.upper() in ("INFO", "WARN", "ERROR", "FATAL", "DEBUG"):
        return level.upper()
    return LEVELS.get(level.lower(), "INFO")


def synthetic_lines(count: int, seed: int = 7) -> list[str]:
    """`count` log lines in one ISO-timestamped format, built from every LogHub system."""
    rng = random.Random(seed)
    sources = [_rows(system) for system in systems()]
    lines: list[str] = []
    moment = START
    while len(lines) < count:
        rows = rng.choice(sources)
        first = rng.randrange(len(rows))
        burst = rows[first : first + rng.randint(20, 200)]
        digits = list(string.digits)
        rng.shuffle(digits)
        renumber = str.maketrans(string.digits, "".join(digits))
        host = ""
        if rng.random() < NEW_HOST_SHARE:
            host = "-" + "".join(rng.choices(string.ascii_lowercase, k=8))
        for system, level, content in burst:
            moment += timedelta(milliseconds=rng.randint(0, 40))
            stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
            text = content.translate(renumber)
            lines.append(f"{stamp} {level} [{system.lower()}{host}] {text}")
    return lines[:count]


def synthetic_log(count: int, seed: int = 7) -> bytes:
    """The same lines as one UTF-8 file ending with a newline."""
    return ("\n".join(synthetic_lines(count, seed)) + "\n").encode("utf-8")
