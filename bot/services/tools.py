"""The bot looks for itself: tool runs consented to (▶ Run it) or trusted, run, kept, read.

A run the model asked for waits on its card until someone allowed to answer the case clicks
Run (or Skip); a trusted server's run is approved when it is asked. Approved runs are called
through the `ToolsPort` (at most `MAX_CALLS_PER_ROUND` at once, within `ROUND_SECONDS`), each
result kept as case evidence (redacted and capped by the port, indexed like an upload) with its
audit record, and a turn follows that quotes the results, so nobody has to type to move on.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Sequence

from bot.inbox.work import ClickWork, ThreadMessage
from bot.services.cases import CaseStore
from bot.services.ports import Responders
from bot.services.turns import ToolsRan, TurnService
from bot.slack.ids import ToolRunValue, load_value
from bot.thread.charts import Charted
from bot.thread.presenter import ThreadPresenter, thread_of
from domain.case import Case
from domain.engine.inputs import ToolRunResult
from domain.errors import NotFoundError
from domain.knowledge import KnowledgePort
from domain.lifecycle.decisions import is_responder
from domain.ports import AuditRepository, Clock
from domain.records import AuditEntry
from domain.tools import ToolOutcome, ToolResult, ToolSpec, ToolsPort, record
from domain.tools.runs import TRUST, ToolRun, ToolRunStatus, citation_of, consent, ran
from domain.tools.runs import skip as skip_run

logger = logging.getLogger(__name__)

MAX_CALLS_PER_ROUND = 3
ROUND_SECONDS = 120.0
"""However many runs and whatever each server's timeout, a round ends within this."""
ERROR_CHARS = 2_000
"""How much of a tool's own error message the model reads (it is not kept as evidence)."""
RAN_SUFFIX = "+tools"
SAID = "The tool runs above have finished; their results are quoted. Read them and go on."
"""What the turn after a round says to the model in the people's place."""
NOT_ALLOWED = "Only the people of this case may run or skip its tool runs."
_Change = Callable[[ToolRun], None]


