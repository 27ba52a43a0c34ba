"""Redacting a text: private key blocks, then the one-line rules, then the rules across lines.

Lines holding a rule's needles are found with a literal scan and only they meet the rule's
pattern; lines are found again only after the text has changed. The number of lines never
changes, so line numbers and citations hold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from domain.redaction.blocks import ACROSS_LINES_NEEDLES, across_lines, line_end, private_keys
from domain.redaction.line_rules import RULES, Rule
from domain.redaction.parts import MARK


@dataclass(frozen=True)
class Redacted:
    """Text with secrets replaced by a marker, and how many secrets were replaced."""

    text: str
    count: int


def redact(text: str) -> Redacted:
    """Replace secrets in `text`; the number of lines never changes, so line numbers still hold."""
    text, count = private_keys(text)
    lowered = text.lower()
    # Several rules share their needles; lines are found again only after the text has changed.
    found_lines: dict[tuple[str, ...], list[tuple[int, int]]] = {}
    for rule in RULES:
        if rule.needles not in found_lines:
            found_lines[rule.needles] = _lines_with(lowered, rule.needles)
        spans = found_lines[rule.needles]
        if spans:
            text, found = _apply(rule, text, spans)
            if found:
                count += found
                lowered = text.lower()
                found_lines.clear()
    if any(needle in lowered for needle in ACROSS_LINES_NEEDLES):
        lines = text.split("\n")
        found = across_lines(lines)
        if found:
            text, count = "\n".join(lines), count + found
    return Redacted(text, count)


def redact_text(text: str) -> str:
    """Just the cleaned text (for messages, titles and alert fields)."""
    return redact(text).text if text else text


def _lines_with(lowered: str, needles: tuple[str, ...]) -> list[tuple[int, int]]:
    """The (start, end) of every line holding a needle: str.find is a fast literal scan, and the
    full patterns then run on the few lines it points at."""
    starts: set[int] = set()
    for needle in needles:
        position = lowered.find(needle)
        while position >= 0:
            start = lowered.rfind("\n", 0, position) + 1
            end = line_end(lowered, position)
            starts.add(start)
            position = lowered.find(needle, end)
    return [(start, line_end(lowered, start)) for start in sorted(starts)]


def _apply(rule: Rule, text: str, spans: list[tuple[int, int]]) -> tuple[str, int]:
    parts: list[str] = []
    previous = total = 0
    masked = [0]

    def replace(match: re.Match[str]) -> str:
        if "value" in match.re.groupindex and match["value"].strip("\"'").startswith(MARK):
            return match.group(0)  # redacted before: text is often redacted at intake and again
        replacement = rule.mask(match)
        if replacement is None:
            return match.group(0)
        masked[0] += 1
        return replacement

    for start, end in spans:
        masked[0] = 0
        line = rule.pattern.sub(replace, text[start:end])
        if masked[0]:
            parts += (text[previous:start], line)
            previous = end
            total += masked[0]
    if not total:
        return text, 0
    parts.append(text[previous:])
    return "".join(parts), total
