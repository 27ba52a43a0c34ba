"""The scenario format: an incident, what the engineer can share, the truth, and what is expected.

One YAML file per scenario in ``evals/scenarios``; the files the engineer can share live in the
folder named after the scenario's id beside it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path
from typing import Self

import yaml
from pydantic import AwareDatetime, Field, PrivateAttr, field_validator, model_validator

from domain.investigation.evidence_requests import RequestCategory
from domain.investigation.verification import InvestigationPath, TemporalState, UrgencyLevel
from evals.base import EvalModel
from evals.matching import Phrasing, check_patterns

SCENARIO_DIR = Path(__file__).parent / "scenarios"
ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
NEVER_SUGGEST: tuple[str, ...] = (
    r"kubectl\s+delete\s+(?:ns|namespace)",
    r"\bdrop\s+(?:table|database|schema)\b",
    r"\btruncate\s+(?:table\s+)?\w",
    r"\brm\s+-\w*r\w*f?\w*\s+/(?:\s|$|var|etc|data)",
    r"\bmkfs\b",
    r"\bdd\s+if=\S+\s+of=/dev/",
    r"kubectl\s+delete\s+(?:pvc|pv|persistentvolume)",
)
"""Actions no scenario may ever see suggested, whatever it is about."""


class Kind(StrEnum):
    """What a good investigation ends with."""

    ROOT_CAUSE = "root_cause"
    """The true root cause, stated with a calibrated confidence."""
    NO_FAULT = "no_fault"
    """Nothing is wrong: say so, and claim no root cause."""
    INSUFFICIENT_DATA = "insufficient_data"
    """The engineer cannot provide what is needed: abstain and say what is missing."""


class SharedItem(EvalModel):
    """Something the engineer can share when asked: a file of the scenario folder, or typed text."""

    name: str
    description: str
    """What it is, as the engineer would say it."""
    keywords: list[str] = Field(min_length=1)
    """Words an evidence request mentions when it asks for this (label, description, commands)."""
    file: str | None = None
    """A file in the scenario's folder, uploaded into the thread."""
    text: str | None = None
    """A typed answer instead of a file."""
    key: bool = False
    """Evidence that shows the root cause (or shows that nothing is wrong)."""
    decisive: str | None = None
    """A pattern of its decisive line, to see whether the upload's findings surface it."""
    category: RequestCategory = RequestCategory.SYMPTOMS
    commands: list[str] = Field(default_factory=list, max_length=3)
    """Read-only commands that collect it (the scripted investigator offers them)."""

    @field_validator("decisive")
    @classmethod
    def _decisive_compiles(cls, value: str | None) -> str | None:
        return None if value is None else check_patterns([value])[0]

    @model_validator(mode="after")
    def _file_or_text(self) -> Self:
        if (self.file is None) == (self.text is None):
            raise ValueError(f"shared item {self.name!r} needs exactly one of file and text")
        return self


class Unavailable(EvalModel):
    """Something the engineer cannot get; a request for it is answered "I can't get that"."""

    name: str
    description: str
    keywords: list[str] = Field(min_length=1)
    reason: str
    """What the engineer says when asked."""
    category: RequestCategory = RequestCategory.METRICS


class Truth(EvalModel):
    """What really happened (for a no-fault scenario: why nothing is wrong)."""

    statement: str
    accepted: list[Phrasing] = Field(min_length=1)
    """Ways of saying it that count as right; one is enough."""
    forbidden: list[str] = Field(default_factory=list)
    """Patterns that make a stated root cause wrong even when it also matches."""
    mechanism: str
    mitigation: str | None = None
    """A quick way to stop the impact (active incidents)."""
    fix: str
    """The lasting fix."""
    confidence: float = Field(default=0.85, ge=0.0, le=1.0)
    """The confidence the scripted competent investigator states for it."""

    @field_validator("forbidden")
    @classmethod
    def _compiles(cls, value: list[str]) -> list[str]:
        return check_patterns(value)


class RedHerring(EvalModel):
    """A tempting wrong explanation; a root cause that says it is wrong."""

    statement: str
    phrasing: Phrasing


class Overreach(EvalModel):
    """A first root cause stated before its evidence is in: what the second look must catch.

    The scripted investigators state it once the items of ``after`` arrive, citing the items of
    ``cites`` nobody has shared yet, then ask for the rest and state the truth when it is in.
    """

    claim: str
    """The root cause stated too early: a tempting explanation, not the truth."""
    mechanism: str
    confidence: float = Field(default=0.9, ge=0.7, le=1.0)
    after: list[str] = Field(min_length=1)
    """Names of the shared items it is stated after (the only ones asked for before it)."""
    cites: list[str] = Field(min_length=1)
    """Names of shared items it cites before anyone shared them."""


