"""Safety checks a workflow must pass to enter the catalog (beyond its schema).

* No step may be dangerous for the command-safety validator (mutating is what remediation does;
  destroying hosts or data is not).
* Verification commands must be read-only: they are shown as something to run.
* A string parameter put into a command must be constrained by a pattern or an allowed list, so an
  approved value can only ever be what the catalog's author meant.
"""

from __future__ import annotations

from domain.safety import CommandSafety, classify_command
from domain.workflows.catalog import ParameterType, Workflow
from domain.workflows.parameters import fill, sample_value


def workflow_problems(workflow: Workflow) -> list[str]:
    """Everything that keeps a schema-valid workflow out of the catalog."""
    samples = {p.name: sample_value(p) for p in workflow.parameters}
    problems: list[str] = []
    for number, step in enumerate(workflow.steps, 1):
        verdict = classify_command(fill(step, samples))
        if verdict.safety is CommandSafety.DANGEROUS:
            problems.append(f"step {number} is dangerous ({verdict.reason}): {step}")
    for number, command in enumerate(workflow.verification, 1):
        verdict = classify_command(fill(command, samples))
        if not verdict.is_safe:
            problems.append(
                f"verification command {number} is not read-only ({verdict.reason}): {command}"
            )
    used = workflow.placeholders()
    for parameter in workflow.parameters:
        loose = parameter.pattern is None and parameter.enum is None
        if parameter.type is ParameterType.STRING and parameter.name in used and loose:
            problems.append(
                f"parameter {parameter.name} is used in a command but has neither a pattern nor an "
                "enum"
            )
    return problems
