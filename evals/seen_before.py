"""Seen before, measured: is a repeat incident matched to its past case, and nothing else?

``past_cases/history.yaml`` is a workspace's finished cases; each writes its case report and
runbook (the template versions, as the bot writes them without a model) into a real knowledge
service, marked with the case. ``past_cases/scenarios.yaml`` holds new problems, paraphrased,
each with the past case that should be offered or none (a new incident, or a trap: a past case
graded wrong, one closed without a fix, the same service with another symptom). Each new case
goes through the bot's own use case (``domain.memory``); precision is how many offers named the
right past case, recall how many repeats were offered theirs.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Literal

import yaml
from pydantic import AwareDatetime

from domain.case import Case
from domain.engine.documents import fallback_report, fallback_runbook
from domain.errors import NotFoundError
from domain.investigation.conclusions import RootCauseConclusion, Solution, SolutionType
from domain.knowledge import KnowledgeBaseKind, ToolStatus
from domain.memory import DEFAULT_RULE, CaseDocumentIndex, Eligible, MatchRule, eligible_candidates
from domain.outcomes import Outcome, Verdict
from evals.base import EvalModel
from evals.scoring.seen_before import SeenBeforeScenario, SeenBeforeSummary, summarize
from rag.embeddings.embedder import Embedder, SentenceTransformerEmbedder
from rag.embeddings.model import resolve_model_path
from rag.service import KnowledgeService, as_case_document_index, open_knowledge_service

PAST_CASES_DIR = Path(__file__).parent / "past_cases"
TEAM = "T_EVAL"
CHANNEL = "C_EVAL"
UPLOAD_LIMIT = 1024 * 1024


class NotMeasuredError(RuntimeError):
    """The history could not be stored (no embedding model, a full disk…)."""


class PastCaseSpec(EvalModel):
    """One finished case of the workspace."""

    id: str
    problem: str
    root_cause: str
    mechanism: str
    fix: str
    resolved_at: AwareDatetime
    verdict: Verdict
    status: Literal["resolved", "closed"] = "resolved"


class SeenBeforeSet(EvalModel):
    """The workspace's history and the new cases measured against it."""

    past_cases: list[PastCaseSpec]
    scenarios: list[SeenBeforeScenario]


def load_set(root: Path = PAST_CASES_DIR) -> SeenBeforeSet:
    """The history and the scenarios; every expected past case must exist."""
    history = yaml.safe_load((root / "history.yaml").read_text("utf-8"))
    scenarios = yaml.safe_load((root / "scenarios.yaml").read_text("utf-8"))
    loaded = SeenBeforeSet.model_validate({**history, **scenarios})
    known = {spec.id for spec in loaded.past_cases}
    unknown = sorted({s.expected for s in loaded.scenarios if s.expected} - known)
    if unknown:
        raise ValueError(f"expected past cases not in the history: {', '.join(unknown)}")
    return loaded


def past_case(spec: PastCaseSpec) -> Case:
    """The finished case as the bot would have kept it."""
    fix = Solution(
        solution_type=SolutionType.OTHER,
        title=spec.fix,
        proposed_at=spec.resolved_at,
        applied_at=spec.resolved_at if spec.status == "resolved" else None,
    )
    case = Case.model_validate(
        {
            "case_id": f"case_{spec.id.lower().replace('-', '_')}",
            "short_id": spec.id,
            "team_id": TEAM,
            "channel_id": CHANNEL,
            "thread_ts": f"{int(spec.resolved_at.timestamp())}.000100",
            "user_id": "U_EVAL",
            "status": spec.status,
            "created_at": spec.resolved_at,
            "updated_at": spec.resolved_at,
            "resolved_at": spec.resolved_at if spec.status == "resolved" else None,
            "closed_at": spec.resolved_at,
            "solutions": [fix],
        }
    )
    case.consulting.proposed_problem_statement = spec.problem
    case.root_cause_conclusion = RootCauseConclusion(
        root_cause=spec.root_cause,
        mechanism=spec.mechanism,
        confidence_score=0.8,
        determined_at=spec.resolved_at,
    )
    case.documentation.runbook_entry = f"Runbook: {spec.problem}"[:200]
    return case


def new_case(scenario: SeenBeforeScenario, now: datetime) -> Case:
    """A new case whose problem people just confirmed."""
    case = Case(
        team_id=TEAM,
        channel_id=CHANNEL,
        thread_ts=f"{int(now.timestamp())}.000200",
        user_id="U_EVAL",
        created_at=now,
        updated_at=now,
    )
    case.consulting.proposed_problem_statement = scenario.problem
    case.consulting.problem_statement_confirmed = True
    return case


class _Cases:
    """The history by case id (a CaseLookup)."""

    def __init__(self, cases: Iterable[Case]) -> None:
        self._cases = {case.case_id: case for case in cases}

    async def get(self, case_id: str) -> Case:
        if case_id not in self._cases:
            raise NotFoundError(case_id)
        return self._cases[case_id]