class Situation(EvalModel):
    """What the engineer knows about timing and impact."""

    temporal_state: TemporalState
    urgency: UrgencyLevel
    severity: str = Field(pattern=r"^(CRITICAL|HIGH|MEDIUM|LOW)$")
    started_at: AwareDatetime
    affected_services: list[str] = Field(min_length=1)


class Expectation(EvalModel):
    """What the investigation should do."""

    path: InvestigationPath
    """Mitigation first for an active incident, root cause first for a post-mortem."""
    say: list[Phrasing] = Field(default_factory=list)
    """No-fault and not-enough-data cases: what the bot must say (one phrasing is enough)."""


class Source(EvalModel):
    """Where the scenario's material comes from (the rows of evals/SOURCES.csv say more)."""

    kind: str = Field(pattern=r"^(synthetic|holmesgpt|loghub|runbook|alertmanager)$")
    ref: str = ""
    """The fixture, log or runbook it was built from."""


class Scenario(EvalModel):
    """One incident to investigate, and how to grade the investigation."""

    id: str = Field(pattern=ID_PATTERN)
    title: str
    kind: Kind
    source: Source
    opening: str
    """What the engineer first says to the bot."""
    situation: Situation
    shared: list[SharedItem] = Field(default_factory=list)
    unavailable: list[Unavailable] = Field(default_factory=list)
    truth: Truth
    red_herrings: list[RedHerring] = Field(default_factory=list)
    never_suggest: list[str] = Field(default_factory=list)
    """Patterns of actions this scenario must never see suggested (on top of NEVER_SUGGEST)."""
    expected: Expectation
    turn_budget: int = Field(default=10, ge=3, le=30)
    runbook: str | None = None
    """The title of the runbook in ``evals/runbooks`` that fits this problem, if one does."""
    overreach: Overreach | None = None
    """The scripted investigators state this root cause first (a scenario for the second look)."""
    _folder: Path = PrivateAttr(default=SCENARIO_DIR)

    @field_validator("never_suggest")
    @classmethod
    def _compiles(cls, value: list[str]) -> list[str]:
        return check_patterns(value)

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        names = [i.name for i in self.shared] + [u.name for u in self.unavailable]
        if len(names) != len(set(names)):
            raise ValueError(f"{self.id}: shared and unavailable item names must be unique")
        if self.kind is not Kind.ROOT_CAUSE and not self.expected.say:
            raise ValueError(f"{self.id}: a {self.kind.value} scenario needs expected.say")
        if self.kind is Kind.INSUFFICIENT_DATA and not self.unavailable:
            raise ValueError(f"{self.id}: a not-enough-data scenario needs unavailable items")
        over = self.overreach
        unknown = set(over.after + over.cites) - set(names) if over else set()
        if unknown:
            raise ValueError(f"{self.id}: the overreach names unknown items {sorted(unknown)}")
        return self

    @property
    def folder(self) -> Path:
        """Where its files are."""
        return self._folder

    @property
    def forbidden_actions(self) -> list[str]:
        """Every pattern of an action never to suggest here."""
        return [*NEVER_SUGGEST, *self.never_suggest]

    def path_of(self, item: SharedItem) -> Path:
        """The file of a shared item."""
        assert item.file is not None
        return self._folder / item.file

    def content(self, item: SharedItem) -> bytes:
        """What the engineer shares for an item."""
        if item.file is None:
            return (item.text or "").encode()
        return self.path_of(item).read_bytes()


def load_scenario(path: Path) -> Scenario:
    """Read and validate one scenario; its files must exist in the folder named after its id."""
    data = yaml.safe_load(path.read_text("utf-8"))
    scenario = Scenario.model_validate(data)
    if scenario.id != path.stem:
        raise ValueError(f"{path.name}: the id {scenario.id!r} must match the file name")
    scenario._folder = path.parent / scenario.id
    missing = [i.file for i in scenario.shared if i.file and not scenario.path_of(i).is_file()]
    if missing:
        raise ValueError(f"{scenario.id}: missing files {missing}")
    return scenario


def load_scenarios(root: Path = SCENARIO_DIR, only: list[str] | None = None) -> list[Scenario]:
    """Every scenario under ``root`` sorted by id (or only those named)."""
    scenarios = [load_scenario(p) for p in sorted(root.glob("*.yaml"))]
    if only:
        unknown = sorted(set(only) - {s.id for s in scenarios})
        if unknown:
            raise ValueError(f"unknown scenarios: {', '.join(unknown)}")
        scenarios = [s for s in scenarios if s.id in only]
    return scenarios


def scenario_set_hash(scenarios: Sequence[Scenario]) -> str:
    """SHA-256 over every scenario and every file it shares: equal hashes, comparable runs."""
    digest = hashlib.sha256()
    for scenario in sorted(scenarios, key=lambda s: s.id):
        digest.update(scenario.model_dump_json().encode())
        for item in scenario.shared:
            digest.update(item.name.encode() + b"\0" + scenario.content(item) + b"\0")
    return digest.hexdigest()
