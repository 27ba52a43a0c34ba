"""What people say to a case outside a turn: close it (Close button, `/fm close`), the
mitigation's card: "I've applied it", "Not now", and Undo on a recorded step, and the ways out
of a stuck case."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from bot.inbox.work import ClickWork, ThreadMessage
from bot.services.cases import CaseStore
from bot.services.ports import Responders
from bot.services.turns import TurnService
from bot.slack.ids import SolutionValue, StepValue, StuckValue, load_value
from bot.thread.presenter import ThreadPresenter, thread_of
from domain.case import Case
from domain.engine.engine import TurnEngine, TurnResult
from domain.engine.present import confirmation_prompt, escalation_view, stuck_key
from domain.errors import NotFoundError
from domain.lifecycle.confirmations import PendingConfirmation, StatusChangePayload
from domain.lifecycle.degraded import active_degraded, choose_way_out
from domain.lifecycle.proposals import propose
from domain.lifecycle.special_states import WayOut
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.steps import defer
from domain.lifecycle.transitions import ensure_not_terminal
from domain.people import mention
from domain.ports import Clock
from domain.records import AuditEntry

WAYS_SAID = {
    WayOut.BEST_GUESS: (
        "We're stuck, so proceed with your best guess: take the leading hypothesis as the "
        "working cause, at lower confidence. Say what it implies, what to do now, and what "
        "would confirm or refute it."
    ),
    WayOut.NEW_CATEGORY: (
        "We're stuck, so try another kind of explanation: a category of cause none of the "
        "current hypotheses is in (code, config, environment, network, data, hardware, an "
        "external dependency). Name it, say why it could fit, and what to check first."
    ),
}
"""What a way out of a stuck case says to the model when it runs a turn."""
STUCK_SUFFIX = "+stuck"


class CloseRequests:
    """Asks the thread to confirm closing a case (closing is final, so it needs a Yes)."""

    def __init__(self, *, cases: CaseStore, presenter: ThreadPresenter, clock: Clock) -> None:
        self._cases = cases
        self._presenter = presenter
        self._clock = clock

    async def ask(self, *, case: Case, by: str) -> str:
        """Post a Yes/No question (Yes asks "are you sure?") in the case thread; return its ts."""
        ensure_not_terminal(case)
        proposed: list[PendingConfirmation] = []
        name = case.label

        def apply(target: Case) -> None:
            proposed.clear()
            payload = StatusChangePayload(
                to_status=CaseStatus.CLOSED, reason=f"{mention(by)} asked to close the case"
            )
            prompt = f"{mention(by)} wants to close case {name} without a fix. Close it?"
            proposed.append(propose(target, payload, now=self._clock.now(), prompt=prompt))

        saved = await self._cases.change(case, apply)
        prompt = confirmation_prompt(proposed[-1])
        await self._presenter.show_prompts(saved, [prompt])
        await self._presenter.show_header(saved)
        ts = await self._presenter.prompt_ts(saved, prompt.confirmation_id)
        assert ts is not None
        return ts


class MitigationSteps:
    """The mitigation's card: "I've applied it" is recorded in the clicker's name (then "did it
    fix it?" is asked), "Not now" leaves it offered but no longer the next step, and Undo takes a
    recorded step back while nothing depends on it. Only responders may do any of it."""

    def __init__(
        self,
        *,
        engine: TurnEngine,
        cases: CaseStore,
        presenter: ThreadPresenter,
        responders: Responders,
        clock: Clock,
    ) -> None:
        self._engine = engine
        self._cases = cases
        self._presenter = presenter
        self._responders = responders
        self._clock = clock

    async def applied(self, *, work: ClickWork) -> None:
        """ "I've applied it": recorded, the card redrawn with Undo, then did it fix it?"""
        value = load_value(SolutionValue, work.value)
        case = await self._case(work, value.case_id)
        solution = case.find_solution(value.solution_id)
        if solution is None:
            raise NotFoundError("no such solution")
        if solution.applied_at is not None:
            await self._whisper(work, f"{mention(solution.applied_by)} already said it's applied.")
            return
        responders = await self._responders.for_team(case.team_id)

        async def record(current: Case) -> tuple[Case, TurnResult]:
            result = await self._engine.record_step(
                case=current, solution_id=value.solution_id, by=work.user_id, responders=responders
            )
            return result.case, result

        def audit(changed: Case) -> list[AuditEntry]:
            return [self._entry(work, changed, "solution.applied", solution_id=value.solution_id)]

        saved, result = await self._cases.update(case, record, audit=audit)
        await self._presenter.redraw_request(saved, value.solution_id)  # the card: who, Undo
        await self._presenter.show_prompts(saved, result.reply.confirmations)
        await self._presenter.show_header(saved)

    async def not_now(self, *, work: ClickWork) -> None:
        """ "Not now": the mitigation stays offered; the summary's next step moves on."""
        value = load_value(SolutionValue, work.value)
        case = await self._case(work, value.case_id)
        responders = await self._responders.for_team(case.team_id)
        saved = await self._cases.change(
            case,
            lambda current: defer(
                current, value.solution_id, by=work.user_id, responders=responders
            ),
        )
        await self._presenter.redraw_request(saved, value.solution_id)
        await self._presenter.show_header(saved)

    async def undo(self, *, work: ClickWork) -> None:
        """Undo on a recorded step: reverted, the questions that followed it withdrawn."""
        value = load_value(StepValue, work.value)
        case = await self._case(work, value.case_id)
        step = case.find_confirmation(value.confirmation_id)
        if step is None:
            raise NotFoundError("no such step")
        responders = await self._responders.for_team(case.team_id)

        async def take_back(current: Case) -> tuple[Case, TurnResult]:
            result = await self._engine.undo_step(
                case=current,
                confirmation_id=value.confirmation_id,
                by=work.user_id,
                responders=responders,
            )
            return result.case, result

        def audit(changed: Case) -> list[AuditEntry]:
            return [
                self._entry(work, changed, "solution.undone", confirmation_id=step.confirmation_id)
            ]

        saved, result = await self._cases.update(case, take_back, audit=audit)
        payload: Any = step.payload
        await self._presenter.redraw_cards(saved, [payload.solution_id, value.confirmation_id])
        await self._presenter.withdraw(saved, result.reply)
        await self._presenter.show_header(saved)

    async def _case(self, work: ClickWork, case_id: str) -> Case:
        """The clicked case, only from the clicker's own workspace."""
        return await self._cases.clicked(case_id, work.team_id)

    async def _whisper(self, work: ClickWork, text: str) -> None:
        await self._presenter.whisper(
            channel=work.channel_id, user=work.user_id, thread_ts=work.thread_ts, text=text
        )

    def _entry(self, work: ClickWork, case: Case, action: str, **detail: str) -> AuditEntry:
        return AuditEntry(
            team_id=case.team_id,
            case_id=case.case_id,
            actor=work.user_id,
            action=action,
            detail=dict(detail),
            source="slack:button",
            at=self._clock.now(),
        )