class _Outcomes:
    """Each past case's graded outcome (an OutcomeLookup)."""

    def __init__(self, outcomes: Iterable[Outcome]) -> None:
        self._outcomes = {outcome.case_id: outcome for outcome in outcomes}

    async def get(self, case_id: str) -> Outcome | None:
        return self._outcomes.get(case_id)


def outcome_of(case: Case, spec: PastCaseSpec) -> Outcome:
    """The graded outcome calibration recorded for the past case."""
    return Outcome(
        team_id=TEAM,
        case_id=case.case_id,
        verdict=spec.verdict if spec.status == "resolved" else Verdict.NO_OUTCOME,
        reason="from the evaluation's history",
        finished_at=spec.resolved_at,
        recorded_at=spec.resolved_at,
    )


async def remember(service: KnowledgeService, cases: Sequence[Case]) -> None:
    """Each past case's report and runbook in the knowledge base, marked with the case.

    The case closed without a fix is written too, so the rule, not its absence, leaves it out.
    """
    for case in cases:
        problem = case.consulting.proposed_problem_statement or ""
        for title, markdown in (
            (f"Case report: {problem}"[:200], fallback_report(case)),
            (case.documentation.runbook_entry or "", fallback_runbook(case)),
        ):
            report = await service.save_document(
                team_id=TEAM,
                kb=KnowledgeBaseKind.GLOBAL,
                scope_id=None,
                title=title,
                markdown=markdown,
                case_id=case.case_id,
            )
            if report.status is not ToolStatus.OK:
                raise NotMeasuredError(f"the history could not be stored: {report.error}")


async def candidates(
    loaded: SeenBeforeSet,
    index: CaseDocumentIndex,
    cases: Sequence[Case],
    rule: MatchRule = DEFAULT_RULE,
) -> dict[str, list[Eligible]]:
    """For each scenario, the eligible past cases the bot's use case found, best first."""
    lookup = _Cases(cases)
    by_short = {case.short_id: case for case in cases}
    outcomes = _Outcomes(outcome_of(by_short[s.id], s) for s in loaded.past_cases)
    found: dict[str, list[Eligible]] = {}
    for scenario in loaded.scenarios:
        case = new_case(scenario, max(s.resolved_at for s in loaded.past_cases))
        found[scenario.id] = await eligible_candidates(
            case=case, index=index, cases=lookup, outcomes=outcomes, rule=rule
        )
    return found


async def measure(
    embedder: Embedder, *, rules: Sequence[MatchRule] = (DEFAULT_RULE,), root: Path = PAST_CASES_DIR
) -> list[SeenBeforeSummary]:
    """Store the history in a fresh knowledge base and measure each rule over the scenarios."""
    loaded = load_set(root)
    cases = [past_case(spec) for spec in loaded.past_cases]
    with tempfile.TemporaryDirectory(prefix="fm-seen-before-") as folder:
        service = await open_knowledge_service(
            lancedb_uri=str(Path(folder) / "lancedb"),
            embedding_model=None,
            llm=None,
            max_upload_bytes=UPLOAD_LIMIT,
            embedder=embedder,
        )
        await remember(service, cases)
        index = as_case_document_index(service)
        # Which past cases may be offered depends on the verdicts a rule excludes.
        found = {
            excluded: await candidates(loaded, index, cases, MatchRule(excluded=excluded))
            for excluded in dict.fromkeys(rule.excluded for rule in rules)
        }
    return [summarize(loaded.scenarios, found[rule.excluded], rule) for rule in rules]


SWEEP_THRESHOLDS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75)
SWEEP_MARGINS = (0.0, 0.05, 0.1)


def bundled_embedder() -> Embedder:
    """The embedding model the bot uses by default (loaded on first use)."""
    return SentenceTransformerEmbedder(resolve_model_path(None))


def sweep_lines(summaries: Sequence[SeenBeforeSummary]) -> list[str]:
    """Precision and recall at each threshold and margin, as a markdown table."""
    rows = [
        f"| {s.threshold:.2f} | {s.margin:.2f} | {s.offered} | "
        f"{'n/a' if s.precision is None else f'{s.precision:.0%}'} | {s.recall:.0%} |"
        for s in summaries
    ]
    return ["| Threshold | Margin | Offered | Precision | Recall |", "|---|---|---|---|---|", *rows]


def main() -> None:
    """Print the sweep the threshold was chosen from, with the bundled model."""
    rules = [MatchRule(threshold=t, margin=m) for t in SWEEP_THRESHOLDS for m in SWEEP_MARGINS]
    summaries = asyncio.run(measure(bundled_embedder(), rules=rules))
    print("\n".join(sweep_lines(summaries)))


if __name__ == "__main__":
    main()
