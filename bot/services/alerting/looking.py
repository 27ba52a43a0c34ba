"""Before an alert's analysis: the trusted tools read the series that fired.

The calls come from `domain.workflows.observed` (the alert's expression, a trusted range query
tool); each runs through the `ToolsPort` (allowlist, schema, cap and redaction as for any run),
is kept on the case as a tool run consented to by `trust`, stored as a case file (so later turns
find it), and audited. What answered goes into the incident context as an observed fact.
"""

from __future__ import annotations

import json
import logging

from bot.services.cases import CaseStore
from domain.case import Case
from domain.knowledge import KnowledgePort
from domain.ports import AuditRepository, Clock
from domain.records import AuditEntry
from domain.tools import ToolResult, ToolsPort
from domain.tools.runs import TRUST, ToolRun, consent, ran
from domain.workflows.observed import AlertQuery, ObservedData, alert_queries, series_summary
from domain.workflows.signals import SignalGroup

logger = logging.getLogger(__name__)

REASON = "The alert's own expression around when it fired, read before the analysis."


class AlertLooks:
    """Runs the trusted tools that suit an alert, before its analysis."""

    def __init__(
        self,
        *,
        tools: ToolsPort,
        knowledge: KnowledgePort,
        cases: CaseStore,
        audit: AuditRepository,
        clock: Clock,
    ) -> None:
        self._tools = tools
        self._knowledge = knowledge
        self._cases = cases
        self._audit = audit
        self._clock = clock

    async def look(self, case: Case, group: SignalGroup) -> tuple[Case, list[ObservedData]]:
        """The case with its runs kept, and what the tools answered (empty when none suits)."""
        queries = alert_queries(group, self._tools.catalogue(), now=self._clock.now())
        observed: list[ObservedData] = []
        for query in queries:
            case, found = await self._one(case, query)
            observed.append(found)
        return case, observed

    async def _one(self, case: Case, query: AlertQuery) -> tuple[Case, ObservedData]:
        number = len(case.tool_runs) + 1
        run = ToolRun(
            number=number,
            server=query.server,
            tool=query.tool,
            arguments=query.arguments,
            reason=REASON,
        )
        consent(run, by=TRUST)
        result = await self._tools.call(
            server=query.server, tool=query.tool, arguments=json.loads(query.arguments)
        )
        ran(run, outcome=result.outcome, sentence=result.sentence, record=result.record)
        saved = await self._keep_run(case, run)
        text = result.text if result.answered else ""
        if text:
            await self._knowledge.ingest_case_file(
                team_id=case.team_id,
                case_id=case.case_id,
                filename=f"{run.server}-{run.tool}-{run.number}.txt",
                content=text.encode(),
            )
        await self._record(saved, run, result)
        summary = series_summary(text) if text else result.sentence or result.outcome.value
        logger.info("alert looked at its series", extra={"case_id": case.case_id})
        observed = ObservedData(
            citation=run.citation,
            label=run.label,
            tool=run.tool,
            expression=query.expression,
            summary=summary,
            text=text,
        )
        return saved, observed

    async def _keep_run(self, case: Case, run: ToolRun) -> Case:
        async def step(current: Case) -> tuple[Case, None]:
            copy = current.model_copy(deep=True)
            copy.tool_runs.append(run)
            return copy, None

        saved, _ = await self._cases.update(case, step)
        return saved

    async def _record(self, case: Case, run: ToolRun, result: ToolResult) -> None:
        detail: dict[str, object] = {
            "run_id": run.run_id,
            "server": run.server,
            "tool": run.tool,
            "arguments": run.arguments,
            "record": result.record.model_dump(mode="json"),
        }
        await self._audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id,
                actor=TRUST,
                action="tool.called",
                detail=detail,
                source="system",
                at=self._clock.now(),
            )
        )
