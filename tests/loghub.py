"""The LogHub samples and runbooks in `tests/data/`, with each log's line-level ground truth."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from tests.paths import LOGHUB, RUNBOOKS

SYSTEMS = ("Apache", "BGL", "HDFS", "Hadoop", "Linux", "OpenSSH", "Spark", "Zookeeper")


@dataclass(frozen=True)
class GroundTruthLine:
    """One structured row: its line number, message content and event template id."""

    line: int
    content: str
    event_id: str
    level: str


@dataclass(frozen=True)
class LogSystem:
    """One LogHub system's 2k-line sample."""

    name: str

    @property
    def log_path(self) -> Path:
        """The raw log file."""
        return LOGHUB / self.name / f"{self.name}_2k.log"

    @property
    def filename(self) -> str:
        """The file's name, as it is cited."""
        return self.log_path.name

    def ground_truth(self) -> list[GroundTruthLine]:
        """Every line's structured row (LineId is the 1-based line number)."""
        path = self.log_path.with_name(self.log_path.name + "_structured.csv")
        with path.open(encoding="utf-8", newline="") as handle:
            return [
                GroundTruthLine(
                    int(row["LineId"]), row["Content"], row["EventId"], row.get("Level", "")
                )
                for row in csv.DictReader(handle)
            ]

    def templates(self) -> dict[str, str]:
        """Event id to template text, for the events present in the 2k sample."""
        path = self.log_path.with_name(self.log_path.name + "_templates.csv")
        with path.open(encoding="utf-8", newline="") as handle:
            return {row["EventId"]: row["EventTemplate"] for row in csv.DictReader(handle)}


def systems() -> list[LogSystem]:
    """All LogHub systems in the test data."""
    return [LogSystem(name) for name in SYSTEMS]


def runbook_files() -> list[Path]:
    """Every runbook document in the test data (markdown, YAML, JSON)."""
    suffixes = {".md", ".yaml", ".yml", ".json"}
    return sorted(path for path in RUNBOOKS.rglob("*") if path.suffix in suffixes)
