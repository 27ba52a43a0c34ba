"""Timestamps in log lines: detect a file's format once, then parse and strip it per line."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTHS = {
    name: number
    for number, name in enumerate(
        ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"), 1
    )
}
_MON = r"(?P<mon>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
_HMS = r"(?P<H>\d{2}):(?P<M>\d{2}):(?P<S>\d{2})(?:[.,](?P<frac>\d{1,9}))?"
_YMD = r"(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})"
_TZ = r"(?P<tz>Z|[+-]\d{2}:?\d{2})?"
_COMPACT = r"(?P<y>\d{2})(?P<m>\d{2})(?P<d>\d{2}) (?P<H>\d{2})(?P<M>\d{2})(?P<S>\d{2})\b"
_SLASHED = r"(?P<y>\d{2})/(?P<m>\d{2})/(?P<d>\d{2}) "
_SAMPLE_LINES = 200
_MIN_YEAR, _MAX_YEAR = 1990, 2100

Parser = Callable[["re.Match[str]", int], datetime | None]


@dataclass(frozen=True)
class TimestampFormat:
    """One way logs write time: a pattern (matched at the start of a line unless `search`)."""

    name: str
    pattern: re.Pattern[str]
    parse: Parser
    search: bool = False

    def find(self, line: str) -> re.Match[str] | None:
        """The timestamp's match in `line`, if this format appears there."""
        if self.search:
            return self.pattern.search(line, 0, 96)
        return self.pattern.match(line)


def _fraction(match: re.Match[str]) -> int:
    frac = match.groupdict().get("frac") or ""
    return int((frac + "000000")[:6])


def _build(year: int, month: int, day: int, match: re.Match[str]) -> datetime | None:
    if not _MIN_YEAR <= year <= _MAX_YEAR:
        return None
    try:
        return datetime(
            year,
            month,
            day,
            int(match.group("H")),
            int(match.group("M")),
            int(match.group("S")),
            _fraction(match),
            tzinfo=UTC,
        )
    except ValueError:
        return None


def _iso(match: re.Match[str], _year: int) -> datetime | None:
    built = _build(int(match["y"]), int(match["m"]), int(match["d"]), match)
    zone = match.group("tz")
    if built is None or not zone or zone == "Z":
        return built
    sign = 1 if zone[0] == "+" else -1
    digits = zone[1:].replace(":", "")
    offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
    return built - sign * offset


def _month_name(match: re.Match[str], year: int) -> datetime | None:
    explicit = match.groupdict().get("y")
    return _build(int(explicit) if explicit else year, MONTHS[match["mon"]], int(match["d"]), match)


def _clf(match: re.Match[str], year: int) -> datetime | None:
    built = _month_name(match, year)
    if built is None:
        return None
    zone = match["tz"]
    offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[3:5]))
    return built - offset if zone[0] == "+" else built + offset


def _two_digit_year(match: re.Match[str], _year: int) -> datetime | None:
    return _build(2000 + int(match["y"]), int(match["m"]), int(match["d"]), match)


def _epoch(match: re.Match[str], _year: int) -> datetime | None:
    digits = match["epoch"]
    seconds = int(digits) / 1000 if len(digits) == 13 else float(digits)
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return moment if _MIN_YEAR <= moment.year <= _MAX_YEAR else None


def _glog(match: re.Match[str], year: int) -> datetime | None:
    return _build(year, int(match["m"]), int(match["d"]), match)


