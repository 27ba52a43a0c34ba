"""The real Slack samples in `tests/data/slack/`, and Slack-shaped ids and timestamps."""

from __future__ import annotations

import copy
import itertools
import json
import secrets
import time
from functools import cache
from typing import Any

from tests.paths import SLACK_SAMPLES

_serial = itertools.count(1)
_last_ts_us = 0


@cache
def _read(relative: str) -> str:
    return (SLACK_SAMPLES / relative).read_text(encoding="utf-8")


def load_sample(relative: str) -> dict[str, Any]:
    """A fresh, mutable copy of a JSON sample (path relative to the samples directory)."""
    data: dict[str, Any] = json.loads(_read(relative))
    return copy.deepcopy(data)


def load_text_sample(relative: str) -> str:
    """A text sample (e.g. the slash command form body)."""
    return _read(relative).strip()


def next_ts() -> str:
    """A Slack message timestamp: unique and increasing across the whole test process."""
    global _last_ts_us  # one clock shared by the fake and the payload builders
    _last_ts_us = max(int(time.time() * 1_000_000), _last_ts_us + 1)
    return f"{_last_ts_us // 1_000_000}.{_last_ts_us % 1_000_000:06d}"


TRIGGER_TTL_S = 3.0
"""How long Slack honours a trigger id: "expires in three seconds" (Slack's modal docs)."""


def new_trigger_id() -> str:
    """A trigger id as Slack issues one (``<digits>.<digits>.<hex>``); its first part is the
    time it was issued, in milliseconds, so the fake can tell when it has expired."""
    return f"{int(time.time() * 1000)}.{next(_serial):09d}.{secrets.token_hex(16)}"


def trigger_age_s(trigger_id: str) -> float | None:
    """How old a trigger id issued by `new_trigger_id` is (None for any other id)."""
    issued = trigger_id.split(".", 1)[0]
    if not issued.isdigit() or len(issued) < 13:
        return None
    return time.time() - int(issued) / 1000


def new_id(prefix: str) -> str:
    """A Slack-looking id (`F…`, `V…`, `Ev…`), unique within the process."""
    return f"{prefix}0{next(_serial):06d}{secrets.token_hex(2).upper()}"
