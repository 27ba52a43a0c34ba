"""The workflow catalog: remediation workflows with the seven mandatory labels and typed parameters.

A workflow is what a person may approve: its steps are the single source of truth for what runs
(the model only picks a workflow and fills its parameters). Values are checked in
``domain.workflows.parameters``; loading YAML files is the edge's business.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from enum import StrEnum
from typing import Any

from pydantic import Field, ValidationInfo, field_validator, model_validator

from domain.base import DomainModel

ANY = "*"
"""A label value that matches every value of that label."""
PRIORITIES = ("P0", "P1", "P2", "P3")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
FILTER_LABELS = ("environment", "priority", "risk_tolerance", "business_category")
"""Business-context labels: the catalog search filters on them (seed, phase 4)."""
_LABEL_VALUE = re.compile(r"^[A-Za-z0-9_.:/*-]{1,100}$")

ParameterValue = str | int | float | bool


class RcaSeverity(StrEnum):
    """The four-level severity model of the seed (the RCA may differ from the signal's)."""

    CRITICAL = "critical"
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


class RiskLevel(StrEnum):
    """Risk of a remediation, and the risk a business context tolerates."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


class ParameterType(StrEnum):
    """Types a workflow parameter may have."""

    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"


def type_matches(kind: ParameterType, value: object) -> bool:
    """Whether ``value`` (as JSON or YAML gave it) is of the parameter type ``kind``."""
    if kind is ParameterType.BOOLEAN:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False  # JSON true is not the number 1
    if kind is ParameterType.INTEGER:
        return isinstance(value, int)
    if kind is ParameterType.NUMBER:
        return isinstance(value, int | float)
    return isinstance(value, str)


class WorkflowParameter(DomainModel):
    """One parameter of a workflow: the model fills it, the validator checks it."""

    name: str = Field(pattern=r"^[A-Z][A-Z0-9_]*$", max_length=64)
    """Exact, case-sensitive name, e.g. TARGET_NAMESPACE."""
    type: ParameterType
    required: bool = True
    description: str = Field(min_length=1, max_length=500)
    enum: list[ParameterValue] | None = Field(default=None, min_length=1)
    """Allowed values (optional)."""
    min: float | None = None
    """Lowest allowed value (integer and number parameters)."""
    max: float | None = None
    """Highest allowed value (integer and number parameters)."""
    pattern: str | None = Field(default=None, max_length=500)
    """Regular expression the whole string value must match (string parameters)."""

    @model_validator(mode="after")
    def _consistent(self) -> WorkflowParameter:
        numeric = self.type in (ParameterType.INTEGER, ParameterType.NUMBER)
        if (self.min is not None or self.max is not None) and not numeric:
            raise ValueError("min/max apply to integer and number parameters only")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("min is greater than max")
        if self.pattern is not None:
            if self.type is not ParameterType.STRING:
                raise ValueError("pattern applies to string parameters only")
            try:
                re.compile(self.pattern)
            except re.error as error:
                raise ValueError(f"pattern does not compile: {error}") from None
        if self.enum is not None:
            wrong = [v for v in self.enum if not type_matches(self.type, v)]
            if wrong:
                raise ValueError(f"enum values {wrong!r} are not of type {self.type.value}")
        return self


class WorkflowLabels(DomainModel):
    """The seven mandatory labels: what a workflow remediates, and where it may be used."""

    signal_type: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,100}$")
    """Canonical event type it remediates, e.g. OOMKilled, KubePodCrashLooping, NodeDiskPressure."""
    severity: list[RcaSeverity] = Field(min_length=1)
    """RCA severities it suits ('*' for all)."""
    component: str = Field(pattern=r"^[a-z0-9_-]{1,60}$")
    """Resource type it acts on: deployment, statefulset, node, pod, hpa…"""
    environment: list[str] = Field(min_length=1)
    """production, staging, development… or '*'."""
    priority: list[str] = Field(min_length=1)
    """P0–P3 or '*'."""
    risk_tolerance: list[str] = Field(min_length=1)
    """Business risk tolerances it is acceptable under: low, medium, high or '*'."""
    business_category: list[str] = Field(min_length=1)
    """e.g. revenue-critical, payment-service, internal-tools, or '*'."""

    @field_validator(
        "severity", "environment", "priority", "risk_tolerance", "business_category", mode="before"
    )
    @classmethod
    def _as_list(cls, value: Any, info: ValidationInfo) -> Any:
        if value == ANY and info.field_name == "severity":
            return list(RcaSeverity)
        return [value] if isinstance(value, str) else value

    @field_validator("environment", "business_category")
    @classmethod
    def _label_values(cls, values: list[str]) -> list[str]:
        bad = [v for v in values if not _LABEL_VALUE.fullmatch(v)]
        if bad:
            raise ValueError(f"not label values: {bad!r}")
        return values

    @field_validator("priority")
    @classmethod
    def _priorities(cls, values: list[str]) -> list[str]:
        bad = [v for v in values if v not in (*PRIORITIES, ANY)]
        if bad:
            raise ValueError(f"priorities must be P0, P1, P2, P3 or '*', not {bad!r}")
        return values

    @field_validator("risk_tolerance")
    @classmethod
    def _tolerances(cls, values: list[str]) -> list[str]:
        allowed = {*(r.value for r in RiskLevel), ANY}
        bad = [v for v in values if v not in allowed]
        if bad:
            raise ValueError(f"risk tolerances must be low, medium, high or '*', not {bad!r}")
        return values

    def accepts(self, label: str, value: str | None) -> bool:
        """Whether this workflow may be used where ``label`` has ``value`` (None: unknown)."""
        if value is None:
            return True
        values = [str(v).lower() for v in getattr(self, label)]
        return ANY in values or value.lower() in values


class LabelFilters(DomainModel):
    """Business context of an incident, used as label filters of the catalog search."""

    environment: str | None = None
    priority: str | None = None
    risk_tolerance: str | None = None
    business_category: str | None = None

    def items(self) -> list[tuple[str, str]]:
        """The filters that are set, as (label, value)."""
        return [(name, value) for name in FILTER_LABELS if (value := getattr(self, name))]

    def describe(self) -> str:
        """``environment=production, priority=P0`` (or 'none')."""
        return ", ".join(f"{name}={value}" for name, value in self.items()) or "none"


class Workflow(DomainModel):
    """A remediation workflow: identity, labels, parameter schema and the exact steps to run."""

    workflow_id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{1,98}[a-z0-9]$")
    version: str = Field(pattern=r"^\d+\.\d+\.\d+$")
    """Semantic version, e.g. 1.2.0."""
    title: str = Field(min_length=1, max_length=200)
    description: str = Field(min_length=1, max_length=2000)
    labels: WorkflowLabels
    parameters: list[WorkflowParameter] = Field(default_factory=list)
    steps: list[str] = Field(min_length=1, max_length=20)
    """Commands run in order; ``{{NAME}}`` is replaced by the approved parameter value."""
    verification: list[str] = Field(default_factory=list, max_length=5)
    """Read-only commands whose output shows the remediation worked."""
    success_criteria: str | None = Field(default=None, max_length=500)
    """What the verification output should show."""
    estimated_duration: str | None = Field(default=None, max_length=50)

    @field_validator("steps", "verification")
    @classmethod
    def _non_blank(cls, lines: list[str]) -> list[str]:
        if any(not line.strip() for line in lines):
            raise ValueError("blank line")
        return [line.strip() for line in lines]

    @model_validator(mode="after")
    def _parameters_known(self) -> Workflow:
        names = [p.name for p in self.parameters]
        if len(names) != len(set(names)):
            raise ValueError("parameter names must be unique")
        unknown = sorted(self.placeholders() - set(names))
        if unknown:
            raise ValueError(f"steps use undeclared parameters: {', '.join(unknown)}")
        return self

    @property
    def key(self) -> str:
        """``workflow_id@version``."""
        return f"{self.workflow_id}@{self.version}"

    @property
    def version_tuple(self) -> tuple[int, ...]:
        """The version as numbers, for ordering."""
        return tuple(int(part) for part in self.version.split("."))

    def parameter(self, name: str) -> WorkflowParameter | None:
        """The parameter with exactly this name."""
        return next((p for p in self.parameters if p.name == name), None)

    def placeholders(self) -> set[str]:
        """Parameter names used in steps and verification commands."""
        return {m.group(1) for line in [*self.steps, *self.verification] for m in _all(line)}


def _all(line: str) -> Iterator[re.Match[str]]:
    return PLACEHOLDER.finditer(line)


class Catalog:
    """Workflows by id and version; the newest version is the default."""

    def __init__(self, workflows: Iterable[Workflow] = ()) -> None:
        self._by_id: dict[str, dict[str, Workflow]] = {}
        for workflow in workflows:
            self._by_id.setdefault(workflow.workflow_id, {})[workflow.version] = workflow

    def __len__(self) -> int:
        return sum(len(versions) for versions in self._by_id.values())

    def __iter__(self) -> Iterator[Workflow]:
        for workflow_id in sorted(self._by_id):
            versions = self._by_id[workflow_id].values()
            yield from sorted(versions, key=lambda w: w.version_tuple)

    def get(self, workflow_id: str, version: str | None = None) -> Workflow | None:
        """That version, or the newest when ``version`` is None."""
        versions = self._by_id.get(workflow_id, {})
        if version is not None:
            return versions.get(version)
        if not versions:
            return None
        return max(versions.values(), key=lambda w: w.version_tuple)

    def latest(self) -> list[Workflow]:
        """The newest version of every workflow (what the search indexes)."""
        return [w for w in (self.get(i) for i in sorted(self._by_id)) if w is not None]

    def digest(self) -> str:
        """A fingerprint of the whole catalog: the index is rebuilt when it changes."""
        canonical = json.dumps([w.model_dump(mode="json") for w in self], sort_keys=True)
        return hashlib.sha256(canonical.encode()).hexdigest()