# Ordered by specificity; the format matching most sampled lines wins for the whole file.
FORMATS: tuple[TimestampFormat, ...] = (
    TimestampFormat(
        "iso8601",
        re.compile(_YMD + "[T ]" + _HMS + _TZ),
        _iso,
        search=True,
    ),
    TimestampFormat(
        "apache",
        re.compile(
            r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) "
            + _MON
            + r" (?P<d>\d{2}) "
            + _HMS
            + r" (?P<y>\d{4})\]"
        ),
        _month_name,
    ),
    TimestampFormat(
        "clf",
        re.compile(r"\[(?P<d>\d{2})/" + _MON + r"/(?P<y>\d{4}):" + _HMS + r" (?P<tz>[+-]\d{4})\]"),
        _clf,
        search=True,
    ),
    TimestampFormat(
        "hdfs",
        re.compile(_COMPACT),
        _two_digit_year,
    ),
    TimestampFormat("yy/mm/dd", re.compile(_SLASHED + _HMS), _two_digit_year),
    TimestampFormat("syslog", re.compile(_MON + r" +(?P<d>\d{1,2}) " + _HMS), _month_name),
    TimestampFormat(
        "log4j-date",
        re.compile(r"(?P<d>\d{2}) " + _MON + r" (?P<y>\d{4}) " + _HMS),
        _month_name,
    ),
    TimestampFormat(
        "epoch", re.compile(r"(?:\S{1,16} )?(?P<epoch>\d{13}|\d{10})(?:\.\d+)?\b"), _epoch
    ),
    TimestampFormat("glog", re.compile(r"[IWEF](?P<m>\d{2})(?P<d>\d{2}) " + _HMS), _glog),
)


@dataclass(frozen=True)
class TimestampParser:
    """Parses one file's timestamps in its detected format (`year` for year-less formats)."""

    fmt: TimestampFormat | None
    year: int

    def parse(self, line: str) -> datetime | None:
        """The line's timestamp in UTC (naive times are taken as UTC), or None."""
        if self.fmt is None:
            return None
        match = self.fmt.find(line)
        return self.fmt.parse(match, self.year) if match else None

    def without_timestamp(self, line: str) -> str:
        """The line without its timestamp, so repeated events look alike."""
        if self.fmt is None:
            return line
        match = self.fmt.find(line)
        if match is None:
            return line
        return line[: match.start()] + line[match.end() :]

    def first(self, lines: Sequence[str]) -> datetime | None:
        """The first timestamp found in `lines`."""
        for line in lines:
            moment = self.parse(line)
            if moment is not None:
                return moment
        return None

    def last(self, lines: Sequence[str]) -> datetime | None:
        """The last timestamp found in `lines`."""
        return self.first(lines[::-1])


def detect_format(lines: Sequence[str], year: int) -> TimestampFormat | None:
    """The format that parses most of the first non-blank lines, if it parses at least one."""
    sample = [line for line in lines[: _SAMPLE_LINES * 2] if line.strip()][:_SAMPLE_LINES]
    best: TimestampFormat | None = None
    best_hits = 0
    for fmt in FORMATS:
        hits = sum(1 for line in sample if _parses(fmt, line, year))
        if hits > best_hits:
            best, best_hits = fmt, hits
    return best


def _parses(fmt: TimestampFormat, line: str, year: int) -> bool:
    match = fmt.find(line)
    return match is not None and fmt.parse(match, year) is not None


def timestamp_share(lines: Sequence[str], parser: TimestampParser) -> float:
    """Share of sampled non-blank lines that carry a timestamp (how log-like a text is)."""
    sample = [line for line in lines[: _SAMPLE_LINES * 2] if line.strip()][:_SAMPLE_LINES]
    if not sample or parser.fmt is None:
        return 0.0
    return sum(1 for line in sample if parser.parse(line) is not None) / len(sample)


def parser_for(lines: Sequence[str], now: datetime) -> TimestampParser:
    """A parser for the format these lines use; year-less formats take the latest past year."""
    fmt = detect_format(lines, now.year)
    parser = TimestampParser(fmt, now.year)
    first = parser.first(lines[:_SAMPLE_LINES])
    # Syslog-style lines carry no year: a date "in the future" belongs to last year.
    if first is not None and first > now + timedelta(days=1):
        return TimestampParser(fmt, now.year - 1)
    return parser


def parse_any(text: str, year: int) -> datetime | None:
    """A timestamp anywhere at the start of `text`, trying every known format."""
    for fmt in FORMATS:
        match = fmt.find(text)
        if match is not None:
            moment = fmt.parse(match, year)
            if moment is not None:
                return moment
    return None
