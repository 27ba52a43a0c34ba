"""Deterministic matching of what the bot said against a scenario's accepted and forbidden words."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache

from pydantic import Field, field_validator

from evals.base import EvalModel


@cache
def compiled(pattern: str) -> re.Pattern[str]:
    """A case-insensitive regular expression (cached: scenarios reuse their patterns every turn)."""
    return re.compile(pattern, re.IGNORECASE)


def check_patterns(patterns: Sequence[str]) -> list[str]:
    """Each pattern must compile; raised at load time so a typo never reads as a miss."""
    for pattern in patterns:
        try:
            compiled(pattern)
        except re.error as exc:
            raise ValueError(f"bad pattern {pattern!r}: {exc}") from exc
    return list(patterns)


class Phrasing(EvalModel):
    """An accepted wording: every `all_of` pattern matches, and one `any_of` pattern when given."""

    all_of: list[str] = Field(min_length=1)
    """Regular expressions (case-insensitive) that must all match."""
    any_of: list[str] = Field(default_factory=list)
    """Regular expressions of which at least one must match (ignored when empty)."""

    @field_validator("all_of", "any_of")
    @classmethod
    def _compiles(cls, value: list[str]) -> list[str]:
        return check_patterns(value)

    def matches(self, text: str) -> bool:
        """Does the text say this?"""
        if not all(compiled(p).search(text) for p in self.all_of):
            return False
        return not self.any_of or any(compiled(p).search(text) for p in self.any_of)


def says_any(phrasings: Iterable[Phrasing], text: str) -> bool:
    """True when one of the phrasings matches."""
    return any(p.matches(text) for p in phrasings)


def hits(patterns: Iterable[str], text: str) -> list[str]:
    """The patterns found in the text, in order."""
    return [p for p in patterns if compiled(p).search(text)]


def keyword_score(keywords: Iterable[str], text: str) -> int:
    """How many keywords occur in the text as words (case-insensitive)."""
    return sum(1 for k in keywords if compiled(rf"(?<!\w){re.escape(k)}(?!\w)").search(text))
