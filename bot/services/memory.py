"""Seen before in Slack: look for the finished case a new one repeats, and its runbook.

A case looks once: when its problem is confirmed (the turn after the Yes) or when an alert opens
it. What was found is kept on the case (``Case.seen_before``), so later turns tell the model of
the lead; the block is shown once, opening the reply that follows the look.
"""

from __future__ import annotations

import logging

from bot.inbox.work import ClickWork
from bot.services.cases import CaseStore
from bot.slack.errors import BotError
from bot.slack.ids import RunbookValue, load_value
from bot.thread.memory import Lead, SeenBeforeLead
from bot.thread.presenter import ThreadPresenter
from domain.case import Case
from domain.memory import (
    DEFAULT_RULE,
    CaseDocumentIndex,
    MatchRule,
    OutcomeLookup,
    find_seen_before,
    runbook_of,
)
from domain.past_cases import SeenBefore
from domain.ports import Clock

logger = logging.getLogger(__name__)

NO_RUNBOOK = "That case wrote no runbook, so there is none to follow."
NOT_OFFERED = "That runbook is not the one this case was offered."


class SeenBeforeService:
    """Finds a case's past match once, and posts a past case's runbook when people choose it."""

    def __init__(
        self,
        *,
        index: CaseDocumentIndex,
        cases: CaseStore,
        outcomes: OutcomeLookup,
        presenter: ThreadPresenter,
        clock: Clock,
        rule: MatchRule = DEFAULT_RULE,
    ) -> None:
        self._index = index
        self._cases = cases
        self._outcomes = outcomes
        self._presenter = presenter
        self._clock = clock
        self._rule = rule

    async def look(self, case: Case, *, opened_by_alert: bool = False) -> tuple[Case, list[Lead]]:
        """The case after its one look for a past case, and the block to open the next reply with.

        Nothing happens before the problem is confirmed (unless an alert opened the case) or after
        the case looked once; a failed search is logged and tried again next turn.
        """
        if case.seen_before is not None or case.is_terminal:
            return case, []
        if not (opened_by_alert or case.consulting.problem_statement_confirmed):
            return case, []
        try:
            match = await find_seen_before(
                case=case,
                index=self._index,
                cases=self._cases,
                outcomes=self._outcomes,
                rule=self._rule,
            )
        except Exception:  # a lead is extra: the turn goes on without it, and looks next turn
            logger.warning("seen-before search failed", exc_info=True, extra={"case": case.case_id})
            return case, []
        looked = SeenBefore(looked_at=self._clock.now(), match=match)

        def keep(current: Case) -> None:
            current.seen_before = current.seen_before or looked

        saved = await self._cases.change(case, keep)
        if match is None:
            return saved, []
        link = await self._presenter.permalink(channel=match.channel_id, ts=match.thread_ts)
        return saved, [SeenBeforeLead(match=match, link=link)]

    async def use_runbook(self, *, work: ClickWork) -> None:
        """ "Use its runbook": the past case's runbook posted in the thread; the next turn knows."""
        value = load_value(RunbookValue, work.value)
        case = await self._cases.clicked(value.case_id, work.team_id)
        kept = case.seen_before
        match = kept.match if kept else None
        if match is None or match.case_id != value.past_case_id:
            raise BotError(NOT_OFFERED)
        past = await self._cases.get(match.case_id)
        markdown = runbook_of(past) if past.team_id == case.team_id else None
        if not markdown:
            raise BotError(NO_RUNBOOK)
        title = match.runbook_title or f"Runbook: {match.label}"
        await self._presenter.share_runbook(
            case, match, title=title, markdown=markdown, chosen_by=work.user_id
        )

        def follow(current: Case) -> None:
            if current.seen_before is not None and not current.seen_before.runbook_followed_by:
                current.seen_before.runbook_followed_by = work.user_id

        await self._cases.change(case, follow)