class ToolService:
    """Runs the tool runs of a case once consented to, and the turn that reads their results."""

    def __init__(
        self,
        *,
        tools: ToolsPort,
        cases: CaseStore,
        presenter: ThreadPresenter,
        knowledge: KnowledgePort,
        responders: Responders,
        audit: AuditRepository,
        clock: Clock,
        turns: TurnService,
        round_seconds: float = ROUND_SECONDS,
    ) -> None:
        self._tools = tools
        self._cases = cases
        self._presenter = presenter
        self._knowledge = knowledge
        self._responders = responders
        self._audit = audit
        self._clock = clock
        self._turns = turns
        self._round_seconds = round_seconds

    def catalogue(self) -> Sequence[ToolSpec]:
        """The tools the model may ask for now."""
        return self._tools.catalogue()

    async def after_turn(self, case: Case, tool_round: int, answered: ThreadMessage) -> None:
        """Run what a turn approved (trusted servers), then the turn that reads the results."""
        if any(run.status is ToolRunStatus.APPROVED for run in case.tool_runs):
            await self._round(case, by=answered.author, anchor=answered.ts, tool_round=tool_round)

    async def run(self, *, work: ClickWork) -> None:
        """▶ Run it: consented to by the person who clicked, run at once, then a turn."""
        case, run = await self._clicked(work)
        if case is None or run is None:
            return
        saved = await self._change(case, run.run_id, lambda r: consent(r, by=work.user_id))
        await self._record(saved, work.user_id, "tool.consented", run)
        await self._presenter.redraw_request(saved, run.run_id)
        anchor = work.message_ts or case.thread_ts
        await self._round(saved, by=work.user_id, anchor=anchor, tool_round=0)

    async def skip(self, *, work: ClickWork) -> None:
        """Skip: the run is set aside; the card says so."""
        case, run = await self._clicked(work)
        if case is None or run is None:
            return
        saved = await self._change(case, run.run_id, lambda r: skip_run(r, by=work.user_id))
        await self._record(saved, work.user_id, "tool.skipped", run)
        await self._presenter.redraw_request(saved, run.run_id)

    async def _clicked(self, work: ClickWork) -> tuple[Case | None, ToolRun | None]:
        """The case and the run a click names, if the clicker may decide it now."""
        value = load_value(ToolRunValue, work.value)
        case = await self._cases.clicked(value.case_id, work.team_id)
        run = case.find_tool_run(value.run_id)
        if run is None:
            raise NotFoundError("no such tool run")
        responders = await self._responders.for_case(case)
        if not is_responder(case, work.user_id, responders=responders):
            await self._whisper(work, NOT_ALLOWED)
            return None, None
        if run.status is not ToolRunStatus.PENDING:
            await self._whisper(work, f"{run.label} #{run.number} is already {run.status.value}.")
            return None, None
        return case, run

    async def _round(self, case: Case, *, by: str, anchor: str, tool_round: int) -> None:
        """Call the approved runs, keep their results, show them, and take the turn after."""
        runs = [r for r in case.tool_runs if r.status is ToolRunStatus.APPROVED]
        runs = runs[:MAX_CALLS_PER_ROUND]
        if not runs or case.is_terminal:
            return
        doing = f"is running {', '.join(r.label for r in runs)}…"
        async with self._presenter.working(case, doing=doing):
            results = await self._call_all(runs)
            kept = [
                await self._keep(case, run, result)
                for run, result in zip(runs, results, strict=True)
            ]
        outcomes = dict(zip((r.run_id for r in runs), results, strict=True))
        saved = await self._changes(case, outcomes)
        for run, result in zip(runs, results, strict=True):
            actor = run.consented_by or TRUST
            await self._record(saved, actor, "tool.called", run, result)
            await self._presenter.redraw_request(saved, run.run_id)
        message = ThreadMessage(ts=f"{anchor}{RAN_SUFFIX}{runs[0].number}", author=by, text=SAID)
        await self._turns.take_turn(
            thread=thread_of(saved),
            messages=[message],
            work_key=f"{runs[0].run_id}{RAN_SUFFIX}",
            case=saved,
            ran=ToolsRan(kept, tool_round + 1),
            clicked=True,
        )
        answers = [Charted(r.tool, k.citation, k.text) for r, k in zip(runs, kept, strict=True)]
        await self._presenter.share_charts(saved, answers)

    async def _call_all(self, runs: Sequence[ToolRun]) -> list[ToolResult]:
        """Every run called at once; one that has not answered when the round ends is an error."""
        tasks = [asyncio.create_task(self._call(run)) for run in runs]
        done, late = await asyncio.wait(tasks, timeout=self._round_seconds)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)
        return [
            task.result() if task in done else self._late(run)
            for run, task in zip(runs, tasks, strict=True)
        ]

    async def _call(self, run: ToolRun) -> ToolResult:
        arguments = json.loads(run.arguments)  # one JSON object: checked when it was asked
        return await self._tools.call(server=run.server, tool=run.tool, arguments=arguments)

    def _late(self, run: ToolRun) -> ToolResult:
        sentence = f"{run.label} did not finish within {self._round_seconds:g} s."
        audit = record(
            server=run.server,
            tool=run.tool,
            arguments=json.loads(run.arguments),
            started_at=self._clock.now(),
            duration_ms=int(self._round_seconds * 1000),
            outcome=ToolOutcome.ERROR,
            detail=sentence,
        )
        return ToolResult(outcome=ToolOutcome.ERROR, sentence=sentence, record=audit)

    async def _keep(self, case: Case, run: ToolRun, result: ToolResult) -> ToolRunResult:
        """The result as case evidence (indexed like an upload) and as the next turn reads it."""
        citation = citation_of(run.server, run.tool, run.number, run.arguments)
        text = result.text if result.answered else ""
        if result.outcome is ToolOutcome.ERROR:
            text = result.text[:ERROR_CHARS]  # the tool's own words, so the model can correct
        if text and result.answered:
            await self._knowledge.ingest_case_file(
                team_id=case.team_id,
                case_id=case.case_id,
                filename=f"{run.server}-{run.tool}-{run.number}.txt",
                content=text.encode(),
            )
        return ToolRunResult(
            run_id=run.run_id,
            citation=citation,
            label=run.label,
            arguments=run.arguments,
            outcome=result.outcome,
            sentence=result.sentence,
            text=text,
        )

    async def _changes(self, case: Case, results: dict[str, ToolResult]) -> Case:
        """Each run called is marked ran, with its outcome, sentence and record."""

        async def step(current: Case) -> tuple[Case, None]:
            copy = current.model_copy(deep=True)
            for run in copy.tool_runs:
                result = results.get(run.run_id)
                if result is not None and run.status is ToolRunStatus.APPROVED:
                    ran(run, outcome=result.outcome, sentence=result.sentence, record=result.record)
            return copy, None

        saved, _ = await self._cases.update(case, step)
        return saved

    async def _change(self, case: Case, run_id: str, change: _Change) -> Case:
        async def step(current: Case) -> tuple[Case, None]:
            copy = current.model_copy(deep=True)
            found = copy.find_tool_run(run_id)
            if found is None:
                raise NotFoundError("no such tool run")
            change(found)
            return copy, None

        saved, _ = await self._cases.update(case, step)
        return saved

    async def _record(
        self, case: Case, actor: str, action: str, run: ToolRun, result: ToolResult | None = None
    ) -> None:
        detail: dict[str, object] = {
            "run_id": run.run_id,
            "server": run.server,
            "tool": run.tool,
            "arguments": run.arguments,
        }
        if result is not None:
            detail["record"] = result.record.model_dump(mode="json")
        source = "system" if actor == TRUST else "slack:button"
        await self._audit.record(
            AuditEntry(
                team_id=case.team_id,
                case_id=case.case_id,
                actor=actor,
                action=action,
                detail=detail,
                source=source,
                at=self._clock.now(),
            )
        )

    async def _whisper(self, work: ClickWork, text: str) -> None:
        await self._presenter.whisper(
            channel=work.channel_id, user=work.user_id, thread_ts=work.thread_ts, text=text
        )
