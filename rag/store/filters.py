"""Metadata filters: the scope every query is confined to, and filters read from the question."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from rag.chunking.severity import CRITICAL_RANK, ERROR_RANK, WARN_RANK

_SAFE_ID = re.compile(r"[A-Za-z0-9_.:@*-]{1,128}")
_FILE = re.compile(
    r"(?i)\b[\w.-]+\.(?:log|txt|out|err|ya?ml|json|jsonl|ini|conf|cfg|toml|md|csv|properties)"
    r"(?:\.gz)?\b"
)
_SEVERITY_WORDS = (
    (re.compile(r"\b(?:FATAL|CRITICAL|CRIT)\b|(?i:\b(?:fatal|critical)\b)"), CRITICAL_RANK),
    (
        re.compile(r"\bERRORS?\b|(?i:\berrors\b|\berror (?:lines|entries|messages|logs|level)\b)"),
        ERROR_RANK,
    ),
    (
        re.compile(
            r"\bWARN(?:ING)?S?\b|(?i:\bwarnings\b|\bwarn(?:ing)? (?:lines|entries|level)\b)"
        ),
        WARN_RANK,
    ),
)
_DATE_TIME = re.compile(
    r"(?P<date>\d{4}-\d{2}-\d{2})(?:[T ](?P<time>\d{1,2}:\d{2}(?::\d{2})?))?Z?"
    r"|(?<![\d:])(?P<tod>\d{1,2}:\d{2}(?::\d{2})?)(?![\d:])"
)
_AFTER = re.compile(r"(?i)\b(?:after|since|from|starting)\b")
_BEFORE = re.compile(r"(?i)\b(?:before|until|till|up to)\b")
AROUND = timedelta(minutes=5)
DAY_SECONDS = 86_400


class InvalidScopeError(ValueError):
    """An id that cannot name a workspace, case or user."""


def quote(value: str) -> str:
    """A SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def check_id(value: str, what: str) -> str:
    """`value` if it is a plausible Slack/case id, else InvalidScopeError naming `what`."""
    if not _SAFE_ID.fullmatch(value):
        raise InvalidScopeError(f"{what} {value!r} is not a valid id")
    return value


@dataclass(frozen=True)
class Scope:
    """The rows a query may see: workspaces (own and installation-wide), KB and scope id."""

    team_ids: tuple[str, ...]
    kb: str
    scope_id: str

    def where(self) -> str:
        """The SQL prefilter applied to every query."""
        teams = ", ".join(quote(team) for team in self.team_ids)
        return (
            f"team_id IN ({teams}) AND kb = {quote(self.kb)} AND scope_id = {quote(self.scope_id)}"
        )


@dataclass(frozen=True)
class DerivedFilters:
    """Filters the question implies: files it names, a severity, a time range."""

    sources: tuple[str, ...] = ()
    min_severity: int = 0
    since: datetime | None = None
    until: datetime | None = None
    day_seconds: tuple[int, int] | None = None

    def where(self) -> str | None:
        """SQL for these filters, or None when the question implies none."""
        parts = []
        if self.sources:
            parts.append(f"source IN ({', '.join(quote(source) for source in self.sources)})")
        if self.min_severity:
            parts.append(f"severity_rank >= {self.min_severity}")
        if self.since is not None:
            parts.append(f"ts_last >= {_timestamp(self.since)}")
        if self.until is not None:
            parts.append(f"ts_first <= {_timestamp(self.until)}")
        if self.day_seconds is not None:
            start, end = self.day_seconds
            parts.append(f"tod_last >= {start} AND tod_first <= {end}")
        return " AND ".join(parts) or None

    def content_query(self, question: str) -> str:
        """The question without the file names it filters on (they are metadata, not text)."""
        if not self.sources:
            return question
        stripped = _FILE.sub(" ", question)
        stripped = re.sub(r"(?i)\b(?:in|from|of)\s*(?=[?.!,]?\s*$)", "", stripped.strip())
        return " ".join(stripped.split()) or question

    def relaxations(self) -> list[str | None]:
        """Filters to try in turn: all of them, then only the named files, then none."""
        files_only = DerivedFilters(sources=self.sources).where()
        return list(dict.fromkeys([self.where(), files_only, None]))


def _timestamp(moment: datetime) -> str:
    return f"CAST({quote(moment.astimezone(UTC).strftime('%Y-%m-%dT%H:%M:%S'))} AS TIMESTAMP)"


def derive_filters(question: str) -> DerivedFilters:
    """Read files, severity and time range from the question's words."""
    sources = tuple(dict.fromkeys(_strip_gz(match) for match in _FILE.findall(question)))
    since, until, day = _time_range(question)
    return DerivedFilters(
        sources=sources,
        min_severity=_severity(question),
        since=since,
        until=until,
        day_seconds=day,
    )


def _strip_gz(name: str) -> str:
    return name[:-3] if name.lower().endswith(".gz") else name


def _severity(question: str) -> int:
    ranks = [rank for pattern, rank in _SEVERITY_WORDS if pattern.search(question)]
    return min(ranks) if ranks else 0


def _time_range(
    question: str,
) -> tuple[datetime | None, datetime | None, tuple[int, int] | None]:
    moments = list(_DATE_TIME.finditer(question))
    if not moments:
        return None, None, None
    dated = [match for match in moments if match["date"]]
    if dated:
        return _dated_range(question, dated)
    return None, None, _day_range(question, moments)


def _dated_range(
    question: str, matches: list[re.Match[str]]
) -> tuple[datetime | None, datetime | None, None]:
    first = _moment(matches[0])
    if len(matches) >= 2:
        return first, _moment(matches[1], end_of_day=True), None
    prefix = question[: matches[0].start()]
    if _AFTER.search(prefix):
        return first, None, None
    if _BEFORE.search(prefix):
        return None, _moment(matches[0], end_of_day=True), None
    if matches[0]["time"]:
        return first - AROUND, first + AROUND, None
    return first, first + timedelta(days=1), None


def _moment(match: re.Match[str], *, end_of_day: bool = False) -> datetime:
    day = datetime.strptime(match["date"], "%Y-%m-%d").replace(tzinfo=UTC)
    if not match["time"]:
        return day + timedelta(days=1) if end_of_day else day
    return day + timedelta(seconds=_seconds(match["time"]))


def _seconds(text: str) -> int:
    parts = [int(part) for part in text.split(":")] + [0]
    return parts[0] * 3600 + parts[1] * 60 + parts[2]


def _day_range(question: str, matches: list[re.Match[str]]) -> tuple[int, int] | None:
    times = [_seconds(match["tod"]) for match in matches if match["tod"]]
    if any(value >= DAY_SECONDS for value in times):
        return None
    if len(times) >= 2:
        return min(times[:2]), max(times[:2])
    prefix = question[: matches[0].start()]
    if _AFTER.search(prefix):
        return times[0], DAY_SECONDS - 1
    if _BEFORE.search(prefix):
        return 0, times[0]
    around = int(AROUND.total_seconds())
    return max(0, times[0] - around), min(DAY_SECONDS - 1, times[0] + around)
