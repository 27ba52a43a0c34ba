"""People in the core's own words: a neutral reference the renderers turn into a mention.

The core writes sentences about people ("{@U123} answered yes") without knowing how a surface
names them; Slack's renderers write ``<@U123>``, the console ``@U123``, a prompt to the model keeps
the id. The same references stay readable in stored text (status history, reasons).
"""

from __future__ import annotations

import re

PERSON = re.compile(r"\{@([A-Za-z0-9_.-]+)\}")
"""A reference to one person, as `mention` writes it."""


def mention(user_id: str | None) -> str:
    """A reference to the person ``user_id`` inside a sentence ("someone" when nobody is known)."""
    return f"{{@{user_id}}}" if user_id else "someone"


def named(text: str, style: str = "@{}") -> str:
    """``text`` with each person reference written in ``style`` (``{}`` is the user id)."""
    return PERSON.sub(lambda m: style.format(m.group(1)), text)