class StuckOptions:
    """The ways out of a stuck case, each a button that moves it: the best guess and another
    kind of explanation run a turn, Escalate shares what to hand over, Close asks to close.
    Only responders may choose; a click in a finished or no longer stuck case says so, privately.
    """

    def __init__(
        self,
        *,
        cases: CaseStore,
        presenter: ThreadPresenter,
        closing: CloseRequests,
        responders: Responders,
        clock: Clock,
        turns: TurnService,
    ) -> None:
        self._cases = cases
        self._presenter = presenter
        self._closing = closing
        self._responders = responders
        self._clock = clock
        self._turns = turns

    async def choose(self, *, work: ClickWork) -> None:
        """A way out, recorded in the clicker's name (the stuck message and the summary say
        who chose it), then done."""
        value = load_value(StuckValue, work.value)
        case = await self._cases.clicked(value.case_id, work.team_id)
        if case.is_terminal:
            await self._whisper(work, f"Case {case.label} is {case.status}: nothing changed.")
            return
        if active_degraded(case) is None:
            await self._whisper(work, "The case is not stuck any more, so nothing changed.")
            return
        responders = await self._responders.for_team(case.team_id)
        now = self._clock.now()

        async def choose(current: Case) -> tuple[Case, str]:
            changed = current.model_copy(deep=True)
            chosen = choose_way_out(
                changed, value.way, by=work.user_id, now=now, responders=responders
            )
            return changed, stuck_key(chosen)

        def audit(changed: Case) -> list[AuditEntry]:
            return [_entry(work, changed, "stuck.chosen", now=now, way=value.way.value)]

        saved, key = await self._cases.update(case, choose, audit=audit)
        await self._presenter.redraw_cards(saved, [key])  # who chose what, under the buttons
        if value.way is WayOut.CLOSE:
            await self._closing.ask(case=saved, by=work.user_id)
            return
        if value.way is WayOut.ESCALATE:
            escalation = escalation_view(saved)
            assert escalation is not None  # still stuck: checked above, kept by the choice
            await self._presenter.share_handover(saved, escalation, by=work.user_id)
            await self._presenter.show_header(saved)
            return
        at = work.message_ts or saved.thread_ts
        clicked = ThreadMessage(
            ts=f"{at}{STUCK_SUFFIX}:{value.way.value}:{now.timestamp()}",
            author=work.user_id,
            text=WAYS_SAID[value.way],
        )
        await self._turns.take_turn(
            thread=thread_of(saved),
            messages=[clicked],
            work_key=f"{key}:{value.way.value}:{now.timestamp()}{STUCK_SUFFIX}",
            case=saved,
            clicked=True,
        )

    async def _whisper(self, work: ClickWork, text: str) -> None:
        await self._presenter.whisper(
            channel=work.channel_id, user=work.user_id, thread_ts=work.thread_ts, text=text
        )


def _entry(work: ClickWork, case: Case, action: str, *, now: datetime, **detail: str) -> AuditEntry:
    return AuditEntry(
        team_id=case.team_id,
        case_id=case.case_id,
        actor=work.user_id,
        action=action,
        detail=dict(detail),
        source="slack:button",
        at=now,
    )
