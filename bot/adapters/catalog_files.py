"""The workflow catalog on disk: YAML files under a directory, read and checked as a whole.

Each YAML document is one workflow (a file may hold several, separated by ``---``). A catalog is
usable only when every document is: `fm catalog validate DIR` lists every problem at once, and the
bot refuses to start on a catalog with any.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from domain.workflows.catalog import Catalog, Workflow
from domain.workflows.checks import workflow_problems

SUFFIXES = (".yaml", ".yml")
MAX_FILE_BYTES = 256 * 1024


class CatalogError(Exception):
    """The catalog cannot be used; ``problems`` says why, file by file."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass
class CatalogReport:
    """What reading a catalog directory found."""

    workflows: list[Workflow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files: int = 0

    @property
    def ok(self) -> bool:
        """No problems at all."""
        return not self.problems


def read_catalog(directory: Path) -> CatalogReport:
    """Every workflow and every problem under ``directory``."""
    report = CatalogReport()
    if not directory.is_dir():
        report.problems.append(f"{directory}: not a directory")
        return report
    paths = sorted(p for p in directory.rglob("*") if p.is_file() and p.suffix in SUFFIXES)
    if not paths:
        report.problems.append(f"{directory}: no workflow files (*.yaml, *.yml)")
    report.files = len(paths)
    seen: dict[str, str] = {}
    for path in paths:
        name = path.relative_to(directory).as_posix()
        for label, workflow in _workflows(path, name, report.problems):
            if workflow.key in seen:
                report.problems.append(
                    f"{label}: {workflow.key} is also defined in {seen[workflow.key]}"
                )
                continue
            seen[workflow.key] = label
            report.workflows.append(workflow)
    return report


def load_catalog(directory: Path) -> Catalog:
    """The catalog, or CatalogError listing every problem."""
    report = read_catalog(directory)
    if not report.ok:
        raise CatalogError(report.problems)
    return Catalog(report.workflows)


def _workflows(path: Path, name: str, problems: list[str]) -> list[tuple[str, Workflow]]:
    documents = _documents(path, name, problems)
    found: list[tuple[str, Workflow]] = []
    for number, document in enumerate(documents, 1):
        label = name if len(documents) == 1 else f"{name} (document {number})"
        workflow = _workflow(document, label, problems)
        if workflow is not None:
            found.append((label, workflow))
    return found


def _documents(path: Path, name: str, problems: list[str]) -> list[Any]:
    if path.stat().st_size > MAX_FILE_BYTES:
        problems.append(f"{name}: larger than {MAX_FILE_BYTES // 1024} KB")
        return []
    try:
        loaded = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, UnicodeDecodeError) as error:
        problems.append(f"{name}: not valid YAML ({_yaml_reason(error)})")
        return []
    return [document for document in loaded if document is not None]


def _workflow(document: Any, label: str, problems: list[str]) -> Workflow | None:
    if not isinstance(document, dict):
        problems.append(f"{label}: expected a mapping with workflow_id, version, title…")
        return None
    ident = str(document.get("workflow_id") or "?")
    try:
        workflow = Workflow.model_validate(document)
    except ValidationError as error:
        problems.extend(f"{label}: {ident}: {reason}" for reason in _reasons(error))
        return None
    unsafe = workflow_problems(workflow)
    problems.extend(f"{label}: {ident}: {reason}" for reason in unsafe)
    return None if unsafe else workflow


def _reasons(error: ValidationError) -> list[str]:
    return [
        f"{'.'.join(str(part) for part in item['loc']) or 'workflow'}: {item['msg']}"
        for item in error.errors()
    ]


def _yaml_reason(error: Exception) -> str:
    mark = getattr(error, "problem_mark", None)
    problem = getattr(error, "problem", None) or str(error)
    return f"line {mark.line + 1}: {problem}" if mark is not None else str(problem)


def validate_command(directory: Path) -> int:
    """`fm catalog validate DIR`: a summary and exit 0, or every problem and exit 1."""
    report = read_catalog(directory)
    if not report.ok:
        print(f"The catalog in {directory} has {len(report.problems)} problem(s):", file=sys.stderr)
        for problem in report.problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    print(f"Catalog OK: {len(report.workflows)} workflows in {report.files} files.")
    for workflow in Catalog(report.workflows):
        labels = workflow.labels
        print(
            f"  {workflow.workflow_id} {workflow.version} — {workflow.title} "
            f"(signal {labels.signal_type}, component {labels.component})"
        )
    return 0
