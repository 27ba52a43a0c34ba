"""Questions people ask the case from outside a turn: close it (Close button, `/fm close`)."""

from __future__ import annotations

from bot.services.cases import CaseStore
from bot.thread.presenter import ThreadPresenter
from domain.case import Case
from domain.engine.present import confirmation_prompt
from domain.lifecycle.confirmations import PendingConfirmation, StatusChangePayload
from domain.lifecycle.proposals import propose
from domain.lifecycle.status import CaseStatus
from domain.lifecycle.transitions import ensure_not_terminal
from domain.people import mention
from domain.ports import Clock


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
